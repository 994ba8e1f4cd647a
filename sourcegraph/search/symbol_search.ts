/**
 * Definitions by name at one indexed commit: names by exact match (the
 * default), prefix, or RE2 over names, then their definitions in the
 * commit's files, filtered by kind, language, folders and globs, and
 * ranked so the likeliest definition comes first: the exact name, then
 * types and functions before members and variables, then files outside
 * tests, then path and line. The order is total, so pages cut from it by
 * offset are stable at a pinned commit.
 *
 * @module
 */

import type { IndexedCommit } from "./index/index_reader.ts";
import type { NameMatch, PartialSymbols, SymbolDefinition } from "./index/commit_symbols.ts";
import { type CompiledSearch, compileSearch } from "./query/compiled_search.ts";
import { comparePaths } from "./query/path_order.ts";
import type { SymbolKind } from "../symbols/defined_symbol.ts";

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
}

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
  // Under path groups, only names defined inside them are selected and counted.
  const within = compiled.groups.length === 0
    ? undefined
    : index.symbols.namesDefinedIn({ roots: compiled.groups });
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
  };
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
