/**
 * A scanning worker (a worker thread, its heap capped by its pool): reads a
 * batch of chunks from an index database file (its own read-only
 * connection) and finds the lines worth checking with the search's line
 * finder, so that reading and finding run on another core; the service's
 * thread then only checks those lines with RE2. One job at a time: `{ id, database, chunks, finder }` in,
 * `{ id, answer }` out (per chunk, its candidate lines numbered from 1
 * within the chunk; null when the database cannot be read). A counting job
 * (`files`: each file's chunks) answers how many lines the finder gives in
 * each file, for files whose lines no page shows. A worker keeps its
 * connections to the `SCAN_OPEN_INDEXES` indexes it read last.
 *
 * The connections read through a memory map: SQLite's page cache (as Deno
 * builds it) is one cache behind one lock for every connection of the
 * process, so a worker reading chunks while the search's thread did took
 * each other's turns (half the common literal's chunks of the deno tree:
 * 1.0 ms alone, 1.5 and 1.9 ms at once; mapped, 0.9 and 1.0, 0.8 at once,
 * 2-core Intel Xeon VM). Mapped pages count in the process's resident
 * memory, so a worker closes its connections after reading a job's
 * `mappedBytes` through them.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { parentPort } from "node:worker_threads";
import { CHUNK_BATCH, ChunkReads, SCAN_OPEN_INDEXES } from "../index/chunk_reads.ts";
import { countCandidateLines, type LineFinder, linesToVerify } from "../query/line_candidates.ts";
import { RecentMap } from "../../../shared/recent_map.ts";
import type { WORKER_READY, WorkerAnswer } from "../../workers/worker_jobs.ts";

/** A line finder as it crosses to a worker (a `RegExp` by its source and flags). */
export type SentFinder = { literal: string } | { source: string; flags: string } | null;

/**
 * A batch to scan: its chunks' candidate lines, or (`files`) each file's
 * count of them; `mappedBytes` is the text the worker reads through its
 * connections' maps before it closes them.
 */
export type ScanJob =
  & { database: string; opening: number; finder: SentFinder; mappedBytes: number }
  & ({ chunks: number[] } | { files: number[][]; limit: number });

/**
 * A scanned batch: per chunk id, its candidate lines ([number in the chunk,
 * text]); for a counting job, each file's count (at most the job's `limit`).
 */
export type ScanDone = [number, [number, string][]][] | number[];

// Mapped at most (an index past it is read through the page cache beyond).
const MAP_LIMIT = 1024 * 1024 * 1024;

const connections = new RecentMap<string, { db: DatabaseSync; reads: ChunkReads }>(
  SCAN_OPEN_INDEXES,
  { forgotten: (_, open) => open.db.close() },
);
// Characters read through the open connections since they were opened.
let mapped = 0;

// A connection by the file's path and its opening in the service: a file removed and made again
// at the same path is another index (a connection to the old one reads the removed file).
function reads(job: ScanJob): ChunkReads {
  const key = `${job.opening}\0${job.database}`;
  let open = connections.get(key);
  if (open === undefined) {
    const db = new DatabaseSync(job.database, { readOnly: true, timeout: 5_000 });
    db.exec(`PRAGMA mmap_size = ${MAP_LIMIT}`);
    open = { db, reads: new ChunkReads(db) };
    connections.set(key, open);
  }
  return open.reads;
}

// The texts of `chunks`, counted toward the maps' budget.
function texts(job: ScanJob, chunks: number[]): Map<number, string> {
  const read = reads(job).texts(chunks);
  for (const text of read.values()) mapped += text.length;
  return read;
}

// Past the budget, every connection is closed (its map with it) after the job.
function unmapWhenOver(budget: number): void {
  if (mapped < budget) return;
  for (const key of [...connections.keys()]) connections.peek(key)!.db.close();
  connections.clear();
  mapped = 0;
}

function scanned(job: ScanJob, finder: LineFinder): ScanDone {
  if ("files" in job) {
    if (finder === null) throw new Error("a count needs a line finder");
    const counts: number[] = [];
    // Files read a batch of about CHUNK_BATCH chunks at a time: the texts held stay bounded.
    for (let first = 0; first < job.files.length;) {
      let end = first + 1;
      let chunks = job.files[first].length;
      while (end < job.files.length && chunks + job.files[end].length <= CHUNK_BATCH) {
        chunks += job.files[end++].length;
      }
      const read = texts(job, job.files.slice(first, end).flat());
      for (let f = first; f < end; f++) {
        let count = 0;
        for (const chunk of job.files[f]) {
          const text = read.get(chunk);
          if (text === undefined) continue;
          count += countCandidateLines(text, { finder, limit: job.limit - count });
          if (count >= job.limit) break;
        }
        counts.push(count);
      }
      first = end;
    }
    return counts;
  }
  const read = texts(job, job.chunks);
  const lines: [number, [number, string][]][] = [];
  for (const chunk of job.chunks) {
    const text = read.get(chunk);
    if (text !== undefined) lines.push([chunk, [...linesToVerify(text, finder)]]);
  }
  return lines;
}

function finderOf(sent: SentFinder): LineFinder {
  if (sent === null || "literal" in sent) return sent;
  return { pattern: new RegExp(sent.source, sent.flags) };
}

const port = parentPort!;

port.on("message", (job: ScanJob & { id: number }) => {
  let answer: ScanDone | null;
  try {
    answer = scanned(job, finderOf(job.finder));
  } catch {
    answer = null;
  }
  port.postMessage({ id: job.id, answer } satisfies WorkerAnswer<ScanDone>);
  unmapWhenOver(job.mappedBytes);
});

// Loaded: the jobs' time starts now.
port.postMessage({ ready: true } satisfies typeof WORKER_READY);
