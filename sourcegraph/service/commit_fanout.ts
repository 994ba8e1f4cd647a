/**
 * A commit search over a selection of repositories (one name, names and
 * globs, or every visible one): the visible repositories in name order,
 * each searched through the routed `commits` call with what is left of
 * the page's commits and of its time, until the page is full, a repository
 * has more, or the time is up. Only visible repositories are selected, so
 * a private one is never searched, named or counted; an exact name the
 * caller cannot see fails as a missing one. A continued page starts in the
 * repository its cursor names, which must still be in the selection.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import type { Visibility } from "../access/visibility.ts";
import type { ControlStore } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";
import type { FanoutCharge } from "./repository_fanout.ts";
import {
  type CommitQuery,
  COMMITS_MAX_MS,
  type CommitsRequest,
  type CommitsResult,
  compileFilters,
} from "./repository_commits.ts";
import {
  cursorNotIssued,
  selectedRepositories,
  singleRepository,
  type SkippedRepository,
} from "./repository_pins.ts";

/** Where the next page of a commit search starts. */
export interface CommitsPosition {
  repo: string;
  /** The heads of its walk and the position in it (null: from its start). */
  walk: { heads: string[]; index: number } | null;
}

/** A commit search over a selection, after schema validation. */
export interface CommitSearchRequest extends CommitQuery {
  /** One name, names and globs, or null for every visible repository. */
  repos: string | string[] | null;
  first: number;
  after?: CommitsPosition;
}

/** A page across repositories. */
export interface CommitSearchPage {
  /** Each searched repository's page, in name order. */
  results: CommitsResult[];
  /** Selected repositories that could not be searched, and why. */
  skipped: SkippedRepository[];
  /** Where the next page starts, or null when every repository is done. */
  next: CommitsPosition | null;
  /** The time budget ended the page. */
  partial: boolean;
}

/** Searches one repository's page (the routed `commits`). */
export type CommitsOne = (caller: Caller, request: CommitsRequest) => Promise<CommitsResult>;

/** Commit searches across the repositories `visibility` lets a caller see. */
export class CommitFanout {
  #store: ControlStore;
  #visibility: Visibility;
  #one: CommitsOne;
  #now: () => number;

  /** Searches `store`'s repositories through `one`. */
  constructor(
    store: ControlStore,
    parts: { visibility: Visibility; one: CommitsOne; now?: () => number },
  ) {
    this.#store = store;
    this.#visibility = parts.visibility;
    this.#one = parts.one;
    this.#now = parts.now ?? (() => performance.now());
  }

  /** One page of `request`, paying `charge` for each repository of a selection before it. */
  async commits(
    caller: Caller,
    request: CommitSearchRequest,
    options: FanoutCharge = {},
  ): Promise<CommitSearchPage> {
    const deadline = this.#now() + COMMITS_MAX_MS;
    compileFilters(request); // a bad pattern or path fails once, before any repository
    const { repos: _repos, after, ...query } = request;
    const single = singleRepository(request.repos);
    const names = single !== null ? [this.#visibility.repository(caller, single).name] : (
      selectedRepositories(this.#store, caller, {
        visibility: this.#visibility,
        repos: request.repos === null ? null : [request.repos].flat(),
      })
    );
    const start = after === undefined ? 0 : names.indexOf(after.repo);
    if (start === -1) throw cursorNotIssued();
    const page: CommitSearchPage = { results: [], skipped: [], next: null, partial: false };
    let left = request.first;
    for (let i = start; i < names.length; i++) {
      const walk = i === start ? after?.walk ?? null : null;
      if (this.#now() > deadline) {
        page.next = { repo: names[i], walk };
        page.partial = true;
        break;
      }
      if (single === null) options.charge?.(1);
      const result = await this.#one(caller, {
        ...query,
        repo: names[i],
        first: left,
        after: walk ?? undefined,
        budgetMs: Math.max(1, deadline - this.#now()),
      }).catch((error) => {
        if (single !== null || !(error instanceof SourcegraphError) || cursorError(error)) {
          throw error;
        }
        page.skipped.push({ repo: names[i], code: error.code, message: error.message });
        return null;
      });
      if (result === null) continue;
      page.results.push(result);
      left -= result.commits.length;
      if (result.next !== null) {
        page.next = { repo: names[i], walk: { heads: walkHeads(result), index: result.next } };
        page.partial = result.partial;
        break;
      }
      if (left === 0 && i + 1 < names.length) {
        page.next = { repo: names[i + 1], walk: null };
        break;
      }
    }
    return page;
  }
}

/** The heads a result's walk started from (what its cursor pins). */
export function walkHeads(result: CommitsResult): string[] {
  return result.heads.map((head) => head.commit);
}

function cursorError(error: SourcegraphError): boolean {
  return error.code === "INVALID_CURSOR" || error.code === "RATE_LIMITED";
}
