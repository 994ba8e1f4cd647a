/**
 * Where a search or symbol lookup runs: a visible repository at a resolved
 * commit (a continued page at its cursor's commit), with the caller's path
 * groups and its requested folders checked and scoped.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import { folderPath, PathScope } from "../access/path_scope.ts";
import type { Visibility } from "../access/visibility.ts";
import { validatePath } from "../read/file_read.ts";
import type { RepositoryRecord } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";

/** A lookup's repository, commit, path groups and folders (within the groups). */
export interface PinnedLookup {
  repo: RepositoryRecord;
  commit: string;
  scope: PathScope;
  /** The requested folders, validated and limited to the path groups. */
  paths: string[];
}

/**
 * Resolves `request` for `caller` (INVALID_CURSOR when a cursor of another
 * commit meets an explicit revision; INVALID_PATH, PATH_NOT_REGISTERED).
 */
export function pinnedLookup(
  visibility: Visibility,
  caller: Caller,
  request: { repo: string; revision?: string; after?: { commit: string }; paths?: string[] },
): PinnedLookup {
  const { after } = request;
  const { repo, commit } = visibility.resolve(caller, {
    repo: request.repo,
    revision: request.revision ?? after?.commit,
  });
  if (after !== undefined && after.commit !== commit) {
    throw new SourcegraphError("INVALID_CURSOR", "the cursor belongs to another commit", {
      hint: `Leave revision out to continue at the cursor's commit ${after.commit}.`,
    });
  }
  const scope = new PathScope(repo);
  const paths = (request.paths ?? []).map(folderPath);
  for (const path of paths) validatePath(path);
  return { repo, commit, scope, paths: scope.scope(paths) };
}
