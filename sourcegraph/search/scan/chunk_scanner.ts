/**
 * Scanning workers for searches that read many chunks (a pattern without a
 * literal reads every file): each batch of chunks is read, decoded and
 * searched for candidate lines in a worker (`chunk_scan_worker.ts`), a few
 * batches ahead of the search, which checks the lines in order with RE2, so
 * the order, the caps and the deadline are exactly those of a search that
 * reads on its own thread. A worker that fails or does not answer within
 * `timeoutMs` is ended, its batches are read on the search's thread, and
 * the next batch starts a new worker; one that cannot start at all is
 * logged once and scanning stays on the search's thread.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import type { LineFinder } from "../query/line_candidates.ts";
import { WorkerJobs } from "../../workers/worker_jobs.ts";
import type { ScanDone, ScanJob, SentFinder } from "./chunk_scan_worker.ts";

const WORKER = new URL("./chunk_scan_worker.ts", import.meta.url);

/**
 * The local modules the workers load (Deno starts a worker only with read
 * access to them; `deno task start` reads the whole checkout).
 */
export const SCAN_WORKER_MODULES: readonly string[] = [
  fileURLToPath(new URL("../", import.meta.url)),
  fileURLToPath(new URL("../../../shared/text.ts", import.meta.url)),
  fileURLToPath(new URL("../../../shared/recent_map.ts", import.meta.url)),
];

/** A batch's candidate lines by chunk id, or null: read it on the search's thread. */
export type ScannedLines = Map<number, [number, string][]> | null;

/**
 * Searches whose candidates hold at least this many chunks (and that have a
 * line finder) read them in workers. On the 2-core Intel Xeon VM that made a scan of every file 10 to
 * 20% faster (46 MiB: about 120 to about 100 ms; 106 MiB: about 320 to about
 * 270 ms) and takes the reading off the service's thread. Below it the
 * round trips cost more than they save: a common literal's 203 files (about
 * 500 chunks) took 23.7–26.5 ms p50 over HTTP through the workers, 15.3 ms
 * on the search's thread.
 */
export const SCAN_MIN_CHUNKS = 4096;

/** A pool of scanning workers; `close` ends them. */
export class ChunkScanner {
  #jobs: WorkerJobs<ScanJob, ScanDone>;
  /** Fewest chunks a search reads through the workers. */
  readonly minChunks: number;

  constructor(
    options: {
      workers?: number;
      timeoutMs?: number;
      log?: (line: string) => void;
      /** The worker module (tests give ones that fail or never answer). */
      workerUrl?: URL;
      /** Fewest chunks a search reads through the workers (default `SCAN_MIN_CHUNKS`). */
      minChunks?: number;
    } = {},
  ) {
    this.minChunks = options.minChunks ?? SCAN_MIN_CHUNKS;
    const log = options.log ?? (() => {});
    this.#jobs = new WorkerJobs(options.workerUrl ?? WORKER, {
      workers: options.workers ?? 2,
      timeoutMs: options.timeoutMs ?? 10_000,
      failed: (message) =>
        log(
          `scanning workers are off: one failed (${message}); the service needs read access to ${
            SCAN_WORKER_MODULES.join(", ")
          }`,
        ),
    });
  }

  /** How many batches workers answered (the rest were read on the search's thread). */
  get answered(): number {
    return this.#jobs.answered;
  }

  /** Whether scans go to workers (false once one could not start). */
  get available(): boolean {
    return this.#jobs.available;
  }

  /** The candidate lines of `chunks` of the index at `database`, found with `finder`. */
  async scan(database: string, chunks: number[], finder: LineFinder): Promise<ScannedLines> {
    const lines = await this.#jobs.run({ database, chunks, finder: sent(finder) });
    return lines === null ? null : new Map(lines);
  }

  /** Ends every worker; waiting batches are read on the search's thread. */
  close(): void {
    this.#jobs.close();
  }
}

function sent(finder: LineFinder): SentFinder {
  if (finder === null || "literal" in finder) return finder;
  return { source: finder.pattern.source, flags: finder.pattern.flags };
}
