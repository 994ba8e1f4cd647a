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
import type { ScanDone, ScanJob, SentFinder } from "./chunk_scan_worker.ts";

const WORKER = new URL("./chunk_scan_worker.ts", import.meta.url);

/**
 * The local modules the workers load (Deno starts a worker only with read
 * access to them; `deno task start` reads the whole checkout).
 */
export const SCAN_WORKER_MODULES: readonly string[] = [
  fileURLToPath(new URL("../", import.meta.url)),
  fileURLToPath(new URL("../../../shared/text.ts", import.meta.url)),
];

/** A batch's candidate lines by chunk id, or null: read it on the search's thread. */
export type ScannedLines = Map<number, [number, string][]> | null;

type Waiting = { resolve: (lines: ScannedLines) => void; timer: ReturnType<typeof setTimeout> };

/** A pool of scanning workers; `close` ends them. */
export class ChunkScanner {
  #workers: (Worker | null)[];
  #waiting = new Map<number, Waiting & { worker: number }>();
  #nextId = 1;
  #turn = 0;
  #timeoutMs: number;
  #log: (line: string) => void;
  #broken = false;
  #workerUrl: URL;
  #answered = 0;

  constructor(
    options: {
      workers?: number;
      timeoutMs?: number;
      log?: (line: string) => void;
      /** The worker module (tests give ones that fail or never answer). */
      workerUrl?: URL;
    } = {},
  ) {
    this.#workers = Array(Math.max(1, options.workers ?? 2)).fill(null);
    this.#workerUrl = options.workerUrl ?? WORKER;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#log = options.log ?? (() => {});
  }

  /** How many batches workers answered (the rest were read on the search's thread). */
  get answered(): number {
    return this.#answered;
  }

  /** Whether scans go to workers (false once one could not start). */
  get available(): boolean {
    return !this.#broken;
  }

  /** The candidate lines of `chunks` of the index at `database`, found with `finder`. */
  scan(database: string, chunks: number[], finder: LineFinder): Promise<ScannedLines> {
    if (this.#broken) return Promise.resolve(null);
    const slot = this.#turn++ % this.#workers.length;
    const worker = this.#started(slot);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#end(slot), this.#timeoutMs);
      this.#waiting.set(id, { resolve, timer, worker: slot });
      worker.postMessage({ id, database, chunks, finder: sent(finder) } satisfies ScanJob);
    });
  }

  /** Ends every worker; waiting batches are read on the search's thread. */
  close(): void {
    for (let slot = 0; slot < this.#workers.length; slot++) this.#end(slot);
  }

  #started(slot: number): Worker {
    const running = this.#workers[slot];
    if (running !== null) return running;
    const worker = new Worker(this.#workerUrl, { type: "module" });
    worker.onmessage = (event: MessageEvent<ScanDone>) => {
      const waiting = this.#waiting.get(event.data.id);
      if (waiting === undefined) return;
      this.#waiting.delete(event.data.id);
      clearTimeout(waiting.timer);
      if (event.data.lines !== null) this.#answered++;
      waiting.resolve(event.data.lines === null ? null : new Map(event.data.lines));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.#broken) return; // said once, when the first worker failed
      this.#broken = true;
      this.#log(
        `scanning workers are off: one failed (${event.message}); the service needs read access to ${
          SCAN_WORKER_MODULES.join(", ")
        }`,
      );
      this.close();
    };
    this.#workers[slot] = worker;
    return worker;
  }

  #end(slot: number): void {
    this.#workers[slot]?.terminate();
    this.#workers[slot] = null;
    for (const [id, waiting] of this.#waiting) {
      if (waiting.worker !== slot) continue;
      clearTimeout(waiting.timer);
      this.#waiting.delete(id);
      waiting.resolve(null);
    }
  }
}

function sent(finder: LineFinder): SentFinder {
  if (finder === null || "literal" in finder) return finder;
  return { source: finder.pattern.source, flags: finder.pattern.flags };
}
