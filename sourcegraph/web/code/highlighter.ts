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
import type { HighlightDone, HighlightJob } from "./highlight_worker.ts";

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

type Waiting = { resolve: (html: string[] | null) => void; timer: ReturnType<typeof setTimeout> };

/** A worker-backed highlighter; `close` ends its worker. */
export class Highlighter implements CodeHighlighter {
  #worker: Worker | null = null;
  #waiting = new Map<number, Waiting>();
  #nextId = 1;
  #maxChars: number;
  #maxPending: number;
  #timeoutMs: number;
  #workerUrl: URL;
  #restarts = 0;
  #log: (line: string) => void;
  #broken = false;

  constructor(options: HighlighterOptions = {}) {
    this.#maxChars = options.maxChars ?? 3 * 1024 * 1024;
    this.#maxPending = options.maxPending ?? 16;
    this.#timeoutMs = options.timeoutMs ?? 2_000;
    this.#workerUrl = options.workerUrl ?? WORKER;
    this.#log = options.log ?? (() => {});
  }

  /** How many times a worker was ended for running too long. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Each of `texts` highlighted as `language`, or null (too large, too busy, too slow, failed). */
  highlight(texts: readonly string[], language: string): Promise<string[] | null> {
    let chars = 0;
    for (const text of texts) chars += text.length;
    if (this.#broken || chars > this.#maxChars || this.#waiting.size >= this.#maxPending) {
      return Promise.resolve(null);
    }
    const id = this.#nextId++;
    const worker = this.#started();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#end(true), this.#timeoutMs);
      this.#waiting.set(id, { resolve, timer });
      worker.postMessage({ id, language, texts: [...texts] } satisfies HighlightJob);
    });
  }

  /** Ends the worker; waiting jobs answer null. */
  close(): void {
    this.#end(false);
  }

  #started(): Worker {
    if (this.#worker !== null) return this.#worker;
    const worker = new Worker(this.#workerUrl, { type: "module" });
    worker.onmessage = (event: MessageEvent<HighlightDone>) => {
      const waiting = this.#waiting.get(event.data.id);
      if (waiting === undefined) return;
      this.#waiting.delete(event.data.id);
      clearTimeout(waiting.timer);
      waiting.resolve(event.data.html);
    };
    // A worker that fails (it catches highlighting's own errors, so this is a
    // failure to load, such as no read access to its modules): said once,
    // and pages stay plain from then on rather than start a worker per request.
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.#broken) return;
      this.#broken = true;
      this.#log(
        `highlighting is off: its worker failed (${event.message}); the service needs read access to ${
          HIGHLIGHT_WORKER_MODULES.join(", ")
        }`,
      );
      this.#end(false);
    };
    this.#worker = worker;
    return worker;
  }

  #end(timedOut: boolean): void {
    if (timedOut) this.#restarts++;
    this.#worker?.terminate();
    this.#worker = null;
    for (const waiting of this.#waiting.values()) {
      clearTimeout(waiting.timer);
      waiting.resolve(null);
    }
    this.#waiting.clear();
  }
}
