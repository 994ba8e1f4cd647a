/**
 * One indexed commit's files as stored: the number of each path, in path
 * order, and beside it the number of the path's blob. Paths are numbered
 * once in the index for every version that has them, so a retained version
 * costs eight bytes per file.
 *
 * @module
 */

import { packNumbers, unpackNumbers } from "./packed_numbers.ts";

/** The files of one commit, in path order, by number. */
export interface CommitFiles {
  pathIds: Uint32Array;
  blobIds: Uint32Array;
}

/** The stored columns of `files`. */
export function encodeCommitFiles(
  files: CommitFiles,
): { pathIds: Uint8Array; blobIds: Uint8Array } {
  return { pathIds: packNumbers(files.pathIds), blobIds: packNumbers(files.blobIds) };
}

/** The files from their stored columns. */
export function decodeCommitFiles(
  columns: { pathIds: Uint8Array; blobIds: Uint8Array },
): CommitFiles {
  return { pathIds: unpackNumbers(columns.pathIds), blobIds: unpackNumbers(columns.blobIds) };
}
