/**
 * Commit search in one visible repository: the commits of its monitored
 * branches' synced heads (or of one revision), limited to paths and the
 * path groups, that match messages, authors, dates and changes
 * (`search/commit_search.ts`), one page within a time budget. The log of a
 * set of heads is read once and kept (`CommitLogs`), so message and author
 * searches spawn no Git. A repository the caller may not see fails as a
 * missing one; a continued page's heads must still be retained versions.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import { folderPath, PathScope } from "../access/path_scope.ts";
import type { Visibility } from "../access/visibility.ts";
import { type CommitLogs, LOG_TIMEOUT_MS } from "../git/commit_log.ts";
import type { MirrorReaders } from "../git/mirror_readers.ts";
import { validatePath } from "../read/file_read.ts";
import {
  type CommitFilters,
  type CommitsPage,
  commitsPage,
  compileLineTest,
} from "../search/commit_search.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";
import { cursorNotIssued } from "./repository_pins.ts";

/** The time one commit search may take, across repositories. */
export const COMMITS_MAX_MS = 10_000;
/** Most commits of one page. */
export const COMMITS_MAX_FIRST = 100;
/** Commits of one page by default. */
export const COMMITS_DEFAULT_FIRST = 20;

/** What to look for, as the tool's arguments say it (patterns not yet compiled). */
export interface CommitQuery {
  revision?: string;
  message?: string;
  author?: string;
  addedOrRemoved?: string;
  changedRegex?: string;
  paths?: string[];
  /** Seconds since the epoch (committer time), inclusive. */
  since?: number;
  until?: number;
}

/** One page of a commit search in `repo`. */
export interface CommitsRequest extends CommitQuery {
  repo: string;
  first: number;
  /** Continue a walk: its heads and the position the previous page gave. */
  after?: { heads: string[]; index: number };
  /** Milliseconds this page may take. */
  budgetMs: number;
}

/** A head searched from: a monitored branch's, or the revision asked for. */
export interface SearchedHead {
  branch: string | null;
  commit: string;
}

/** One repository's page. */
export interface CommitsResult extends CommitsPage {
  repo: string;
  heads: SearchedHead[];
  /** The folders path groups narrowed the search to, else null. */
  scope: string[] | null;
  /** Where this page started in the walk. */
  from: number;
}

/** Commit searches of the repositories `visibility` lets a caller see. */
export class RepositoryCommits {
  #store: ControlStore;
  #visibility: Visibility;
  #mirrors: MirrorReaders;
  #logs: CommitLogs;
  #now: () => number;

  /** Searches through `mirrors` with the kept `logs`; `now` is the clock of the budgets. */
  constructor(
    store: ControlStore,
    parts: { visibility: Visibility; mirrors: MirrorReaders; logs: CommitLogs; now?: () => number },
  ) {
    this.#store = store;
    this.#visibility = parts.visibility;
    this.#mirrors = parts.mirrors;
    this.#logs = parts.logs;
    this.#now = parts.now ?? (() => performance.now());
  }

  /** One page of `request`. */
  async commits(caller: Caller, request: CommitsRequest): Promise<CommitsResult> {
    const deadline = this.#now() + Math.min(request.budgetMs, COMMITS_MAX_MS);
    const filters = compileFilters(request);
    const repo = this.#visibility.repository(caller, request.repo);
    const heads = request.after === undefined
      ? this.#heads(caller, request)
      : this.#pinned(caller, { repo: request.repo, heads: request.after.heads });
    const scope = new PathScope(repo);
    const requested = (request.paths ?? []).map(folderPath);
    const paths = scope.full ? requested : scope.scope(requested);
    const mirror = this.#mirrors.path(repo);
    const commits = heads.map((head) => head.commit);
    const from = request.after?.index ?? 0;
    const searched = { repo: repo.name, heads, scope: scope.full ? null : paths, from };
    const loaded = await this.#byDeadline(
      Promise.all([
        this.#logs.log(mirror, commits),
        paths.length === 0 ? null : this.#logs.pathCommits(mirror, {
          heads: commits,
          paths,
          // Past the page's deadline the listing goes on, kept for the next page.
          timeoutMs: LOG_TIMEOUT_MS,
        }),
      ]),
      deadline,
    );
    // Still reading the log at the deadline: nothing checked yet, the next page starts here.
    if (loaded === null) {
      return { ...searched, commits: [], positions: [], next: from, partial: true, unchecked: [] };
    }
    const [log, walk] = loaded;
    if (from > (walk?.length ?? log.commits.length)) throw cursorNotIssued();
    const page = await commitsPage(log, {
      mirror,
      walk,
      filters,
      paths,
      from,
      first: request.first,
      deadline,
      now: this.#now,
    });
    return { ...page, ...searched };
  }

  // `work`'s value, or null when the deadline comes first (the work goes on:
  // what it reads is kept for the next page, and its failure is that page's).
  async #byDeadline<T>(work: Promise<T>, deadline: number): Promise<T | null> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), Math.max(0, deadline - this.#now()));
    });
    work.catch(() => {});
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * After a sync of `repo`: its monitored branches' log is read now when
   * one of its logs is kept (it has been searched), so the next search
   * does not wait for it.
   */
  refresh(repo: RepositoryRecord): void {
    const synced = this.#store.heads(repo.id);
    const heads = repo.policy.branches.flatMap((branch) => synced.get(branch) ?? []);
    if (heads.length > 0) this.#logs.refresh(this.#mirrors.path(repo), [...new Set(heads)]);
  }

  // The heads searched: the revision asked for, or every monitored branch's synced head.
  #heads(caller: Caller, request: CommitsRequest): SearchedHead[] {
    if (request.revision !== undefined) {
      const resolved = this.#visibility.resolve(caller, request);
      return [{ branch: resolved.branch ?? null, commit: resolved.commit }];
    }
    const repo = this.#visibility.repository(caller, request.repo);
    const synced = this.#store.heads(repo.id);
    const heads: SearchedHead[] = [];
    for (const branch of [...repo.policy.branches].sort()) {
      if (!synced.has(branch)) continue;
      const { commit } = this.#visibility.resolve(caller, { repo: request.repo, revision: branch });
      if (!heads.some((head) => head.commit === commit)) heads.push({ branch, commit });
    }
    if (heads.length === 0) {
      throw new SourcegraphError("BRANCH_NOT_OBSERVED", "no monitored branch has been synced yet", {
        hint: "Wait for the first sync; `availability` shows it.",
      });
    }
    return heads;
  }

  // A cursor's heads, each still a retained version of the repository.
  #pinned(caller: Caller, request: { repo: string; heads: string[] }): SearchedHead[] {
    const synced = this.#store.heads(this.#visibility.repository(caller, request.repo).id);
    const branchOf = new Map([...synced].map(([branch, commit]) => [commit, branch]));
    return request.heads.map((commit) => {
      try {
        this.#visibility.resolve(caller, { repo: request.repo, revision: commit });
      } catch (error) {
        if (!(error instanceof SourcegraphError) || error.code !== "REVISION_NOT_ELIGIBLE") {
          throw error;
        }
        throw new SourcegraphError("INVALID_CURSOR", "the cursor's heads are no longer retained", {
          hint: "Versions age out as branches move: start again without after.",
        });
      }
      return { branch: branchOf.get(commit) ?? null, commit };
    });
  }
}

/** The filters of `query`, compiled, its paths checked (INVALID_PATTERN, INVALID_ARGUMENTS, INVALID_PATH). */
export function compileFilters(query: CommitQuery): CommitFilters {
  for (const path of query.paths ?? []) validatePath(folderPath(path));
  if (query.addedOrRemoved !== undefined && query.changedRegex !== undefined) {
    throw new SourcegraphError(
      "INVALID_ARGUMENTS",
      "added_or_removed and changed_regex cannot be combined",
      { hint: "Search with one of them, as git log takes one of -S and -G." },
    );
  }
  return {
    message: query.message === undefined ? null : compileLineTest(query.message),
    author: query.author === undefined ? null : compileLineTest(query.author),
    since: query.since ?? null,
    until: query.until ?? null,
    addedOrRemoved: query.addedOrRemoved ?? null,
    changed: query.changedRegex === undefined ? null : compileLineTest(query.changedRegex),
  };
}
