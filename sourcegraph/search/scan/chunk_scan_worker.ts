/**
 * A scanning worker: reads a batch of chunks from an index database file
 * (its own read-only connection) and finds the lines worth
 * checking with the search's line finder, so that reading and finding run
 * on another core; the service's thread then only checks those lines with
 * RE2. One job at a time: `{ id, database, chunks, finder }` in,
 * `{ id, answer }` out (per chunk, its candidate lines numbered from 1
 * within the chunk; null when the database cannot be read). A worker keeps its connections to the
 * `SCAN_OPEN_INDEXES` indexes it read last (each has a page cache).
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { DatabaseSync } from "node:sqlite";
import { ChunkReads, SCAN_OPEN_INDEXES } from "../index/chunk_reads.ts";
import { type LineFinder, linesToVerify } from "../query/line_candidates.ts";
import { RecentMap } from "../../../shared/recent_map.ts";
import type { WORKER_READY, WorkerAnswer } from "../../workers/worker_jobs.ts";

/** A line finder as it crosses to a worker (a `RegExp` by its source and flags). */
export type SentFinder = { literal: string } | { source: string; flags: string } | null;

/** A batch to scan. */
export interface ScanJob {
  database: string;
  chunks: number[];
  finder: SentFinder;
}

/** A scanned batch: per chunk id, its candidate lines ([number in the chunk, text]). */
export type ScanDone = [number, [number, string][]][];

const connections = new RecentMap<string, { db: DatabaseSync; reads: ChunkReads }>(
  SCAN_OPEN_INDEXES,
  { forgotten: (_, open) => open.db.close() },
);

function reads(database: string): ChunkReads {
  let open = connections.get(database);
  if (open === undefined) {
    const db = new DatabaseSync(database, { readOnly: true, timeout: 5_000 });
    open = { db, reads: new ChunkReads(db) };
    connections.set(database, open);
  }
  return open.reads;
}

function finderOf(sent: SentFinder): LineFinder {
  if (sent === null || "literal" in sent) return sent;
  return { pattern: new RegExp(sent.source, sent.flags) };
}

self.onmessage = (event: MessageEvent<ScanJob & { id: number }>) => {
  const { id, database, chunks } = event.data;
  let lines: ScanDone | null;
  try {
    const finder = finderOf(event.data.finder);
    const texts = reads(database).texts(chunks);
    lines = [];
    for (const chunk of chunks) {
      const text = texts.get(chunk);
      if (text !== undefined) lines.push([chunk, [...linesToVerify(text, finder)]]);
    }
  } catch {
    lines = null;
  }
  self.postMessage({ id, answer: lines } satisfies WorkerAnswer<ScanDone>);
};

// Loaded: the jobs' time starts now.
self.postMessage({ ready: true } satisfies typeof WORKER_READY);
