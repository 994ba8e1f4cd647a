/**
 * Dropping what retention let go: commits no longer retained, then every
 * blob (with its symbols), chunk, path and symbol name no remaining commit
 * uses. Their
 * numbers stay in posting lists until the next segment merge drops them;
 * until then they are harmless, because candidates are only ever taken
 * from an indexed commit's own files, and numbers are never reused.
 *
 * @module
 */

import { decodeCommitFiles } from "../index/commit_files.ts";
import type { IndexDatabase } from "../index/index_database.ts";
import { unpackNumbers } from "../index/packed_numbers.ts";
import { mergePathSegments, mergeSegments } from "./segment_merge.ts";

/** Keeps only `retained` commits and the blobs and paths they use; returns the dropped commits. */
export function pruneIndex(
  index: IndexDatabase,
  options: { retained: readonly string[] },
): string[] {
  const keep = new Set(options.retained);
  const dropped = index.commits().filter((commit) => !keep.has(commit));
  if (dropped.length === 0) return [];
  let pathsDropped = false;
  index.transaction(() => {
    const db = index.db;
    for (const commit of dropped) {
      for (const table of ["commits", "commit_symbols_skipped"]) {
        db.prepare(`DELETE FROM ${table} WHERE commit_id = ?`).run(commit);
      }
    }
    const usedBlobs = new Set<number>();
    const usedPaths = new Set<number>();
    const rows = db.prepare("SELECT path_ids, blob_ids FROM commits").iterate() as Iterable<{
      path_ids: Uint8Array;
      blob_ids: Uint8Array;
    }>;
    for (const row of rows) {
      const files = decodeCommitFiles({ pathIds: row.path_ids, blobIds: row.blob_ids });
      for (const id of files.blobIds) usedBlobs.add(id);
      for (const id of files.pathIds) usedPaths.add(id);
    }
    const removeBlob = db.prepare("DELETE FROM blobs WHERE id = ?");
    const removeSymbols = db.prepare("DELETE FROM symbols WHERE blob = ?");
    const removeSkippedBlob = db.prepare("DELETE FROM symbols_skipped WHERE blob = ?");
    const usedChunks = new Set<number>();
    const blobs = db.prepare("SELECT id, chunk_ids FROM blobs").all() as {
      id: number;
      chunk_ids: Uint8Array;
    }[];
    for (const blob of blobs) {
      if (!usedBlobs.has(blob.id)) {
        removeBlob.run(blob.id);
        removeSymbols.run(blob.id);
        removeSkippedBlob.run(blob.id);
      } else for (const chunk of unpackNumbers(blob.chunk_ids)) usedChunks.add(chunk);
    }
    const removeChunk = db.prepare("DELETE FROM chunks WHERE id = ?");
    for (const { id } of db.prepare("SELECT id FROM chunks").all() as { id: number }[]) {
      if (!usedChunks.has(id)) removeChunk.run(id);
    }
    db.exec(
      "DELETE FROM symbol_names WHERE NOT EXISTS " +
        "(SELECT 1 FROM symbols WHERE symbols.name = symbol_names.id)",
    );
    const removePath = db.prepare("DELETE FROM paths WHERE id = ?");
    for (const { id } of db.prepare("SELECT id FROM paths").all() as { id: number }[]) {
      if (usedPaths.has(id)) continue;
      removePath.run(id);
      pathsDropped = true;
    }
  });
  mergeSegments(index);
  if (pathsDropped) mergePathSegments(index, { force: true });
  return dropped;
}
