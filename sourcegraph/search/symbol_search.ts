/**
 * Definitions by name at one indexed commit: names by exact match (the
 * default), prefix, or RE2 over names, then their definitions in the
 * commit's files, filtered by kind, language, folders and globs, and
 * ranked so the likeliest definition comes first: the exact name, then
 * types and functions before members and variables, then files outside
 * tests, then path and line. The order is total, so pages cut from it by
 * offset are stable at a pinned commit. A page's definitions get their first
 * lines from the index's text (`signDefinitions`); a lookup that found
 * nothing, the names it may have meant (`symbolMisses`).
 *
 * @module
 */

import type { IndexedCommit } from "./index/index_reader.ts";
import type { NameMatch, PartialSymbols, SymbolDefinition } from "./index/commit_symbols.ts";
import { type CompiledSearch, compileSearch } from "./query/compiled_search.ts";
import { comparePaths } from "./query/path_order.ts";
import type { SymbolKind } from "../symbols/defined_symbol.ts";
import { nearestNames } from "../../shared/nearest_names.ts";

/** How a query selects names. */
export type SymbolMatchMode = "exact" | "prefix" | "regex";

/** A symbol query, after schema validation. */
export interface SymbolQuery {
  query: string;
  match?: SymbolMatchMode;
  /** Exact and prefix: compare names ignoring case (through a scan of every name). */
  ignoreCase?: boolean;
  kinds?: readonly SymbolKind[];
  languages?: readonly string[];
  glob?: string[];
  /** Folders to look in (already within the caller's path groups). */
  paths?: string[];
  /** The folders path groups make visible (none: all): definitions elsewhere are never counted. */
  groups?: string[];
}

/** What a symbol query found, ranked. */
export interface SymbolOutcome {
  symbols: SymbolDefinition[];
  /** A cap stopped the lookup: more definitions may match. */
  truncated: boolean;
  /** The commit's symbols are only some of its files' (null: all of them). */
  partial: PartialSymbols | null;
  /** How many names the query selected (before kinds, languages, folders and globs). */
  names: number;
}

/**
 * What a lookup that found nothing may have meant, among the names defined
 * at the commit (inside the path groups only): each list at most
 * `SUGGESTIONS` names.
 */
export interface SymbolMisses {
  /** The query's names are defined, but kinds, languages, folders or globs left none. */
  filtered: boolean;
  /** Names the same lookup selects with `ignoreCase` (a lookup that does not ignore case). */
  ignoreCase: string[];
  /** Names starting with the query (an exact lookup; ignoring case when it does). */
  prefix: string[];
  /** Other names nearest to the query (an exact lookup). */
  nearest: string[];
}

/** Most names each list of `SymbolMisses` gives. */
export const SUGGESTIONS = 5;

/** A definition with the text of its first line. */
export interface SignedDefinition extends SymbolDefinition {
  /**
   * The definition's first line at the commit (`signatureLine`), so a
   * caller sees it without reading the file; null when the index has no
   * text of it.
   */
  signature: string | null;
}

/** Most characters (code points) of a signature before it is cut. */
export const SIGNATURE_MAX_CHARS = 200;
/** What ends a signature that was cut. */
export const SIGNATURE_CUT = "…";

/** Most names one query looks at. */
export const SYMBOL_MAX_NAMES = 5_000;
/** Most definitions one query collects before ranking. */
export const SYMBOL_MAX_DEFINITIONS = 10_000;

const KIND_RANK: Record<SymbolKind, number> = {
  class: 0,
  interface: 0,
  enum: 0,
  type: 1,
  module: 1,
  function: 2,
  method: 2,
  constant: 3,
  variable: 4,
  field: 4,
};

const TEST_PATH =
  /(^|\/)(tests?|spec|specs|__tests__|testdata|t)\/|([._-]test|_spec)\.[^/]+$|(^|\/)test_[^/]+$/i;

// The names defined under both the path groups and the paths asked for (undefined: no limit).
function definedWithin(
  index: IndexedCommit,
  compiled: CompiledSearch,
): ReadonlySet<number> | undefined {
  const inGroups = compiled.groups.length === 0
    ? undefined
    : index.symbols.namesDefinedIn({ roots: compiled.groups });
  if (compiled.paths.length === 0) return inGroups;
  const inPaths = index.symbols.namesDefinedIn({ roots: compiled.paths });
  if (inGroups === undefined) return inPaths;
  return new Set([...inPaths].filter((name) => inGroups.has(name)));
}

/** The name program and path filter of `query` (INVALID_PATTERN, INVALID_GLOB). */
export function compileSymbolQuery(query: SymbolQuery): CompiledSearch {
  return compileSearch({
    pattern: query.query,
    fixedStrings: (query.match ?? "exact") !== "regex",
    ignoreCase: query.ignoreCase,
    glob: query.glob,
    paths: query.paths,
    groups: query.groups,
  });
}

/**
 * Runs `query` on the symbols of `index` (INVALID_PATTERN, INVALID_GLOB),
 * with its compiled form when the caller has it already.
 */
export function searchSymbols(
  index: IndexedCommit,
  query: SymbolQuery,
  options: { compiled?: CompiledSearch } = {},
): SymbolOutcome {
  const compiled = options.compiled ?? compileSymbolQuery(query);
  // Under path groups, only names defined inside them are selected and counted; with paths,
  // only names defined under them (a broad pattern's first names would otherwise fill the cap
  // with names of other files, and a file's own names never be reached).
  const within = definedWithin(index, compiled);
  const names = index.symbols.names(nameMatch(query, compiled.regex), {
    limit: SYMBOL_MAX_NAMES + 1,
    within,
  });
  let truncated = names.length > SYMBOL_MAX_NAMES;
  // Only kept paths count toward the cap: definitions outside the path
  // groups, folders and globs must not use it up (nor tell of themselves by it).
  const found = index.symbols.definitions(names.slice(0, SYMBOL_MAX_NAMES), {
    limit: SYMBOL_MAX_DEFINITIONS + 1,
    keep: compiled.keep,
  });
  truncated ||= found.length > SYMBOL_MAX_DEFINITIONS;
  const kinds = query.kinds && query.kinds.length > 0 ? new Set(query.kinds) : null;
  const languages = query.languages && query.languages.length > 0 ? new Set(query.languages) : null;
  const symbols = found.slice(0, SYMBOL_MAX_DEFINITIONS).filter((symbol) =>
    (kinds === null || kinds.has(symbol.kind)) &&
    (languages === null || languages.has(symbol.language)) && compiled.keep(symbol.path)
  );
  return {
    symbols: symbols.sort(byRank(query.query)),
    truncated,
    // Under path groups, only the visible files' extraction counts (hidden files never tell of themselves).
    partial: compiled.groups.length === 0
      ? index.symbols.partial
      : index.symbols.partialIn({ roots: compiled.groups }),
    names: names.length,
  };
}

/**
 * What a lookup of `query` that found nothing (`outcome`) may have meant:
 * names that equal it or start with it ignoring case, and the nearest
 * names, from the index's name list (a few scans of it, each bounded by
 * `SUGGESTION_SCAN` names) and, under path groups, among the names defined
 * inside them only.
 */
export function symbolMisses(
  index: IndexedCommit,
  query: SymbolQuery,
  options: { compiled: CompiledSearch; outcome: SymbolOutcome },
): SymbolMisses {
  const none = { filtered: options.outcome.names > 0, ignoreCase: [], prefix: [], nearest: [] };
  const mode = query.match ?? "exact";
  if (mode === "regex" || (mode === "prefix" && query.ignoreCase)) return none;
  const groups = options.compiled.groups;
  const within = groups.length === 0 ? undefined : index.symbols.namesDefinedIn({ roots: groups });
  const lower = query.query.toLowerCase();
  const starting = index.symbols.namesStartingCaseless(lower, within).sort(byLengthThenName);
  if (mode === "prefix") {
    // Case-sensitively, none starts with it: those that do ignoring case.
    return { ...none, ignoreCase: starting.slice(0, SUGGESTIONS) };
  }
  const caseless = starting.filter((name) => name.toLowerCase() === lower && name !== query.query);
  const prefix = starting.filter((name) =>
    name.toLowerCase() !== lower && (query.ignoreCase || name.startsWith(query.query))
  );
  const shown = new Set([query.query, ...caseless, ...prefix.slice(0, SUGGESTIONS)]);
  const candidates = index.symbols.namesHoldingCaseless(pieces(lower), within)
    .filter((name) => !shown.has(name));
  return {
    ...none,
    ignoreCase: query.ignoreCase ? [] : caseless.slice(0, SUGGESTIONS),
    prefix: prefix.slice(0, SUGGESTIONS),
    nearest: nearestNames(query.query, candidates, {
      limit: SUGGESTIONS,
      maxDistance: Math.min(3, Math.max(1, Math.floor(lower.length / 3))),
    }),
  };
}

/**
 * The misses of several lookups of `query` (one per repository) as one:
 * each list the first names of all of them, by the order each list keeps.
 */
export function mergeMisses(query: string, misses: readonly SymbolMisses[]): SymbolMisses {
  const all = (list: (miss: SymbolMisses) => string[]) => [...new Set(misses.flatMap(list))];
  return {
    filtered: misses.some((miss) => miss.filtered),
    ignoreCase: all((miss) => miss.ignoreCase).sort(byLengthThenName).slice(0, SUGGESTIONS),
    prefix: all((miss) => miss.prefix).sort(byLengthThenName).slice(0, SUGGESTIONS),
    nearest: nearestNames(query, all((miss) => miss.nearest), { limit: SUGGESTIONS }),
  };
}

// Parts of a lower-case query one of which a name a few edits away still
// holds: its start, middle and end (4 characters each in a long query, 3 in
// a shorter one, the whole of a very short one).
function pieces(lower: string): string[] {
  const size = lower.length >= 8 ? 4 : 3;
  if (lower.length <= size) return [lower];
  const middle = Math.floor((lower.length - size) / 2);
  return [...new Set([0, middle, lower.length - size].map((at) => lower.slice(at, at + size)))];
}

function byLengthThenName(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * The definitions `symbols` of `index` with their first lines, read from the
 * index's text (one chunk per line, each chunk once).
 */
export function signDefinitions(
  index: IndexedCommit,
  symbols: readonly SymbolDefinition[],
): SignedDefinition[] {
  const lines = index.lineTexts(symbols.map((symbol) => ({
    path: symbol.path,
    line: symbol.startLine,
  })));
  return symbols.map((symbol, i) => {
    const line = lines[i];
    return { ...symbol, signature: line === null ? null : signatureLine(line) };
  });
}

/**
 * A definition's first line as an answer shows it: without leading and
 * trailing white space, and past `SIGNATURE_MAX_CHARS` code points cut
 * (never inside a character) and ended with `SIGNATURE_CUT`; null when
 * nothing is left.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * assert.strictEqual(signatureLine("  export function f(): void {\r"), "export function f(): void {");
 * assert.strictEqual(signatureLine("x".repeat(300)), "x".repeat(200) + "…");
 * ```
 */
export function signatureLine(line: string): string | null {
  const text = line.trim();
  if (text.length === 0) return null;
  let units = 0;
  for (let chars = 0; chars < SIGNATURE_MAX_CHARS && units < text.length; chars++) {
    const code = text.codePointAt(units)!;
    units += code > 0xffff ? 2 : 1;
  }
  return units >= text.length ? text : text.slice(0, units) + SIGNATURE_CUT;
}

function nameMatch(query: SymbolQuery, regex: { test(input: string): boolean }): NameMatch {
  const mode = query.match ?? "exact";
  if (mode === "regex") return { test: (name) => regex.test(name) };
  if (query.ignoreCase) {
    const wanted = query.query.toLowerCase();
    return mode === "exact"
      ? { test: (name) => name.toLowerCase() === wanted }
      : { test: (name) => name.toLowerCase().startsWith(wanted) };
  }
  return mode === "exact" ? { exact: query.query } : { prefix: query.query };
}

/**
 * How likely `symbol` is the definition `query` asks for (lower first): the
 * exact name, then types and functions before members and variables, then
 * files outside tests.
 */
export function symbolRank(query: string, symbol: SymbolDefinition): number {
  return (symbol.name === query ? 0 : 100) + KIND_RANK[symbol.kind] * 10 +
    (TEST_PATH.test(symbol.path) ? 5 : 0);
}

function byRank(query: string): (a: SymbolDefinition, b: SymbolDefinition) => number {
  const rank = (symbol: SymbolDefinition) => symbolRank(query, symbol);
  return (a, b) =>
    rank(a) - rank(b) || comparePaths(a.path, b.path) || a.startLine - b.startLine ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
