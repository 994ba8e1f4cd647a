/**
 * One symbol lookup over several repositories: the pinned selection
 * (`repository_pins.ts`) looked up a few at a time through the
 * single-repository lookup (so each repository's definitions and their
 * order are exactly what it gives), merged by the same rank (the exact name,
 * then types and functions, then files outside tests), ties in repository
 * name order, and cut into pages by position. Repositories whose index is
 * not built yet are named as skipped; a deadline that stops the lookup names
 * the repositories it did not reach. First lines are read for the page shown
 * only (each repository's run of it looked up again, signed), and the names
 * a lookup may have meant only when no repository found anything.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import type { Visibility } from "../access/visibility.ts";
import { SEARCH_MAX_MS } from "../search/code_search.ts";
import {
  mergeMisses,
  type SignedDefinition,
  type SymbolMisses,
  type SymbolQuery,
  symbolRank,
} from "../search/symbol_search.ts";
import type { ControlStore } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";
import {
  cursorNotIssued,
  pinRepositories,
  repinned,
  type RepositoryPin,
  type SkippedRepository,
} from "./repository_pins.ts";
import { FANOUT_CONCURRENCY, type FanoutCharge } from "./repository_fanout.ts";
import { SYMBOLS_MAX_FIRST, type SymbolsPage, type SymbolsRequest } from "./repository_symbols.ts";

/** Most definitions one repository adds to a lookup across repositories (its best ranked). */
export const FANOUT_SYMBOLS_PER_REPOSITORY = SYMBOLS_MAX_FIRST;
/** Most definitions a lookup across repositories ranks and pages through. */
export const FANOUT_SYMBOLS_MAX = 10_000;

/** A symbol lookup across repositories, after schema validation. */
export interface FanoutSymbolsRequest extends SymbolQuery {
  /** Exact names and name globs; null: every visible repository. */
  repos: string[] | null;
  revision?: string;
  /** Definitions per page (default 20). */
  first?: number;
  /** Continue at this position of the list the first page's pins give. */
  after?: { pins: RepositoryPin[]; offset: number };
}

/** A definition and the repository and commit it is in. */
export interface RepositorySymbol {
  repo: string;
  commit: string;
  symbol: SignedDefinition;
}

/** One page of a lookup across repositories. */
export interface FanoutSymbolsPage {
  pins: RepositoryPin[];
  symbols: RepositorySymbol[];
  /** Definitions the lookup ranked (within its caps). */
  total: number;
  /** Position of the first definition of the next page, or null on the last page. */
  nextOffset: number | null;
  /** Repositories with more definitions than they added, or more than the lookup ranks. */
  truncated: boolean;
  /**
   * Repositories whose symbols at the pinned commit are only some of its
   * files' (the build's extraction time ran out).
   */
  partial: string[];
  /** Repositories of the selection that could not be looked up, and why. */
  skipped: SkippedRepository[];
  /** Pinned repositories the deadline left unsearched. */
  unsearched: string[];
  /** For a lookup that found nothing: what it may have meant, over the repositories searched. */
  misses: SymbolMisses | null;
}

/** Looks a symbol up in one repository at a pinned commit (the single-repository lookup). */
export type LookUpOne = (caller: Caller, request: SymbolsRequest) => Promise<SymbolsPage>;

/** Symbol lookups across the repositories `visibility` lets a caller see. */
export class SymbolFanout {
  #store: ControlStore;
  #visibility: Visibility;
  #lookUpOne: LookUpOne;
  #now: () => number;

  /** Lookups over `store`'s repositories through `lookUpOne`. */
  constructor(
    store: ControlStore,
    options: { visibility: Visibility; lookUpOne: LookUpOne; now?: () => number },
  ) {
    this.#store = store;
    this.#visibility = options.visibility;
    this.#lookUpOne = options.lookUpOne;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * One page of the definitions `request` selects across its repositories,
   * paying `charge` for each repository before looking it up.
   */
  async symbols(
    caller: Caller,
    request: FanoutSymbolsRequest,
    options: FanoutCharge = {},
  ): Promise<FanoutSymbolsPage> {
    const { after } = request;
    // No page starts at or past the cap: such an offset was never issued.
    if (after !== undefined && after.offset >= FANOUT_SYMBOLS_MAX) throw cursorNotIssued();
    const { pins, skipped } = after
      ? {
        pins: repinned(this.#store, caller, {
          visibility: this.#visibility,
          repos: request.repos,
          pins: after.pins,
        }),
        skipped: [],
      }
      : pinRepositories(this.#store, caller, { visibility: this.#visibility, ...request });
    const deadline = this.#now() + SEARCH_MAX_MS;
    const found: RepositorySymbol[][] = [];
    const searched: RepositoryPin[] = [];
    const partial: string[] = [];
    let truncated = false;
    let next = 0;
    while (next < pins.length && this.#now() <= deadline) {
      const window = pins.slice(next, next + FANOUT_CONCURRENCY);
      options.charge?.(window.length);
      const pages = await Promise.all(window.map((pin) => this.#lookUp(caller, request, pin)));
      for (const [i, page] of pages.entries()) {
        if ("code" in page) skipped.push(page);
        else {
          searched.push(window[i]);
          found.push(page.symbols.map((symbol) => ({ ...window[i], symbol })));
          if (page.truncated || page.nextOffset !== null) truncated = true;
          if (page.partial) partial.push(page.repo);
        }
      }
      next += window.length;
    }
    const ranked = merged(found, request.query);
    if (ranked.length > FANOUT_SYMBOLS_MAX) truncated = true;
    const all = ranked.slice(0, FANOUT_SYMBOLS_MAX);
    const offset = after?.offset ?? 0;
    // A continued page starts inside the list (a page ending at its end gives no cursor).
    if (offset > 0 && offset >= all.length) throw cursorNotIssued();
    const end = offset + (request.first ?? 20);
    return {
      pins,
      symbols: await this.#signed(caller, request, all.slice(offset, end)),
      total: all.length,
      nextOffset: end < all.length ? end : null,
      truncated,
      partial: partial.sort(),
      skipped: skipped.sort((a, b) => (a.repo < b.repo ? -1 : a.repo > b.repo ? 1 : 0)),
      unsearched: pins.slice(next).map((pin) => pin.repo),
      misses: all.length === 0 ? await this.#misses(caller, request, { searched, deadline }) : null,
    };
  }

  // A repository's best ranked definitions, or why it has none to give yet.
  async #lookUp(
    caller: Caller,
    request: FanoutSymbolsRequest,
    pin: RepositoryPin,
  ): Promise<SymbolsPage | SkippedRepository> {
    try {
      return await this.#lookUpOne(caller, {
        ...request,
        repo: pin.repo,
        revision: pin.commit,
        first: FANOUT_SYMBOLS_PER_REPOSITORY,
        after: undefined,
        // The first lines are read for the page shown only (`#signed`), and
        // what a lookup may have meant only when every repository found nothing (`#misses`).
        signatures: false,
        suggestions: false,
      });
    } catch (error) {
      if (error instanceof SourcegraphError && error.code === "INDEX_NOT_READY") {
        return { repo: pin.repo, code: error.code, message: error.message };
      }
      throw error;
    }
  }

  // What a lookup that found nothing in any repository may have meant: each
  // searched repository looked up again for it, within what is left of the
  // deadline (no charge: the lookup was paid for).
  async #misses(
    caller: Caller,
    request: FanoutSymbolsRequest,
    at: { searched: RepositoryPin[]; deadline: number },
  ): Promise<SymbolMisses> {
    const misses: SymbolMisses[] = [];
    for (
      let next = 0;
      next < at.searched.length && this.#now() <= at.deadline;
      next += FANOUT_CONCURRENCY
    ) {
      const window = at.searched.slice(next, next + FANOUT_CONCURRENCY);
      const pages = await Promise.all(window.map((pin) =>
        this.#lookUpOne(caller, {
          ...request,
          repo: pin.repo,
          revision: pin.commit,
          first: 1,
          after: undefined,
          signatures: false,
        }).catch((error) => {
          if (error instanceof SourcegraphError) return null;
          throw error;
        })
      ));
      for (const page of pages) if (page?.misses) misses.push(page.misses);
    }
    return mergeMisses(request.query, misses);
  }

  // The page's definitions with their first lines: each repository's part
  // of the page is a run of its own ranked list (the merge keeps its order),
  // looked up again as that page of it, so only the lines shown are read, by
  // the same lookup (visibility and path groups) as the definitions. A
  // repository that cannot answer now leaves its signatures null.
  async #signed(
    caller: Caller,
    request: FanoutSymbolsRequest,
    page: RepositorySymbol[],
  ): Promise<RepositorySymbol[]> {
    const runs = new Map<string, { commit: string; from: number; entries: RepositorySymbol[] }>();
    for (const entry of page) {
      const run = runs.get(entry.repo) ??
        { commit: entry.commit, from: positions.get(entry)!, entries: [] };
      run.entries.push(entry);
      runs.set(entry.repo, run);
    }
    const signatures = new Map<RepositorySymbol, string | null>();
    const work = [...runs].map(([repo, run]) => async () => {
      const found = await this.#lookUpOne(caller, {
        ...request,
        repo,
        revision: run.commit,
        first: run.entries.length,
        after: run.from === 0 ? undefined : { commit: run.commit, offset: run.from },
        suggestions: false,
      }).catch((error) => {
        if (error instanceof SourcegraphError) return null;
        throw error;
      });
      run.entries.forEach((entry, i) => {
        const again = found?.symbols[i];
        const same = again !== undefined && again.name === entry.symbol.name &&
          again.path === entry.symbol.path && again.startLine === entry.symbol.startLine;
        signatures.set(entry, same ? again.signature : null);
      });
    });
    for (let next = 0; next < work.length; next += FANOUT_CONCURRENCY) {
      await Promise.all(work.slice(next, next + FANOUT_CONCURRENCY).map((run) => run()));
    }
    return page.map((entry) => ({
      ...entry,
      symbol: { ...entry.symbol, signature: signatures.get(entry) ?? null },
    }));
  }
}

// Each definition's position in its repository's own ranked list.
const positions = new WeakMap<RepositorySymbol, number>();

// Every repository's definitions in one ranked list: by rank, then
// repository order, then each repository's own order (so one repository's
// definitions keep the order its own lookup gives).
function merged(found: RepositorySymbol[][], query: string): RepositorySymbol[] {
  const keyed = found.flatMap((symbols, repository) =>
    symbols.map((entry, position) => ({
      entry,
      rank: symbolRank(query, entry.symbol),
      repository,
      position,
    }))
  );
  keyed.sort((a, b) => a.rank - b.rank || a.repository - b.repository || a.position - b.position);
  for (const { entry, position } of keyed) positions.set(entry, position);
  return keyed.map(({ entry }) => entry);
}
