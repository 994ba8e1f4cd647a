/**
 * One indexed commit's files as stored: the paths, sorted, NUL-joined UTF-8,
 * and beside them the blob number of each (little-endian 32-bit).
 *
 * @module
 */

/** The files of one commit, sorted by path. */
export interface CommitFiles {
  paths: string[];
  blobs: Uint32Array;
}

/** The stored columns of `files` (already sorted by path). */
export function encodeCommitFiles(
  files: readonly { path: string; blob: number }[],
): { paths: Uint8Array; blobIds: Uint8Array } {
  const blobs = new Uint32Array(files.length);
  files.forEach((file, i) => (blobs[i] = file.blob));
  return {
    paths: new TextEncoder().encode(files.map((file) => file.path).join("\0")),
    blobIds: new Uint8Array(blobs.buffer),
  };
}

/** The files from their stored columns. */
export function decodeCommitFiles(
  columns: { paths: Uint8Array; blobIds: Uint8Array },
): CommitFiles {
  const text = new TextDecoder().decode(columns.paths);
  const bytes = columns.blobIds;
  const blobs = new Uint32Array(bytes.byteLength / 4);
  new Uint8Array(blobs.buffer).set(bytes);
  return { paths: text === "" ? [] : text.split("\0"), blobs };
}
