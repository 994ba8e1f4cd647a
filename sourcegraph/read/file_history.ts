/**
 * One page of a history at a commit: of the commit itself, of a folder, of a
 * file followed across renames, or of a line range of a file, limited to
 * what the path groups show. Under path groups a history without a path is
 * the history of the groups' folders, a folder's is narrowed to the groups
 * under it, and a followed file or range stops where the file came from a
 * path outside them (that commit and the older ones are not listed, and its
 * former path is never named), so no commit list, path or count tells of a
 * hidden file.
 *
 * @module
 */

import type { PathScope } from "../access/path_scope.ts";
import { type HistoryCommit, type HistoryTarget, pathHistory } from "../git/path_history.ts";
import type { MirrorObjects } from "../git/mirror_objects.ts";
import type { GitAnswerCache } from "../git/answer_cache.ts";
import { SourcegraphError } from "../errors.ts";
import { type LineRange, readFile } from "./file_read.ts";

/** Most commits of one page. */
export const HISTORY_MAX_FIRST = 100;
/** Commits of one page by default. */
export const HISTORY_DEFAULT_FIRST = 20;

/** Where a page of a history starts: the commits before it, from `commit`. */
export interface HistoryPosition {
  commit: string;
  skip: number;
}

/** One page of a history. */
export interface FileHistory {
  commit: string;
  /** The path asked for, or null for the commit's whole history. */
  path: string | null;
  /** The line range followed, or null. */
  lines: LineRange | null;
  /** Folders the history was narrowed to by the path groups, else null. */
  scope: string[] | null;
  /** Commits listed before this page. */
  skip: number;
  commits: HistoryCommit[];
  /** Whether older commits remain after `commits`. */
  hasMore: boolean;
}

/**
 * The page of `first` commits after `skip` of the history of `path` (null:
 * the whole commit) at `commit`, optionally of `range` of a file; the path
 * has been checked against `scope` (a folder leads into it at least).
 */
export async function fileHistory(
  objects: MirrorObjects,
  request: {
    commit: string;
    path: string | null;
    range: LineRange | null;
    scope: PathScope;
    skip: number;
    first: number;
    /** Keeps Git's answers (a repeated page runs no Git). */
    cache?: GitAnswerCache;
  },
): Promise<FileHistory> {
  const { commit, path, scope, skip, first } = request;
  const target = await historyTarget(objects, request);
  const page = {
    commit,
    path,
    lines: target.kind === "lines" ? { start: target.start, end: target.end } : null,
    scope: target.kind === "folders" && !scope.full ? [...target.paths] : null,
    skip,
  };
  // A followed history is listed from its start: Git's `--skip` does not
  // combine with `--follow`, and under path groups a cursor must not skip
  // past the commit where the file left them.
  const follows = target.kind === "file" || target.kind === "lines";
  const listed = await pathHistory(objects.path, {
    commit,
    target,
    skip: follows ? 0 : skip,
    count: (follows ? skip : 0) + first + 1,
    cache: request.cache,
  });
  const hidden = follows && !scope.full
    ? listed.findIndex((entry) => entry.path !== null && !scope.covers(entry.path))
    : -1;
  const visible = (hidden === -1 ? listed : listed.slice(0, hidden)).slice(follows ? skip : 0);
  return { ...page, commits: visible.slice(0, first), hasMore: visible.length > first };
}

// What `path` names at `commit`: nothing (the commit), a folder (narrowed to
// the groups), a file, or lines of a file (checked as a read checks them).
async function historyTarget(
  objects: MirrorObjects,
  request: { commit: string; path: string | null; range: LineRange | null; scope: PathScope },
): Promise<HistoryTarget> {
  const { commit, path, range, scope } = request;
  if (path === null) {
    return scope.full ? { kind: "commit" } : { kind: "folders", paths: scope.roots };
  }
  // Any path outside the groups fails alike before anything is looked up.
  if (!scope.leadsInto(path)) scope.require(path);
  const entry = await objects.lookup(commit, path);
  if (range === null && entry?.kind === "directory") {
    return { kind: "folders", paths: scope.scope([path]) };
  }
  scope.require(path);
  if (range === null && entry !== null) return { kind: "file", path };
  if (entry?.kind === "symlink" || entry?.kind === "submodule") {
    throw new SourcegraphError("NOT_A_FILE", `the path is a ${entry.kind}`, {
      hint: "Ask the history of the file it leads to.",
    });
  }
  // Missing, or lines: a read of the same range answers the errors a read does.
  const { file } = await readFile(objects, { commit, path, range: range ?? { start: 1, end: 1 } });
  if (range === null) return { kind: "file", path };
  return { kind: "lines", path, start: file.returnedStartLine, end: file.returnedEndLine };
}
