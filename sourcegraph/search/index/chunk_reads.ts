/**
 * Reading chunk texts from an index database, shared by the query side
 * (`index_reader.ts`) and the scanning workers (`scan/`): `CHUNK_BATCH` ids
 * a statement, as one range of ids when they lie close together (chunks are
 * numbered as files are first indexed, so neighbouring files' chunks mostly
 * are too) and as a list otherwise.
 *
 * @module
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";

/**
 * Most chunks read in one statement. A read of one chunk by its id cost about
 * 16 µs in node:sqlite's call, most of a scan of the Git source tree's 14,445
 * chunks (230 ms of 410); in statements of 64 the same reads took 95 to
 * 135 ms (2-core Intel Xeon VM).
 */
export const CHUNK_BATCH = 64;

/**
 * Index connections a scanning worker keeps open, those it read last: each
 * holds a page cache, so more would grow with the repositories searched.
 */
export const SCAN_OPEN_INDEXES = 4;

// Deno's node:sqlite has `setReturnArrays`; the Node types it ships do not name it yet.
type ArrayStatement = StatementSync & { setReturnArrays(enabled: boolean): void };

/** The prepared statements chunk reads use on one database connection. */
export class ChunkReads {
  #range: StatementSync;
  #list: StatementSync;

  constructor(db: DatabaseSync) {
    // SQLite turns the stored UTF-8 into a string itself: reading all 322 MiB
    // of chunks that way took 313–361 ms against 595–752 ms for bytes then a
    // `TextDecoder`, and leaves no byte array per chunk for the collector.
    this.#range = rowsAsArrays(
      db.prepare("SELECT id, CAST(text AS TEXT) AS text FROM chunks WHERE id BETWEEN ? AND ?"),
    );
    this.#list = rowsAsArrays(
      db.prepare(
        `SELECT id, CAST(text AS TEXT) AS text FROM chunks WHERE id IN (${
          Array(CHUNK_BATCH).fill("?").join(",")
        })`,
      ),
    );
  }

  /**
   * The texts of the chunks `ids`, by id; a chunk that is gone (its commit
   * was pruned meanwhile) is absent.
   */
  texts(ids: readonly number[]): Map<number, string> {
    const texts = new Map<number, string>();
    const batch = new Array<number>(CHUNK_BATCH);
    for (let start = 0; start < ids.length; start += CHUNK_BATCH) {
      const end = Math.min(ids.length, start + CHUNK_BATCH);
      let low = Infinity;
      let high = -Infinity;
      for (let i = start; i < end; i++) {
        low = Math.min(low, ids[i]);
        high = Math.max(high, ids[i]);
      }
      if (high - low < 2 * (end - start)) {
        // One range, at most twice the rows asked for, reads faster than a list; its rows
        // between the ids asked for are left out.
        const rows = this.#range.all(low, high) as unknown as [number, string][];
        const wanted = new Set<number>();
        for (let i = start; i < end; i++) wanted.add(ids[i]);
        for (const [id, text] of rows) if (wanted.has(id)) texts.set(id, text);
      } else {
        // Unused places hold -1, which no chunk has; every row is one asked for.
        for (let i = 0; i < CHUNK_BATCH; i++) batch[i] = start + i < end ? ids[start + i] : -1;
        const rows = this.#list.all(...batch) as unknown as [number, string][];
        for (let i = 0; i < rows.length; i++) texts.set(rows[i][0], rows[i][1]);
      }
    }
    return texts;
  }
}

// Rows as [id, text] arrays: node:sqlite makes an object per row otherwise.
// The common literal's 1,328 chunks of the deno tree (4.8 M characters) read
// in 3.3 processor-ms p50 instead of 3.9 (2-core AMD EPYC VM, load about 9).
function rowsAsArrays(statement: StatementSync): StatementSync {
  (statement as ArrayStatement).setReturnArrays(true);
  return statement;
}
