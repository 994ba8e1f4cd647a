/**
 * The latest commit of each entry of a folder listing, checked as a listing
 * is (a visible repository, a retained version, a folder inside or on the
 * way to the path groups), counting only changes to visible paths, so no
 * subject or date tells of a hidden file. One `git log` walk per folder
 * page (`git/last_commits.ts`); the answers are kept per commit and folder
 * page in a cache bounded by the entries it holds.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { Caller } from "../access/caller.ts";
import { PathScope } from "../access/path_scope.ts";
import type { Visibility } from "../access/visibility.ts";
import { type LastCommit, lastCommits } from "../git/last_commits.ts";
import type { MirrorReaders } from "../git/mirror_readers.ts";
import { validatePath } from "../read/file_read.ts";

/** The entries of a folder page whose latest commits are asked. */
export interface FolderCommitsRequest {
  repo: string;
  revision?: string;
  /** The folder ("" or omitted: the top). */
  path?: string;
  /** Entry names of the folder (at most `FOLDER_COMMITS_MAX_NAMES` are looked up). */
  names: string[];
}

/** The latest commit of each entry found. */
export interface FolderCommits {
  commit: string;
  path: string;
  /** By entry name; an entry missing was not reached within the walk's bounds. */
  commits: Record<string, LastCommit>;
  /** What ended the walk early, if anything (some entries then have none). */
  cut: "deadline" | "commits" | null;
}

/** Most names of one request looked up. */
export const FOLDER_COMMITS_MAX_NAMES = 1_000;

/** Answers kept by commit and folder page, the oldest dropped past `maxEntries` entries in all. */
export class FolderCommitsCache {
  #answers = new Map<string, FolderCommits>();
  #entries = 0;
  /** Cache hits and walks, for tests and benchmarks. */
  readonly counts = { hits: 0, walks: 0 };

  /** A cache holding at most `maxEntries` entries' commits (default 50,000). */
  constructor(readonly maxEntries = 50_000) {}

  /** The answer kept for `key`, now the newest. */
  get(key: string): FolderCommits | undefined {
    const answer = this.#answers.get(key);
    if (answer === undefined) return undefined;
    this.#answers.delete(key);
    this.#answers.set(key, answer);
    this.counts.hits++;
    return answer;
  }

  /** Keeps `answer`, dropping the oldest past the bound. */
  set(key: string, answer: FolderCommits): void {
    const size = Object.keys(answer.commits).length + 1;
    if (size > this.maxEntries) return;
    this.#answers.set(key, answer);
    this.#entries += size;
    for (const [old, kept] of this.#answers) {
      if (this.#entries <= this.maxEntries) break;
      this.#answers.delete(old);
      this.#entries -= Object.keys(kept.commits).length + 1;
    }
  }
}

/** The latest commits of the entries `request` names, as the caller may see them. */
export async function folderCommits(
  at: {
    visibility: Visibility;
    mirrors: MirrorReaders;
    cache: FolderCommitsCache;
    caller: Caller;
    request: FolderCommitsRequest;
  },
): Promise<FolderCommits> {
  const path = at.request.path ?? "";
  if (path !== "") validatePath(path);
  const { repo, commit } = at.visibility.resolve(at.caller, at.request);
  const scope = new PathScope(repo);
  if (path !== "" && !scope.leadsInto(path)) scope.require(path);
  const prefix = path === "" ? "" : `${path}/`;
  const names = at.request.names
    .filter((name) => name !== "" && !name.includes("/") && scope.leadsInto(`${prefix}${name}`))
    .slice(0, FOLDER_COMMITS_MAX_NAMES);
  // Only visible paths count: the groups under the folder, or the folder inside one.
  const pathspecs = scope.full ? undefined : path === "" ? scope.roots : scope.scope([path]);
  // The names by their hash: a page of 1,000 long names would make a key of hundreds of KiB.
  const named = createHash("sha256").update(names.join("\0")).digest("hex");
  const key = [repo.id, commit, path, ...(pathspecs ?? []), "", named].join("\0");
  const kept = at.cache.get(key);
  if (kept !== undefined) return kept;
  at.cache.counts.walks++;
  const walked = await lastCommits(at.mirrors.path(repo), {
    commit,
    folder: path,
    names,
    pathspecs,
  });
  const answer = { commit, path, commits: Object.fromEntries(walked.found), cut: walked.cut };
  // A walk cut by its deadline depends on the machine's load: asked again, it may go further.
  if (walked.cut !== "deadline") at.cache.set(key, answer);
  return answer;
}
