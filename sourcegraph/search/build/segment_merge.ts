/**
 * Merging segments: each build adds one segment of chunk postings and,
 * when it numbers new paths, one of path postings; a query reads every
 * segment's list of a trigram, so small segments are merged once there are
 * more than `MAX_SEGMENTS`: all of them except the chunk segments holding a
 * quarter of the index or more (a large first build, or one written in
 * several segments as it went, is never rewritten by a small commit's
 * build; a query reads at most four such and one of the rest). A merge
 * drops the numbers of chunks and paths no indexed commit uses any more. It
 * runs in one transaction, trigram range by trigram range, so memory stays
 * bounded.
 *
 * @module
 */

import { type IndexDatabase, POSTING_COLUMNS } from "../index/index_database.ts";
import { decodePostings, encodePostings, union } from "../index/postings.ts";
import { RowBatches } from "../index/row_batches.ts";

/** Segments kept before small ones are merged. */
export const MAX_SEGMENTS = 4;
const RANGES = 64;

/** Merges chunk segments when there are too many; returns whether it did. */
export function mergeSegments(index: IndexDatabase, options: { force?: boolean } = {}): boolean {
  const db = index.db;
  const segments = db.prepare("SELECT id, bytes FROM segments ORDER BY bytes DESC").all() as {
    id: number;
    bytes: number;
  }[];
  if (segments.length <= (options.force ? 1 : MAX_SEGMENTS)) return false;
  const total = segments.reduce((sum, segment) => sum + segment.bytes, 0);
  // Segments holding a quarter of the index or more (at most four) stay: a
  // small build never rewrites a large repository's postings.
  const merged = options.force ? segments : segments.filter((segment) => segment.bytes * 4 < total);
  return mergeChunkSegments(index, merged.map((segment) => segment.id));
}

// Merges the chunk segments `ids` into one; returns whether it did.
function mergeChunkSegments(index: IndexDatabase, ids: readonly number[]): boolean {
  if (ids.length < 2) return false;
  const db = index.db;
  const alive = aliveIds(index, "chunks");
  index.transaction(() => {
    const target = Number(
      db.prepare("INSERT INTO segments(bytes) VALUES (0)").run().lastInsertRowid,
    );
    const bytes = mergeLists(index, { table: "postings", segments: [...ids], target, alive });
    const marks = ids.map(() => "?").join(",");
    db.prepare(`DELETE FROM segments WHERE id IN (${marks})`).run(...ids);
    db.prepare("UPDATE segments SET bytes = ? WHERE id = ?").run(bytes, target);
  });
  return true;
}

/**
 * Merges every path segment into one when there are too many (or, with
 * `force`, whenever there are dead numbers to drop); returns whether it did.
 */
export function mergePathSegments(
  index: IndexDatabase,
  options: { force?: boolean } = {},
): boolean {
  const db = index.db;
  const segments = (db.prepare("SELECT DISTINCT segment FROM path_postings").all() as {
    segment: number;
  }[]).map((row) => row.segment);
  if (segments.length === 0 || (!options.force && segments.length <= MAX_SEGMENTS)) return false;
  const alive = aliveIds(index, "paths");
  index.transaction(() => {
    mergeLists(index, {
      table: "path_postings",
      segments,
      target: Math.min(...segments),
      alive,
    });
  });
  return true;
}

// Rewrites the lists of `segments` as one list per trigram in `target`,
// keeping only alive numbers; returns the bytes written.
function mergeLists(
  index: IndexDatabase,
  options: {
    table: "postings" | "path_postings";
    segments: number[];
    target: number;
    alive: Uint8Array;
  },
): number {
  const { table, segments, target, alive } = options;
  const db = index.db;
  const marks = segments.map(() => "?").join(",");
  const select = db.prepare(
    `SELECT trigram, count, ids FROM ${table}
    WHERE trigram >= ? AND trigram < ? AND segment IN (${marks}) ORDER BY trigram`,
  );
  const remove = db.prepare(
    `DELETE FROM ${table} WHERE trigram >= ? AND trigram < ? AND segment IN (${marks})`,
  );
  const insert = new RowBatches(db, { table, columns: POSTING_COLUMNS });
  let bytes = 0;
  const step = (1 << 24) / RANGES;
  for (let low = 0; low < 1 << 24; low += step) {
    const rows = select.all(low, low + step, ...segments) as {
      trigram: number;
      count: number;
      ids: Uint8Array;
    }[];
    remove.run(low, low + step, ...segments);
    for (let i = 0; i < rows.length;) {
      const trigram = rows[i].trigram;
      let list: Uint32Array = new Uint32Array(0);
      for (; i < rows.length && rows[i].trigram === trigram; i++) {
        list = union(list, decodePostings(rows[i].ids, rows[i].count));
      }
      const kept = list.filter((id) => id < alive.length && alive[id] === 1);
      if (kept.length === 0) continue;
      const encoded = encodePostings(kept);
      insert.add([trigram, target, kept.length, encoded]);
      bytes += encoded.length;
    }
    insert.flush();
  }
  return bytes;
}

// Which numbers of `table` exist (a byte per number).
function aliveIds(index: IndexDatabase, table: "chunks" | "paths"): Uint8Array {
  const highest = (index.db.prepare(`SELECT MAX(id) AS id FROM ${table}`).get() as {
    id: number | null;
  }).id ?? 0;
  const alive = new Uint8Array(highest + 1);
  for (
    const row of index.db.prepare(`SELECT id FROM ${table}`).iterate() as Iterable<{ id: number }>
  ) {
    alive[row.id] = 1;
  }
  return alive;
}
