/**
 * Highlighting for the pages, in a worker (`highlight_worker.ts`) so that a
 * long file never holds up the service's other requests. Bounded three
 * ways: a job over `maxChars` characters, or one arriving while `maxPending`
 * are waiting, is not highlighted; a job not answered within `timeoutMs`
 * ends the worker (and with it every waiting job, all shown plain), and the
 * next job starts a new one. A worker that cannot start is logged once and
 * highlighting stays off. Every refusal answers null: the page shows plain
 * text, never an error.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { WorkerJobs } from "../../workers/worker_jobs.ts";
import type { HighlightJob } from "./highlight_worker.ts";

/** What the pages highlight with. */
export interface CodeHighlighter {
  /** Each of `texts` highlighted as `language` (highlight.js HTML), or null: show them plain. */
  highlight(texts: readonly string[], language: string): Promise<string[] | null>;
}

/** How a highlighter is bounded. */
export interface HighlighterOptions {
  /** Most characters of one job (default 3 MiB worth). */
  maxChars?: number;
  /** Most jobs waiting at once (default 16). */
  maxPending?: number;
  /** How long a job may take before the worker is ended (default 2 s). */
  timeoutMs?: number;
  /** How long the worker may take to load (default 60 s). */
  startMs?: number;
  /** The worker module (tests give one that never answers). */
  workerUrl?: URL;
  /** Where a worker that fails is reported (once). */
  log?: (line: string) => void;
}

const WORKER = new URL("./highlight_worker.ts", import.meta.url);
/**
 * The local modules the worker loads: Deno starts a worker only with read
 * access to them (`deno task start` reads the whole checkout; a service
 * given less needs this folder).
 */
export const HIGHLIGHT_WORKER_MODULES: readonly string[] = [
  fileURLToPath(new URL("./", import.meta.url)),
];

/** A worker-backed highlighter; `close` ends its worker. */
export class Highlighter implements CodeHighlighter {
  #jobs: WorkerJobs<HighlightJob, string[]>;
  #maxChars: number;
  #maxPending: number;

  constructor(options: HighlighterOptions = {}) {
    this.#maxChars = options.maxChars ?? 3 * 1024 * 1024;
    this.#maxPending = options.maxPending ?? 16;
    const log = options.log ?? (() => {});
    // A worker that fails (it catches highlighting's own errors, so this is a
    // failure to load, such as no read access to its modules) is said once,
    // and pages stay plain from then on rather than start a worker per request.
    this.#jobs = new WorkerJobs(options.workerUrl ?? WORKER, {
      workers: 1,
      timeoutMs: options.timeoutMs ?? 2_000,
      startMs: options.startMs,
      failed: (message) =>
        log(
          `highlighting is off: its worker failed (${message}); the service needs read access to ${
            HIGHLIGHT_WORKER_MODULES.join(", ")
          }`,
        ),
    });
  }

  /** How many times a worker was ended for running too long. */
  get restarts(): number {
    return this.#jobs.timeouts;
  }

  /** Each of `texts` highlighted as `language`, or null (too large, too busy, too slow, failed). */
  highlight(texts: readonly string[], language: string): Promise<string[] | null> {
    let chars = 0;
    for (const text of texts) chars += text.length;
    if (chars > this.#maxChars || this.#jobs.waiting >= this.#maxPending) {
      return Promise.resolve(null);
    }
    return this.#jobs.run({ language, texts: [...texts] });
  }

  /** Ends the worker; waiting jobs answer null. */
  close(): void {
    this.#jobs.close();
  }
}
