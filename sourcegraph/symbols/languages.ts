/**
 * The languages the symbol index knows by a grammar, picked by file name:
 * one table for the builder (which loads their grammars) and the service
 * (which filters by language). Files of other languages get their symbols
 * from the line patterns of `shared/defined_names.ts`, under the family
 * name those patterns use.
 *
 * @module
 */

/** The languages parsed with a tree-sitter grammar. */
export const GRAMMAR_LANGUAGES = [
  "c",
  "cpp",
  "csharp",
  "go",
  "java",
  "javascript",
  "php",
  "python",
  "ruby",
  "rust",
  "typescript",
  "tsx",
] as const;

/** A language parsed with a grammar. */
export type GrammarLanguage = typeof GRAMMAR_LANGUAGES[number];

const EXTENSIONS: Record<string, GrammarLanguage> = {
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  "c++": "cpp",
  hh: "cpp",
  hpp: "cpp",
  hxx: "cpp",
  "h++": "cpp",
  ipp: "cpp",
  cs: "csharp",
  go: "go",
  java: "java",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  php: "php",
  py: "python",
  pyi: "python",
  rb: "ruby",
  rake: "ruby",
  gemspec: "ruby",
  rs: "rust",
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
};

const FILE_NAMES: Record<string, GrammarLanguage> = {
  Rakefile: "ruby",
  Gemfile: "ruby",
};

// A line only C++ has: a namespace, a template, a class with a body, an access label.
const CPP_LINE =
  /^\s*(?:namespace\s+[\w:]+\s*\{|template\s*<|class\s+\w+[^;]*\{?\s*$|(?:public|private|protected)\s*:)/m;

/**
 * The grammar language of a file at `path`, or null when no grammar parses
 * it. A `.h` file is C unless its `text` has a line only C++ has.
 */
export function grammarLanguageOf(path: string, text?: string): GrammarLanguage | null {
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (Object.hasOwn(FILE_NAMES, name)) return FILE_NAMES[name];
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return null;
  const extension = name.slice(dot + 1).toLowerCase();
  // Own keys only: a file named `a.constructor` names no language.
  const language = Object.hasOwn(EXTENSIONS, extension) ? EXTENSIONS[extension] : null;
  return language === "c" && name.endsWith(".h") && text !== undefined && CPP_LINE.test(text)
    ? "cpp"
    : language;
}

// Languages with no grammar whose definitions the line patterns find.
const PATTERN_EXTENSIONS: Record<string, string> = {
  kt: "kotlin",
  kts: "kotlin",
  scala: "scala",
  swift: "swift",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
};

/**
 * The language of a file at `path` whose definitions the line patterns
 * find (it has no grammar), or null.
 */
export function patternLanguageOf(path: string): string | null {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return null;
  const extension = name.slice(dot + 1).toLowerCase();
  return Object.hasOwn(PATTERN_EXTENSIONS, extension) ? PATTERN_EXTENSIONS[extension] : null;
}

/** Every language a symbol may have, sorted. */
export const SYMBOL_LANGUAGES: readonly string[] = [
  ...GRAMMAR_LANGUAGES,
  ...new Set(Object.values(PATTERN_EXTENSIONS)),
].sort();
