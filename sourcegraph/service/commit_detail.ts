/**
 * One commit of a visible repository, for its page: found only when a
 * retained version the caller may see holds it (the commit or one of its
 * ancestors), and under path groups only when it changed a visible path;
 * its changed files (visible ones only) and their patches against the first
 * parent, within the page's budgets (`git/commit_diff.ts`). Any other SHA
 * answers as a missing commit, so nothing tells a hidden commit from one
 * that does not exist.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import { PathScope } from "../access/path_scope.ts";
import type { Visibility } from "../access/visibility.ts";
import { type CommitChange, commitChanges } from "../git/changed_paths.ts";
import {
  COMMIT_PAGE_BUDGETS,
  type CommitHeader,
  commitHeader,
  commitPatches,
  emptyTree,
  type FilePatch,
  isAncestor,
} from "../git/commit_diff.ts";
import type { MirrorReaders } from "../git/mirror_readers.ts";
import type { ControlStore } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";
import { GitError } from "../../shared/git.ts";

/** One commit of `repo` (a full SHA). */
export interface CommitRequest {
  repo: string;
  commit: string;
}

/** A changed file and its patch (null: not read, the page's budget or deadline came first). */
export interface CommitFile {
  path: string;
  status: CommitChange["status"];
  /** The path a renamed or copied file had at the base (null otherwise). */
  from: string | null;
  patch: FilePatch | null;
}

/** A commit as its page shows it. */
export interface CommitDetail {
  repo: string;
  header: CommitHeader;
  /** What the patches are against: the first parent, or null for a root commit. */
  base: string | null;
  /** The visible changed files, in path order (at most `COMMIT_MAX_FILES`). */
  files: CommitFile[];
  /** How many visible files changed (more than `files` holds when over the cap). */
  changedFiles: number;
  /** What stopped reading the patches before their end, if anything. */
  stopped: "page_budget" | "deadline" | null;
  /** The folders shown when path groups limit the repository, else null. */
  scope: string[] | null;
  /** The newest retained version holding the commit (and so its base). */
  version: string;
}

/** Most changed files one commit page lists. */
export const COMMIT_MAX_FILES = 1_000;
// Most retained versions looked through for the commit (newest first).
const VERSIONS_SEARCHED = 64;

const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

// A list of changed paths past Git's output cap or deadline: said, not an internal error.
function tooCostly(error: unknown): never {
  if (error instanceof GitError && ["GIT_TIMEOUT", "GIT_OUTPUT_LIMIT"].includes(error.code)) {
    throw new SourcegraphError("COMMIT_TOO_COSTLY", "this commit changes too many files to show", {
      hint: "Open the commits of a folder it changed, or its files' blame.",
    });
  }
  throw error;
}

function noSuchCommit(): SourcegraphError {
  return new SourcegraphError("NOT_FOUND", "no such commit in the retained versions", {
    hint: "Open a commit from a file's blame or history.",
  });
}

/** The commit `request` names, as the caller may see it. */
export async function commitDetail(
  store: ControlStore,
  at: { visibility: Visibility; mirrors: MirrorReaders; caller: Caller; request: CommitRequest },
): Promise<CommitDetail> {
  const { commit } = at.request;
  const repo = at.visibility.repository(at.caller, at.request.repo);
  if (repo.disabled) {
    throw new SourcegraphError("REPOSITORY_DISABLED", "the repository is disabled");
  }
  if (!FULL_SHA.test(commit)) throw noSuchCommit();
  const mirror = at.mirrors.path(repo);
  const version = await retainedHolder(mirror, { commit, versions: store.versions(repo.id) });
  if (version === null) throw noSuchCommit();
  const header = await commitHeader(mirror, commit);
  const base = header.parents[0] ?? null;
  const scope = new PathScope(repo);
  const pathspecs = scope.scope([]);
  const from = base ?? await emptyTree(mirror);
  const changed = (await commitChanges(mirror, { base: from, head: commit, pathspecs })
    .catch(tooCostly)).filter((change) => scope.covers(change.path));
  // A commit of hidden files only is no commit the caller can see.
  if (!scope.full && changed.length === 0) throw noSuchCommit();
  const listed = changed.slice(0, COMMIT_MAX_FILES);
  const read = await commitPatches(mirror, {
    base: from,
    head: commit,
    pathspecs,
    budgets: COMMIT_PAGE_BUDGETS,
    renames: true,
  });
  return {
    repo: repo.name,
    header,
    base,
    files: withPatches(listed, read.patches),
    changedFiles: changed.length,
    stopped: read.stopped,
    scope: scope.full ? null : scope.roots,
    version,
  };
}

/**
 * The newest retained version (of the newest 64 of `versions`) that is
 * `commit` or descends from it, or null: a commit such a version holds is one
 * its readers may see (its page, and its files at it).
 */
export async function retainedHolder(
  mirror: string,
  at: { commit: string; versions: readonly { commit: string }[] },
): Promise<string | null> {
  for (const { commit } of at.versions.slice(0, VERSIONS_SEARCHED)) {
    if (commit === at.commit || await isAncestor(mirror, { commit: at.commit, version: commit })) {
      return commit;
    }
  }
  return null;
}

// Git lists the patches in the order it lists the paths: one each, two for a
// type change (the old kind's removal, then the new one's addition).
function withPatches(
  changes: readonly CommitChange[],
  patches: readonly FilePatch[],
): CommitFile[] {
  let next = 0;
  return changes.map((change) => {
    const first = patches[next++] ?? null;
    if (change.status !== "type_changed" || first === null) return { ...change, patch: first };
    const second = patches[next++] ?? null;
    return { ...change, patch: second === null ? null : joined(first, second) };
  });
}

function joined(a: FilePatch, b: FilePatch): FilePatch {
  return {
    lines: a.lines === null || b.lines === null ? null : [...a.lines, ...b.lines],
    binary: a.binary || b.binary,
    omitted: a.omitted ?? b.omitted,
    added: a.added + b.added,
    removed: a.removed + b.removed,
  };
}
