/**
 * The names a chunk defines — functions, methods, types, classes, modules,
 * Markdown and AsciiDoc headings — found line by line with one small set of
 * patterns per language family, picked by file extension. They are indexed
 * in a column of their own that BM25 weighs above body text (project_knowledge),
 * so the file defining `QuicServerConfig` ranks above the files that only use
 * it, and they are the symbols of languages the sourcegraph symbol index has
 * no grammar for. The patterns are deliberately plain: a miss only loses the
 * boost, never a hit.
 *
 * @module
 */

/** Most names kept per chunk. */
export const MAX_NAMES_PER_CHUNK = 64;

type Family = "markdown" | "asciidoc" | "c" | "script" | "python" | "rust" | "go" | "jvm" | "shell";

const EXTENSIONS: Record<string, Family> = {
  md: "markdown",
  markdown: "markdown",
  mdx: "markdown",
  rst: "markdown",
  adoc: "asciidoc",
  c: "c",
  h: "c",
  cc: "c",
  cpp: "c",
  cxx: "c",
  hpp: "c",
  hh: "c",
  ts: "script",
  tsx: "script",
  mts: "script",
  cts: "script",
  js: "script",
  jsx: "script",
  mjs: "script",
  cjs: "script",
  py: "python",
  pyi: "python",
  rs: "rust",
  go: "go",
  java: "jvm",
  kt: "jvm",
  kts: "jvm",
  scala: "jvm",
  cs: "jvm",
  swift: "jvm",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
};

const ID = String.raw`[A-Za-z_$][\w$]*`;
// Each pattern's capture groups are names (an undefined group is skipped).
const PATTERNS: Record<Family, RegExp[]> = {
  markdown: [/^#{1,6}\s+(.+?)\s*#*$/],
  asciidoc: [/^={1,6}\s+(.+)$/, /^\[\[(\S+?)\]\]$/],
  c: [
    // A definition at the left margin: `int name(…` not ending in `;`.
    new RegExp(String.raw`^(?!#|\s)[A-Za-z_][\w \t*&:<>,~]*?\b(${ID})\s*\([^;]*$`),
    new RegExp(String.raw`^\s*(?:typedef\s+)?(?:struct|enum|union|class|namespace)\s+(${ID})`),
    new RegExp(String.raw`^\s*#\s*define\s+(${ID})`),
  ],
  script: [
    new RegExp(
      String.raw`\b(?:function\*?|class|interface|type|enum|namespace|module)\s+(${ID})`,
    ),
    new RegExp(String.raw`^\s*(?:export\s+)?(?:const|let|var)\s+(${ID})\s*[:=]`),
    // A method or object member: `name(…) {` or `async name(…): T {`.
    new RegExp(
      String
        .raw`^\s+(?:(?:public|private|protected|static|readonly|async|override|get|set)\s+)*#?(${ID})\s*(?:<[^>]*>)?\([^)]*\)\s*(?::[^{=]*)?\{\s*$`,
    ),
  ],
  python: [new RegExp(String.raw`^\s*(?:async\s+)?(?:def|class)\s+(${ID})`)],
  rust: [
    new RegExp(
      String.raw`\b(?:fn|struct|enum|trait|type|mod|union|const|static)\s+(${ID})`,
    ),
    new RegExp(String.raw`\bimpl(?:<[^>]*>)?\s+(?:${ID}\s+for\s+)?(${ID})`),
    new RegExp(String.raw`\bmacro_rules!\s*(${ID})`),
  ],
  go: [
    new RegExp(String.raw`^func\s+(?:\([^)]*\)\s*)?(${ID})`),
    new RegExp(String.raw`^\s*(?:type\s+)?(${ID})\s+(?:struct|interface)\s*\{`),
    new RegExp(String.raw`^type\s+(${ID})`),
  ],
  jvm: [
    new RegExp(
      String
        .raw`\b(?:class|interface|enum|record|object|trait|struct|protocol|fun|def|func)\s+(${ID})`,
    ),
    new RegExp(
      String
        .raw`^\s*(?:(?:public|private|protected|internal|static|final|abstract|synchronized|override|open|suspend)\s+)+[\w<>\[\]?, .]*?\b(${ID})\s*\(`,
    ),
  ],
  shell: [new RegExp(String.raw`^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)`)],
};

/** One name a line defines, with the keyword before it when there is one. */
export interface DefinedName {
  name: string;
  /** 1-based line number. */
  line: number;
  /** The word just before the name (`class`, `fn`, `def`…), lowercased, or "". */
  keyword: string;
}

/**
 * Every name the lines of `text` define, in line order, for a file at
 * `path` (none when its extension is not one the patterns know).
 *
 * @example
 * ```ts
 * import { definedNameLines } from "./defined_names.ts";
 * const found = definedNameLines("a.py", "x = 1\nclass Parser:\n  pass\n");
 * if (found[0].name !== "Parser" || found[0].line !== 2 || found[0].keyword !== "class") {
 *   throw new Error("expected the class on line 2");
 * }
 * ```
 */
export function definedNameLines(path: string, text: string): DefinedName[] {
  const family = familyOf(path);
  if (family === undefined) return [];
  const patterns = PATTERNS[family];
  const found: DefinedName[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.length > 400) continue; // generated or minified: no definitions worth a boost
    for (const pattern of patterns) {
      const match = pattern.exec(line);
      if (match === null) continue;
      for (let group = 1; group < match.length; group++) {
        const name = match[group];
        if (name === undefined) continue;
        const before = line.slice(0, match.index + match[0].lastIndexOf(name)).trimEnd();
        const keyword = /([A-Za-z_!]+)$/.exec(before)?.[1].toLowerCase() ?? "";
        found.push({ name, line: i + 1, keyword });
      }
    }
  }
  return found;
}

/** The names the lines of `text` define, for a file at `path` (at most `MAX_NAMES_PER_CHUNK`). */
export function definedNames(path: string, text: string): string[] {
  return definedNameLines(path, text).slice(0, MAX_NAMES_PER_CHUNK).map((found) => found.name);
}

function familyOf(path: string): Family | undefined {
  return EXTENSIONS[path.slice(path.lastIndexOf(".") + 1).toLowerCase()];
}
