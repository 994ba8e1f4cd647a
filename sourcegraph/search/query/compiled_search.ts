/**
 * A search request compiled once, at the service boundary, into the one
 * value every later step reads: the RE2 program (re2js, linear time), the
 * literals one of which every match contains (re2js's own prefilter, read
 * once), the line finder built on them, the trigram query of the content and
 * of the paths, the folder roots and the glob filter (`rg -g` rules), and a
 * key that is the same for identical searches. Patterns that could match a
 * newline or the empty string, or use lookaround, are `INVALID_PATTERN`;
 * bad globs `INVALID_GLOB`.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const search = compileSearch({ pattern: "parse(Request|Response)", paths: ["src/"] });
 * assert.deepStrictEqual(search.literals, ["parse"]); // every match holds it
 * assert.deepStrictEqual(search.paths, ["src"]);
 * assert.strictEqual(search.keep("src/http.ts"), true);
 * assert.strictEqual(search.keep("docs/http.md"), false);
 * const same = compileSearch({ pattern: "parse(Request|Response)", paths: ["src"] });
 * assert.strictEqual(same.key, search.key);
 * ```
 *
 * @module
 */

import picomatch from "picomatch";
import { RE2JS } from "re2js";
import { folderPath } from "../../access/path_scope.ts";
import { SourcegraphError } from "../../errors.ts";
import { type LineFinder, lineFinder } from "./line_candidates.ts";
import { literalsOf, patternPrefilter } from "./pattern_literals.ts";
import { pathQuery } from "./path_query.ts";
import { shapePrefilter } from "./pattern_shape.ts";
import type { TrigramQuery } from "../index/trigrams.ts";
import { fixedQuery, prefilterQuery } from "./trigram_query.ts";

/** What a caller asks for, after schema validation. */
export interface SearchRequest {
  pattern: string;
  fixedStrings?: boolean;
  ignoreCase?: boolean;
  glob?: string[];
  /** Folders to search (taken literally, never as patterns). */
  paths?: string[];
  /**
   * The folders the repository's path groups make visible (none: all of it):
   * nothing outside them is a candidate, a count or a rank.
   */
  groups?: string[];
  output?: "content" | "files";
  maxLinesPerFile?: number;
  /**
   * Bytes of shown lines a page can hold (its `max_bytes`): once the lines
   * kept, each counted as at most `SHOWN_LINE_BYTES` (a row clips a longer
   * one), pass it, later files' lines are only counted, not cut out (a page
   * shows none of them; counts and order stay the same). Default: no bound.
   */
  lineBytes?: number;
  /** Most files collected (default and most: the search's file cap). */
  maxFiles?: number;
  /** Give each shown line its match ranges (for pages that mark them). */
  matchRanges?: boolean;
  /** Most milliseconds spent verifying (default and most: `SEARCH_MAX_MS`). */
  maxMs?: number;
  /** Continue after this match (a page's last): later paths, and later lines of its file. */
  after?: SearchPosition;
  /** Put test and generated files (`path_kinds.ts`) after the others, each part in its order. */
  testsLast?: boolean;
}

/**
 * A ranked search's groups, in order: 0 the files defining a matching name,
 * 1 the files whose name the pattern matches, 2 the others.
 */
export type SearchTier = 0 | 1 | 2;

/**
 * A match's place in a search's order; `line` null stands for the whole
 * file. `tier` is set when the search was ranked; unset, the order is by
 * path.
 */
export interface SearchPosition {
  path: string;
  line: number | null;
  tier?: SearchTier;
}

/** A search, compiled. */
export interface CompiledSearch {
  readonly pattern: string;
  readonly fixedStrings: boolean;
  readonly ignoreCase: boolean;
  /** The program every candidate line is verified with. */
  readonly regex: RE2JS;
  /** Literals one of which every match contains, or null when none is known. */
  readonly literals: string[] | null;
  /** How candidate lines are found in a text before the program checks them. */
  readonly finder: LineFinder;
  /**
   * Whether every line the finder gives matches, so the program need not
   * check it: a fixed string's finder looks for the pattern alone, as itself
   * (`indexOf`), or, ignoring case, an ASCII one with a Unicode
   * case-insensitive `RegExp`, which folds as RE2 does (KELVIN SIGN as `k`,
   * LONG S as `s`; a non-ASCII one ignoring case has no finder).
   */
  readonly finderMatches: boolean;
  /** The trigrams a matching file's text must hold. */
  readonly trigrams: TrigramQuery;
  /** The folder roots searched (none: the whole tree), without trailing slashes. */
  readonly paths: string[];
  readonly globs: string[];
  /** The folders path groups make visible (none: the whole tree). */
  readonly groups: string[];
  /** The trigrams a kept file's path must hold. */
  readonly pathTrigrams: TrigramQuery;
  /** Whether a path is in the roots and the groups and passes the globs. */
  readonly keep: (path: string) => boolean;
  readonly output: "content" | "files";
  readonly maxLinesPerFile: number;
  /** Bytes of shown lines past which later files' lines are only counted (`SearchRequest.lineBytes`). */
  readonly lineBytes: number;
  /** Most files collected. */
  readonly maxFiles: number;
  /** Whether each shown line gets its match ranges. */
  readonly matchRanges: boolean;
  /** Most milliseconds spent verifying candidates. */
  readonly maxMs: number;
  /** The same for identical searches (they may share one computation). */
  readonly key: string;
  /** The request it was compiled from. */
  readonly request: SearchRequest;
  /** Where the search continues (null: from the start). */
  readonly after: SearchPosition | null;
  /** Whether test and generated files come after the others. */
  readonly testsLast: boolean;
}

const MAX_PATTERN_BYTES = 8192;
/**
 * Most bytes of a line a page shows (a row clips a longer one there); a line
 * of n UTF-16 code units is at least n UTF-8 bytes, so `min(n, this)` never
 * counts more than its row takes.
 */
export const SHOWN_LINE_BYTES = 2048;
/** Most files one search collects. */
export const SEARCH_MAX_FILES = 1000;
/** Time one search may spend verifying candidates. */
export const SEARCH_MAX_MS = 20_000;

/**
 * Compiles `request` (INVALID_PATTERN, INVALID_GLOB).
 *
 * @param request The validated request.
 * @returns The compiled search.
 */
export function compileSearch(request: SearchRequest): CompiledSearch {
  const fixedStrings = request.fixedStrings === true || isPlainText(request.pattern);
  const ignoreCase = request.ignoreCase === true;
  const regex = compilePattern(request.pattern, { fixedStrings: request.fixedStrings, ignoreCase });
  // The prefilter is read without the case flag (literals keep their shape;
  // folding happens where they are used), from the program itself when it has none.
  const prefilter = fixedStrings ? null : patternPrefilter(ignoreCase ? request.pattern : regex);
  const literals = fixedStrings ? [request.pattern] : prefilter && literalsOf(prefilter);
  const paths = (request.paths ?? []).map(folderPath);
  const globs = request.glob ?? [];
  const passes = globFilter(globs);
  const groups = (request.groups ?? []).map(folderPath);
  const under = (roots: readonly string[], path: string) =>
    roots.length === 0 || roots.some((root) => path === root || path.startsWith(`${root}/`));
  const output = request.output ?? "content";
  const maxLinesPerFile = request.maxLinesPerFile ?? 10;
  const finder = finderOf(request.pattern, { literals, fixedStrings, ignoreCase });
  return {
    pattern: request.pattern,
    fixedStrings,
    ignoreCase,
    regex,
    literals,
    finder,
    // A lone surrogate is found by `indexOf` inside a pair, where RE2 sees one code point.
    finderMatches: fixedStrings && finder !== null && request.pattern.isWellFormed(),
    trigrams: fixedStrings
      ? fixedQuery(request.pattern, { ignoreCase })
      : prefilterQuery(prefilter, { ignoreCase }),
    paths,
    globs,
    groups,
    pathTrigrams: pathQuery({ paths, globs }),
    keep: (path) => under(paths, path) && under(groups, path) && passes(path),
    output,
    maxLinesPerFile,
    lineBytes: request.lineBytes ?? Infinity,
    maxFiles: request.maxFiles ?? SEARCH_MAX_FILES,
    matchRanges: request.matchRanges === true,
    maxMs: Math.max(0, Math.min(request.maxMs ?? SEARCH_MAX_MS, SEARCH_MAX_MS)),
    key: JSON.stringify([
      request.pattern,
      fixedStrings,
      ignoreCase,
      globs,
      paths,
      groups,
      maxLinesPerFile,
      request.lineBytes ?? null,
      request.maxFiles ?? SEARCH_MAX_FILES,
      request.after ?? null,
      request.matchRanges === true,
      request.testsLast === true,
    ]),
    request,
    after: request.after ?? null,
    testsLast: request.testsLast === true,
  };
}

/** Literals shorter than this find too many lines: the pattern's shape finds fewer. */
const WEAK_LITERAL = 3;

// How the lines worth checking are found: by the required literals, or,
// when there are none or they are short (`_` in `[A-Z]{2}_[0-9]{2}`), by
// the pattern's shape when it has one (null: every line).
function finderOf(
  pattern: string,
  options: { literals: string[] | null; fixedStrings: boolean; ignoreCase: boolean },
): LineFinder {
  const { literals, fixedStrings, ignoreCase } = options;
  const byLiterals = lineFinder(literals, { ignoreCase });
  const weak = literals === null || literals.some((literal) => literal.length < WEAK_LITERAL);
  if (fixedStrings || (byLiterals !== null && !weak)) return byLiterals;
  const shape = shapePrefilter(pattern, { ignoreCase });
  return shape === null ? byLiterals : { pattern: shape };
}

// A pattern with no metacharacter (nor line break) is its own text: searched as a fixed string,
// its lines are proven by the finder alone, as with `fixed_strings`.
function isPlainText(pattern: string): boolean {
  return pattern.length > 0 && !/[\\.+*?()|[\]{}^$\r\n]/.test(pattern);
}

// Compiles the pattern, refusing what cannot match a single line sensibly.
function compilePattern(
  pattern: string,
  options: { fixedStrings?: boolean; ignoreCase: boolean },
): RE2JS {
  const invalid = (message: string) =>
    new SourcegraphError("INVALID_PATTERN", message, {
      hint: options.fixedStrings
        ? "Search line by line: split the text at its line breaks and search one line."
        : "For literal text, set fixed_strings: true (no escaping needed).",
    });
  if (pattern.length === 0 || new TextEncoder().encode(pattern).length > MAX_PATTERN_BYTES) {
    throw invalid(`the pattern must be 1 to ${MAX_PATTERN_BYTES} bytes`);
  }
  const flags = options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
  if (options.fixedStrings) {
    if (/[\r\n]/.test(pattern)) throw invalid("a line-by-line search cannot match a newline");
    return RE2JS.compile(RE2JS.quote(pattern), flags);
  }
  if (/[\r\n]|\\n|\\x0[aA]|\\x\{0*[aA]\}|\\012|\\cJ|\(\?[a-zA-Z]*s/.test(pattern)) {
    throw invalid("a line-by-line search cannot match a newline");
  }
  if (/\(\?<?[=!]/.test(pattern)) throw invalid("lookaround is not supported (RE2)");
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, flags);
  } catch (error) {
    throw invalid(syntaxProblem(pattern, error));
  }
  if (compiled.matcher("").find()) throw invalid("the pattern matches the empty string");
  return compiled;
}

// RE2's reason and where in the pattern it arose (1-based character), e.g.
// "not valid RE2 syntax: missing closing ) at character 4 (`(bar`)".
function syntaxProblem(pattern: string, error: unknown): string {
  const { error: reason, input } = (error ?? {}) as { error?: unknown; input?: unknown };
  if (typeof reason !== "string") return "the pattern is not valid RE2 syntax";
  const fragment = typeof input === "string" ? input : "";
  const at = fragment === "" ? -1 : pattern.indexOf(fragment);
  const shown = fragment.length > 80 ? `${fragment.slice(0, 80)}…` : fragment;
  return `the pattern is not valid RE2 syntax: ${reason}` +
    (at === -1 ? "" : ` at character ${[...pattern.slice(0, at)].length + 1} (\`${shown}\`)`);
}

/**
 * The glob filter of `rg -g`: later globs win, `!` excludes, `/` anchors;
 * with any include glob, a path matching none is out.
 */
export function globFilter(globs: readonly string[]): (path: string) => boolean {
  if (globs.length === 0) return () => true;
  const rules = globs.map((raw) => {
    if (raw.length === 0 || raw === "!") {
      throw new SourcegraphError("INVALID_GLOB", "a glob must not be empty");
    }
    const exclude = raw.startsWith("!");
    let glob = exclude ? raw.slice(1) : raw;
    const anchored = glob.startsWith("/") || glob.slice(0, -1).includes("/");
    if (glob.startsWith("/")) glob = glob.slice(1);
    let match: (path: string) => boolean;
    try {
      const matcher = picomatch(glob, { dot: true, basename: !anchored });
      match = (path: string) => matcher(path) || matcher(path.split("/").slice(0, -1).join("/"));
    } catch {
      throw new SourcegraphError("INVALID_GLOB", "the glob is not valid");
    }
    return { exclude, match };
  });
  const hasInclude = rules.some((rule) => !rule.exclude);
  return (path) => {
    let verdict = !hasInclude;
    for (const rule of rules) if (rule.match(path)) verdict = !rule.exclude;
    return verdict;
  };
}
