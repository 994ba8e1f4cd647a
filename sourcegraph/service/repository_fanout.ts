/**
 * One search over several repositories: the pinned selection
 * (`repository_pins.ts`) searched in name order a few at a time through the
 * single-repository search (so each answer is exactly what that search
 * gives), until the global caps or the deadline.
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

  /** Searches the selected repositories (INVALID_REQUEST when a selection names too many). */
  async search(caller: Caller, request: FanoutSearchRequest): Promise<FanoutSearchResult> {
    const { pins, skipped } = request.after
      ? { pins: repinned(this.#visibility, caller, request.after.pins), skipped: [] }
      : pinRepositories(this.#store, caller, { visibility: this.#visibility, ...request });
    const firstIndex = request.after?.index ?? 0;
    const deadline = this.#now() + SEARCH_MAX_MS;
    const results: SearchResult[] = [];
    let files = 0;
    let matches = 0;
    let next = firstIndex;
    let partial = false;
    let capped = false;
    while (
      !capped && next < pins.length && files < SEARCH_MAX_FILES && matches < SEARCH_MAX_MATCHES
    ) {
      if (this.#now() > deadline) {
        partial = true;
        break;
      }
      const window = pins.slice(next, next + FANOUT_CONCURRENCY);
      const found = await Promise.all(window.map((pin, i) =>
        this.#searchOne(caller, {
          ...request,
          repo: pin.repo,
          revision: pin.commit,
          maxFiles: FANOUT_MAX_FILES_PER_REPOSITORY,
          // What is left of the whole search's time: a window ends by the deadline too.
          maxMs: Math.max(0, deadline - this.#now()),
          after: next + i === firstIndex && request.after?.position
            ? { ...request.after.position, commit: pin.commit }
            : undefined,
        })
      ));
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
    return {
      pins,
      firstIndex,
      results,
      skipped,
      unsearched: pins.slice(next).map((pin) => pin.repo),
      partial,
    };
  }
}
