/**
 * Which highlighting grammar a file's path names: the language the symbol
 * index gives the path (`symbols/languages.ts`), else by its extension, then
 * its whole name (`Makefile`, `Dockerfile`), then, for a file without an
 * extension, its `#!` line. A path no rule names is plain text (no
 * highlighting). The grammars themselves are loaded only by the highlighting
 * worker (`highlight_worker.ts`); this table is all the pages need.
 *
 * @module
 */

import { grammarLanguageOf, patternLanguageOf } from "../../symbols/languages.ts";

// Paths the symbol index parses (or reads with line patterns) are highlighted
// with the grammar of the same language; the tables below name the rest.
const BY_SYMBOL_LANGUAGE: Record<string, string> = {
  c: "c",
  cpp: "cpp",
  csharp: "csharp",
  go: "go",
  java: "java",
  javascript: "javascript",
  php: "php",
  python: "python",
  ruby: "ruby",
  rust: "rust",
  typescript: "typescript",
  tsx: "typescript",
  kotlin: "kotlin",
  scala: "scala",
  swift: "swift",
  shell: "bash",
};

const BY_EXTENSION: Record<string, string> = {
  pl: "perl",
  pm: "perl",
  perl: "perl",
  lua: "lua",
  sql: "sql",
  json: "json",
  yml: "yaml",
  yaml: "yaml",
  xml: "xml",
  html: "xml",
  htm: "xml",
  svg: "xml",
  css: "css",
  scss: "scss",
  md: "markdown",
  markdown: "markdown",
  mk: "makefile",
  toml: "ini",
  ini: "ini",
  cfg: "ini",
  diff: "diff",
  patch: "diff",
  m: "objectivec",
  mm: "objectivec",
  r: "r",
  dart: "dart",
  hs: "haskell",
  ex: "elixir",
  exs: "elixir",
  erl: "erlang",
  tcl: "tcl",
  adoc: "asciidoc",
  asciidoc: "asciidoc",
  cmake: "cmake",
  proto: "protobuf",
  gradle: "gradle",
  groovy: "groovy",
  ps1: "powershell",
  vue: "xml",
};

const BY_NAME: Record<string, string> = {
  makefile: "makefile",
  gnumakefile: "makefile",
  dockerfile: "dockerfile",
  "cmakelists.txt": "cmake",
  ".gitconfig": "ini",
  ".editorconfig": "ini",
  ".gitmodules": "ini",
};

const BY_INTERPRETER: [RegExp, string][] = [
  [/^#!.*\b(?:ba|z|da|k)?sh\b/, "bash"],
  [/^#!.*\bpython[0-9.]*\b/, "python"],
  [/^#!.*\bperl\b/, "perl"],
  [/^#!.*\bruby\b/, "ruby"],
  [/^#!.*\b(?:node|deno)\b/, "javascript"],
  [/^#!.*\b(?:tclsh|wish)\b/, "tcl"],
];

/** Every grammar a path can name (the worker registers exactly these). */
export const HIGHLIGHT_LANGUAGES: readonly string[] = [
  ...new Set([
    ...Object.values(BY_SYMBOL_LANGUAGE),
    ...Object.values(BY_EXTENSION),
    ...Object.values(BY_NAME),
    ...BY_INTERPRETER.map(([, language]) => language),
  ]),
].sort();

/**
 * The grammar of the file at `path` (its first line `firstLine` read for a
 * `#!`), or null for plain text.
 */
export function highlightLanguageOf(path: string, firstLine = ""): string | null {
  const symbolLanguage = grammarLanguageOf(path) ?? patternLanguageOf(path);
  if (symbolLanguage !== null) return BY_SYMBOL_LANGUAGE[symbolLanguage];
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const byName = Object.hasOwn(BY_NAME, name) ? BY_NAME[name] : undefined;
  if (byName !== undefined) return byName;
  const dot = name.lastIndexOf(".");
  if (dot > 0) {
    return Object.hasOwn(BY_EXTENSION, name.slice(dot + 1))
      ? BY_EXTENSION[name.slice(dot + 1)]
      : null;
  }
  for (const [pattern, language] of BY_INTERPRETER) if (pattern.test(firstLine)) return language;
  return null;
}
