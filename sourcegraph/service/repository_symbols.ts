/**
 * Symbol lookups of visible repositories at resolved commits: the commit's
 * symbol index (built with its search index), the caller's path groups
 * applied, and pages cut from the ranked list by position, continued at
 * the commit the first page pinned; a page's definitions with their first
 * lines, a lookup that found nothing with the names it may have meant.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import type { Visibility } from "../access/visibility.ts";
import type { SharedSearches } from "../search/shared_searches.ts";
import {
  compileSymbolQuery,
  searchSymbols,
  signDefinitions,
  type SignedDefinition,
  type SymbolMisses,
  symbolMisses,
  type SymbolQuery,
} from "../search/symbol_search.ts";
import type { PartialSymbols, SymbolDefinition } from "../search/index/commit_symbols.ts";
import { validatePath } from "../read/file_read.ts";
import { SourcegraphError } from "../errors.ts";
import { pinnedLookup } from "./pinned_lookup.ts";

/** Most definitions one page returns. */
export const SYMBOLS_MAX_FIRST = 500;

/** A symbol lookup in one repository. */
export interface SymbolsRequest extends SymbolQuery {
  repo: string;
  revision?: string;
  /** Definitions per page (default 20). */
  first?: number;
  /** Continue after the page that ended here (from the page's cursor). */
  after?: { commit: string; offset: number };
  /**
   * Whether the page's definitions carry their first lines (default true;
   * a lookup across repositories asks for them only for the page it shows).
   */
  signatures?: boolean;
  /** Whether a lookup that finds nothing says what it may have meant (default true). */
  suggestions?: boolean;
}

/** One page of a symbol lookup. */
export interface SymbolsPage {
  repo: string;
  commit: string;
  /** The page's definitions (signatures null when the request asked for none). */
  symbols: SignedDefinition[];
  /** Definitions the lookup found (within its caps). */
  total: number;
  /** Position of the first definition of the next page, or null on the last page. */
  nextOffset: number | null;
  /** A cap stopped the lookup: more definitions may match than `total`. */
  truncated: boolean;
  /**
   * The commit's index has the symbols of only some of its files (its
   * build's extraction time ran out); null when it has every file's.
   */
  partial: PartialSymbols | null;
  /** For a lookup that found nothing: what it may have meant (null otherwise). */
  misses: SymbolMisses | null;
}

/** Most definitions a file's outline lists. */
export const OUTLINE_MAX_SYMBOLS = 1_000;

/** The definitions of one file at one commit, from the symbol index. */
export interface FileOutline {
  commit: string;
  path: string;
  /**
   * In line order (at most `OUTLINE_MAX_SYMBOLS`); null when the index
   * cannot say: not built yet (`index` "not_ready"), or the file's symbols
   * were not extracted.
   */
  symbols: SymbolDefinition[] | null;
  index: "ready" | "not_ready";
  /** More definitions than are listed. */
  truncated: boolean;
}

/** Symbol lookups through the indexes `searches` reads. */
export class RepositorySymbols {
  #visibility: Visibility;
  #searches: SharedSearches;

  /** Lookups of the repositories `visibility` lets a caller see. */
  constructor(visibility: Visibility, options: { searches: SharedSearches }) {
    this.#visibility = visibility;
    this.#searches = options.searches;
  }

  /**
   * The outline of the file at `request.path`: its definitions in line
   * order. A path outside the caller's path groups fails as a missing file
   * (FILE_NOT_FOUND) does, and so does a path the commit does not hold.
   */
  // Async so that its refusals are rejections, as a forwarded call's are.
  // deno-lint-ignore require-await
  async outline(
    caller: Caller,
    request: { repo: string; revision?: string; path: string },
  ): Promise<FileOutline> {
    validatePath(request.path);
    const { repo, commit, scope } = pinnedLookup(this.#visibility, caller, request);
    const missing = () =>
      new SourcegraphError("FILE_NOT_FOUND", `no file ${request.path} at ${commit.slice(0, 12)}`);
    if (!scope.full && !scope.covers(request.path)) throw missing();
    const index = this.#searches.indexedCommit(repo, commit);
    const outline = { commit, path: request.path, truncated: false };
    if (index === null) return { ...outline, symbols: null, index: "not_ready" };
    if (!index.symbols.holds(request.path)) throw missing();
    const symbols = index.symbols.fileSymbols(request.path, { limit: OUTLINE_MAX_SYMBOLS + 1 });
    if (symbols === null) return { ...outline, symbols: null, index: "ready" };
    return {
      ...outline,
      symbols: symbols.slice(0, OUTLINE_MAX_SYMBOLS),
      index: "ready",
      truncated: symbols.length > OUTLINE_MAX_SYMBOLS,
    };
  }

  /** One page of the definitions `request` selects (INDEX_NOT_READY until the commit is indexed). */
  symbols(caller: Caller, request: SymbolsRequest): Promise<SymbolsPage> {
    const { after } = request;
    const { repo, commit, scope, paths } = pinnedLookup(this.#visibility, caller, request);
    const query = { ...request, paths, groups: scope.full ? [] : scope.roots };
    // Compiled before the index is asked for: a bad pattern or glob is the caller's to fix, indexed or not.
    const compiled = compileSymbolQuery(query);
    const index = this.#searches.indexedCommit(repo, commit);
    if (index === null) {
      throw new SourcegraphError(
        "INDEX_NOT_READY",
        `the symbol index of ${commit.slice(0, 12)} is not built yet`,
        {
          hint: 'Retry when `availability` shows this version "index": "ready"; ' +
            "`search` works meanwhile.",
        },
      );
    }
    const outcome = searchSymbols(index, query, { compiled });
    const visible = scope.full
      ? outcome.symbols
      : outcome.symbols.filter((symbol) => scope.covers(symbol.path));
    const offset = after?.offset ?? 0;
    // A continued page starts inside the list (a page ending at its end gives no cursor).
    if (offset > 0 && offset >= visible.length) {
      throw new SourcegraphError("INVALID_CURSOR", "the cursor is not one `symbols` returned", {
        hint: "Pass next_cursor exactly as the previous page gave it, with the same query, " +
          "or look up again without after.",
      });
    }
    const end = offset + (request.first ?? 20);
    const shown = visible.slice(offset, end);
    return Promise.resolve({
      repo: repo.name,
      commit,
      symbols: request.signatures === false
        ? shown.map((symbol) => ({ ...symbol, signature: null }))
        : signDefinitions(index, shown),
      total: visible.length,
      nextOffset: end < visible.length ? end : null,
      truncated: outcome.truncated,
      partial: outcome.partial,
      misses: visible.length === 0 && request.suggestions !== false
        ? symbolMisses(index, query, { compiled, outcome })
        : null,
    });
  }
}
