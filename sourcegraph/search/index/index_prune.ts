/**
 * Dropping what retention let go: commits no longer retained, then every
 * blob no remaining commit uses. Their numbers stay in posting lists until
 * the next segment merge drops them; until then they are harmless, because
 * candidates are only ever taken from an indexed commit's own files.
 *
 * @module
 */

import { decodeCommitFiles } from "./commit_files.ts";
import type { IndexDatabase } from "./index_database.ts";
import { mergeSegments } from "./segment_merge.ts";

/** Keeps only `retained` commits and the blobs they use; returns the dropped commits. */
export function pruneIndex(
  index: IndexDatabase,
  options: { retained: readonly string[] },
): string[] {
  const keep = new Set(options.retained);
  const dropped = index.commits().filter((commit) => !keep.has(commit));
  if (dropped.length === 0) return [];
  index.transaction(() => {
    const db = index.db;
    const remove = db.prepare("DELETE FROM commits WHERE commit_id = ?");
    for (const commit of dropped) remove.run(commit);
    const used = new Set<number>();
    const rows = db.prepare("SELECT paths, blob_ids FROM commits").iterate() as Iterable<{
      paths: Uint8Array;
      blob_ids: Uint8Array;
    }>;
    for (const row of rows) {
      for (const id of decodeCommitFiles({ paths: row.paths, blobIds: row.blob_ids }).blobs) {
        used.add(id);
      }
    }
    const removeBlob = db.prepare("DELETE FROM blobs WHERE id = ?");
    const removeText = db.prepare("DELETE FROM contents WHERE id = ?");
    const all = db.prepare("SELECT id FROM blobs").all() as { id: number }[];
    for (const { id } of all) {
      if (used.has(id)) continue;
      removeBlob.run(id);
      removeText.run(id);
    }
  });
  mergeSegments(index);
  return dropped;
}
