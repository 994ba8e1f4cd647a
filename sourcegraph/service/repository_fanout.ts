/**
 * One search over several repositories: the pinned selection
 * (`repository_pins.ts`) searched a few at a time through the
 * single-repository search (so each answer is exactly what that search
 * gives), until the global caps or the deadline.
 *
 * The first page ranks the repositories: each is searched (those past the
 * caps only for their first file, which a ranked search puts first), and
 * they are ordered by that file's rank (a file defining the whole name, a
 * longer name holding it, named by it, named like it, then any match, then
 * none), ties in name order. The order is kept in the pins the cursor carries, so
 * later pages continue it.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import type { Visibility } from "../access/visibility.ts";
import { SEARCH_MAX_FILES, SEARCH_MAX_MATCHES, SEARCH_MAX_MS } from "../search/code_search.ts";
import type { SearchPosition } from "../search/query/compiled_search.ts";
import type { ControlStore } from "../store/control_store.ts";
import {
  pinRepositories,
  repinned,
  type RepositoryPin,
  type SkippedRepository,
} from "./repository_pins.ts";
import type { RepositorySearchRequest, SearchResult } from "./repository_reads.ts";

/** Repositories searched at the same time. */
export const FANOUT_CONCURRENCY = 4;
/** Most files one repository adds to a page (the rest come on the next pages). */
export const FANOUT_MAX_FILES_PER_REPOSITORY = 200;

/** Where the next page of a search across repositories starts. */
export interface FanoutPosition {
  pins: RepositoryPin[];
  /** The pin the next page starts in. */
  index: number;
  /** The last shown match in that repository (null: start it from its beginning). */
  position: SearchPosition | null;
}

/** A search across repositories, after schema validation. */
export interface FanoutSearchRequest extends Omit<RepositorySearchRequest, "repo" | "after"> {
  /** Exact names and name globs; null: every visible repository. */
  repos: string[] | null;
  after?: FanoutPosition;
}

/** What a search across repositories found. */
export interface FanoutSearchResult {
  pins: RepositoryPin[];
  /** The pin of `results[0]`. */
  firstIndex: number;
  /** Each searched repository's answer, in pin order (those with no match too). */
  results: SearchResult[];
  /** Repositories of the selection that could not be searched, and why. */
  skipped: SkippedRepository[];
  /** Pinned repositories the caps or the deadline left unsearched. */
  unsearched: string[];
  /** The time limit stopped it. */
  partial: boolean;
}

/**
 * How a call across repositories pays for its work: called with how many
 * repositories it is about to search, before it searches them; throws
 * (RATE_LIMITED) when the caller cannot pay, and the search stops there.
 */
export interface FanoutCharge {
  /** Pays for `repositories` more repositories searched (each counted once per call). */
  charge?: (repositories: number) => void;
}

/** Searches a repository at a pinned commit (the single-repository search). */
export type SearchOne = (caller: Caller, request: RepositorySearchRequest) => Promise<SearchResult>;

/** Searches across the repositories `visibility` lets a caller see. */
export class RepositoryFanout {
  #store: ControlStore;
  #visibility: Visibility;
  #searchOne: SearchOne;
  #now: () => number;

  /** Fan-out over `store`'s repositories through `searchOne`. */
  constructor(
    store: ControlStore,
    options: { visibility: Visibility; searchOne: SearchOne; now?: () => number },
  ) {
    this.#store = store;
    this.#visibility = options.visibility;
    this.#searchOne = options.searchOne;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * Searches the selected repositories (INVALID_REQUEST when a selection
   * names too many), paying `charge` for each repository before searching it.
   */
  async search(
    caller: Caller,
    request: FanoutSearchRequest,
    options: FanoutCharge = {},
  ): Promise<FanoutSearchResult> {
    const deadline = this.#now() + SEARCH_MAX_MS;
    const charged = new Set<string>();
    const pay = (pins: readonly RepositoryPin[]): void => {
      const fresh = pins.filter((pin) => !charged.has(pin.repo));
      if (fresh.length === 0) return;
      options.charge?.(fresh.length);
      for (const pin of fresh) charged.add(pin.repo);
    };
    const ask: AskOne = (pin, options) =>
      this.#searchOne(caller, {
        ...request,
        repo: pin.repo,
        revision: pin.commit,
        maxFiles: options.maxFiles,
        // What is left of the whole search's time: a window ends by the deadline too.
        maxMs: Math.max(0, deadline - this.#now()),
        after: options.after ? { ...options.after, commit: pin.commit } : undefined,
      });
    const run = { ask, pay, deadline, now: this.#now };
    if (request.after) {
      const pins = repinned(this.#store, caller, {
        visibility: this.#visibility,
        repos: request.repos,
        pins: request.after.pins,
      });
      const page = await searchPage(pins, { ...run, from: request.after, known: new Map() });
      return { pins, skipped: [], ...page };
    }
    const selected = pinRepositories(this.#store, caller, {
      visibility: this.#visibility,
      ...request,
    });
    const known = await survey(selected.pins, run);
    const pins = rankedPins(selected.pins, known);
    const page = await searchPage(pins, { ...run, from: { index: 0, position: null }, known });
    return { pins, skipped: selected.skipped, ...page };
  }
}

// One repository's search with the fan-out's request: its file cap and where it continues.
type AskOne = (
  pin: RepositoryPin,
  options: { maxFiles: number; after?: SearchPosition | null },
) => Promise<SearchResult>;

interface FanoutRun {
  ask: AskOne;
  // Pays for the repositories of a window before they are searched.
  pay: (pins: readonly RepositoryPin[]) => void;
  deadline: number;
  now: () => number;
}

// What the first page learned of a repository: its whole answer (as a page
// would search it) or only its first file.
interface Surveyed {
  result: SearchResult;
  whole: boolean;
}

// Searches every pin in name order, a window at a time: whole until the
// global caps are reached, then only for their first file; the deadline ends
// it.
async function survey(
  pins: readonly RepositoryPin[],
  run: FanoutRun,
): Promise<Map<string, Surveyed>> {
  const known = new Map<string, Surveyed>();
  let files = 0;
  let matches = 0;
  for (let next = 0; next < pins.length && run.now() <= run.deadline;) {
    const whole = files < SEARCH_MAX_FILES && matches < SEARCH_MAX_MATCHES;
    const window = pins.slice(next, next + FANOUT_CONCURRENCY);
    run.pay(window);
    const found = await Promise.all(
      window.map((pin) => run.ask(pin, { maxFiles: whole ? FANOUT_MAX_FILES_PER_REPOSITORY : 1 })),
    );
    for (const [i, result] of found.entries()) {
      known.set(window[i].repo, { result, whole });
      files += result.outcome.fileCount;
      matches += result.outcome.matchCount;
    }
    next += window.length;
  }
  return known;
}

// The rank of a repository from what the survey saw: the rank of its first
// file (a ranked search's best, 0 to 4; 4 for unranked matches), 5 for no
// match, 6 when the deadline came first (such repositories come last, as
// the ones a page names as not searched yet).
function repositoryRank(surveyed: Surveyed | undefined): number {
  if (surveyed === undefined) return 6;
  const { outcome } = surveyed.result;
  const first = outcome.files[0];
  if (first === undefined) return outcome.partial ? 6 : 5;
  return outcome.ranked ? first.rank ?? 2 * (first.tier ?? 2) : 4;
}

/** The pins by the rank of what the survey saw of each, ties in their own (name) order. */
export function rankedPins(
  pins: readonly RepositoryPin[],
  known: ReadonlyMap<string, { result: SearchResult }>,
): RepositoryPin[] {
  const rank = new Map(
    pins.map((pin) => [pin.repo, repositoryRank(known.get(pin.repo) as Surveyed | undefined)]),
  );
  return pins
    .map((pin, order) => ({ pin, order }))
    .sort((a, b) => rank.get(a.pin.repo)! - rank.get(b.pin.repo)! || a.order - b.order)
    .map(({ pin }) => pin);
}

// One page: the pins from `from` on, a window at a time (whole answers the
// survey already has are reused), until the global caps, a capped repository
// or the deadline.
async function searchPage(
  pins: readonly RepositoryPin[],
  run: FanoutRun & { from: Omit<FanoutPosition, "pins">; known: ReadonlyMap<string, Surveyed> },
): Promise<Omit<FanoutSearchResult, "pins" | "skipped">> {
  const firstIndex = run.from.index;
  const results: SearchResult[] = [];
  let files = 0;
  let matches = 0;
  let next = firstIndex;
  let partial = false;
  let capped = false;
  while (
    !capped && next < pins.length && files < SEARCH_MAX_FILES && matches < SEARCH_MAX_MATCHES
  ) {
    let window = pins.slice(next, next + FANOUT_CONCURRENCY);
    if (run.now() > run.deadline) {
      // Past the deadline, only answers the survey already has are shown.
      const known = window.findIndex((pin) => !run.known.get(pin.repo)?.whole);
      if (known === 0) {
        partial = true;
        break;
      }
      if (known > 0) window = window.slice(0, known);
    }
    run.pay(window.filter((pin) => !run.known.get(pin.repo)?.whole));
    const found = await Promise.all(window.map((pin, i) => {
      const surveyed = run.known.get(pin.repo);
      if (surveyed?.whole) return surveyed.result;
      const after = next + i === firstIndex ? run.from.position : null;
      return run.ask(pin, { maxFiles: FANOUT_MAX_FILES_PER_REPOSITORY, after });
    }));
    for (const result of found) {
      if (files >= SEARCH_MAX_FILES || matches >= SEARCH_MAX_MATCHES) break;
      results.push(result);
      files += result.outcome.fileCount;
      matches += result.outcome.matchCount;
      next++;
      if (result.outcome.partial) partial = true;
      // A capped repository ends the page: the next one continues inside it, in order.
      if (result.outcome.truncated) {
        capped = true;
        break;
      }
    }
  }
  return { firstIndex, results, unsearched: pins.slice(next).map((pin) => pin.repo), partial };
}
