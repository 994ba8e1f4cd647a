/**
 * Merging segments: each build batch adds one, and a query reads every
 * segment's list of a trigram, so small segments are merged once there are
 * more than `MAX_SEGMENTS`: all of them, except the largest when it holds
 * most of the index (then a small commit's build never rewrites it). A merge
 * drops the numbers of blobs no indexed commit uses any more. It runs in one
 * transaction, trigram range by trigram range, so memory stays bounded.
 *
 * @module
 */

import type { IndexDatabase } from "./index_database.ts";
import { decodePostings, encodePostings, union } from "./postings.ts";

/** Segments kept before small ones are merged. */
export const MAX_SEGMENTS = 4;
const RANGES = 64;

/** Merges segments when there are too many; returns whether it did. */
export function mergeSegments(index: IndexDatabase, options: { force?: boolean } = {}): boolean {
  const db = index.db;
  const segments = db.prepare("SELECT id, bytes FROM segments ORDER BY bytes DESC").all() as {
    id: number;
    bytes: number;
  }[];
  if (segments.length <= (options.force ? 1 : MAX_SEGMENTS)) return false;
  const total = segments.reduce((sum, segment) => sum + segment.bytes, 0);
  const merged = !options.force && segments[0].bytes * 2 > total ? segments.slice(1) : segments;
  if (merged.length < 2) return false;
  const ids = merged.map((segment) => segment.id);
  const alive = aliveBlobs(index);
  index.transaction(() => {
    const target = Number(
      db.prepare("INSERT INTO segments(bytes) VALUES (0)").run().lastInsertRowid,
    );
    const marks = ids.map(() => "?").join(",");
    const select = db.prepare(
      `SELECT trigram, count, ids FROM postings
      WHERE trigram >= ? AND trigram < ? AND segment IN (${marks}) ORDER BY trigram`,
    );
    const insert = db.prepare(
      "INSERT INTO postings(trigram, segment, count, ids) VALUES (?, ?, ?, ?)",
    );
    let bytes = 0;
    const step = (1 << 24) / RANGES;
    for (let low = 0; low < 1 << 24; low += step) {
      const rows = select.all(low, low + step, ...ids) as {
        trigram: number;
        count: number;
        ids: Uint8Array;
      }[];
      for (let i = 0; i < rows.length;) {
        const trigram = rows[i].trigram;
        let list: Uint32Array = new Uint32Array(0);
        for (; i < rows.length && rows[i].trigram === trigram; i++) {
          list = union(list, decodePostings(rows[i].ids, rows[i].count));
        }
        const kept = list.filter((id) => id < alive.length && alive[id] === 1);
        if (kept.length === 0) continue;
        const encoded = encodePostings(kept);
        insert.run(trigram, target, kept.length, encoded);
        bytes += encoded.length;
      }
    }
    db.prepare(`DELETE FROM postings WHERE segment IN (${marks})`).run(...ids);
    db.prepare(`DELETE FROM segments WHERE id IN (${marks})`).run(...ids);
    db.prepare("UPDATE segments SET bytes = ? WHERE id = ?").run(bytes, target);
  });
  return true;
}

// Which blob numbers some indexed commit uses (a byte per number).
function aliveBlobs(index: IndexDatabase): Uint8Array {
  const highest = (index.db.prepare("SELECT MAX(id) AS id FROM blobs").get() as {
    id: number | null;
  }).id ?? 0;
  const alive = new Uint8Array(highest + 1);
  for (
    const row of index.db.prepare("SELECT id FROM blobs").iterate() as Iterable<{ id: number }>
  ) {
    alive[row.id] = 1;
  }
  return alive;
}
