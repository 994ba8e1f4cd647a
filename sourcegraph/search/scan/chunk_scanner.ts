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
 * A search that finds its lines by a literal alone (every line the finder
 * gives matches) and reads `minCountChunks` or more hands its last files,
 * past about half of its chunks, to a worker that counts their lines while
 * the search reads the first ones: once the search's page is full, those
 * files' lines are only counted, and the worker's counts stand for them. A
 * search whose page is not full by then, or whose worker did not answer,
 * reads them itself.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import type { LineFinder } from "../query/line_candidates.ts";
import type { IndexFile } from "../index/index_reader.ts";
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

/**
 * Fewest chunks a search reads (its lines only counted past a full page) for
 * a worker to count its last files meanwhile: about 1.8 MiB of text, 1.8 ms of
 * reading and finding on the 2-core Intel Xeon VM; fewer gain less than the
 * job's round trip and the worker's share of the processor cost.
 */
export const COUNT_MIN_CHUNKS = 512;

/**
 * Text a worker reads through its connections' memory maps before it closes
 * them: mapped pages count in the service's resident memory until then, so
 * the workers add at most about this much each (and a job's reading).
 */
export const SCAN_MAPPED_BYTES = 8 * 1024 * 1024;

// The counting worker's young generation, in MiB (each chunk's text dies young).
const COUNT_YOUNG_MB = 8;

/**
 * The most heap a scanning worker may use, in MiB: a job holds its batch's
 * texts (256 chunks, of at most 4,096 characters each unless one line is
 * longer; a count holds about 64 at a time) and the lines found. A job that
 * needs more ends its worker, and the search reads that batch itself.
 */
export const SCAN_WORKER_HEAP_MB = 128;

/** A pool of scanning workers, and a worker of its own that counts lines; `close` ends them. */
export class ChunkScanner {
  #jobs: WorkerJobs<ScanJob, ScanDone>;
  // One worker counts: each one started keeps a heap of its own in the service's memory.
  #counting: WorkerJobs<ScanJob, ScanDone>;
  #mappedBytes: number;
  /** Fewest chunks a search reads through the workers. */
  readonly minChunks: number;
  /** Fewest chunks a search must read for a worker to count the lines of its last files. */
  readonly minCountChunks: number;

  constructor(
    options: {
      workers?: number;
      timeoutMs?: number;
      log?: (line: string) => void;
      /** The worker module (tests give ones that fail or never answer). */
      workerUrl?: URL;
      /** Fewest chunks a search reads through the workers (default `SCAN_MIN_CHUNKS`). */
      minChunks?: number;
      /** Fewest chunks for a worker to count a search's last files (`COUNT_MIN_CHUNKS`). */
      minCountChunks?: number;
      /** Text a worker reads through its maps before it closes them (`SCAN_MAPPED_BYTES`). */
      mappedBytes?: number;
    } = {},
  ) {
    this.#mappedBytes = options.mappedBytes ?? SCAN_MAPPED_BYTES;
    this.minChunks = options.minChunks ?? SCAN_MIN_CHUNKS;
    this.minCountChunks = options.minCountChunks ?? COUNT_MIN_CHUNKS;
    const log = options.log ?? (() => {});
    const pool = (workers: number, youngMb: number) =>
      new WorkerJobs<ScanJob, ScanDone>(options.workerUrl ?? WORKER, {
        workers,
        timeoutMs: options.timeoutMs ?? 10_000,
        heapMb: SCAN_WORKER_HEAP_MB,
        youngMb,
        failed: (message) =>
          log(
            `scanning workers are off: one failed (${message}); the service needs read access to ${
              SCAN_WORKER_MODULES.join(", ")
            }`,
          ),
      });
    this.#jobs = pool(options.workers ?? 2, 16);
    // A count keeps nothing but its numbers: a small young generation serves it.
    this.#counting = pool(1, COUNT_YOUNG_MB);
  }

  /** How many jobs workers answered (the rest were read on the search's thread). */
  get answered(): number {
    return this.#jobs.answered + this.#counting.answered;
  }

  /** Whether scans go to workers (false once one could not start). */
  get available(): boolean {
    return this.#jobs.available;
  }

  /** Whether counts go to a worker (false once one could not start). */
  get counting(): boolean {
    return this.#counting.available;
  }

  /** The candidate lines of `chunks` of the index `database`, found with `finder`. */
  async scan(database: IndexFile, chunks: number[], finder: LineFinder): Promise<ScannedLines> {
    const lines = await this.#jobs.run({
      database: database.path,
      opening: database.opening,
      chunks,
      finder: sent(finder),
      mappedBytes: this.#mappedBytes,
    });
    return lines === null ? null : new Map(lines as [number, [number, string][]][]);
  }

  /**
   * How many lines `finder` gives in each of `files` (each its chunks, in
   * order) of the index `database`, at most `limit` a file; null when no
   * worker could.
   */
  async count(
    database: IndexFile,
    options: { files: number[][]; finder: NonNullable<LineFinder>; limit: number },
  ): Promise<number[] | null> {
    const { files, finder, limit } = options;
    const job = {
      database: database.path,
      opening: database.opening,
      files,
      finder: sent(finder),
      limit,
      mappedBytes: this.#mappedBytes,
    };
    return await this.#counting.run(job) as
      | number[]
      | null;
  }

  /** Ends every worker; waiting batches are read on the search's thread. */
  close(): void {
    this.#jobs.close();
    this.#counting.close();
  }
}

function sent(finder: LineFinder): SentFinder {
  if (finder === null || "literal" in finder) return finder;
  return { source: finder.pattern.source, flags: finder.pattern.flags };
}
