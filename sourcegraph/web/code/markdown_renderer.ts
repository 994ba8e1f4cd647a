/**
 * Markdown rendering for the pages, in a worker (`markdown_worker.ts`) so
 * that a document built to be slow to render (tables of thousands of cells,
 * runs of emphasis delimiters) never holds up the service's other requests.
 * Bounded every way a flood could push:
 *
 * - a document over `maxChars` characters is not rendered;
 * - one job runs at a time, in one worker whose V8 heap is capped at
 *   `heapMb`; a job not answered within `timeoutMs`, or one that runs out
 *   of heap, ends the worker (the next job starts a new one);
 * - at most `maxPending` documents wait; one arriving past that is not
 *   rendered (it is tried again on the next request);
 * - the same document asked for while it renders waits for that render;
 * - answers are kept in a cache of at most `cacheBytes`, least recently used
 *   first out: rendered HTML by blob, line and the commit its links are
 *   pinned to, and a blob that could not be rendered by blob and line alone,
 *   so reloading it, at any commit, never renders it again.
 *
 * A refusal is an answer, never an error: the page shows the source with a
 * one-line notice saying why. A worker that cannot start is logged once and
 * every document is shown as source from then on.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { WorkerJobs } from "../../workers/worker_jobs.ts";
import type { MarkdownJob } from "./markdown_worker.ts";

/** Why a document is shown as its source. */
export type MarkdownRefusal =
  /** Over the character limit. */
  | "TOO_LARGE"
  /** Rendering ran past the time limit. */
  | "TOO_SLOW"
  /** Rendering ran past the worker's heap limit. */
  | "TOO_MUCH_MEMORY"
  /** The renderer threw on it. */
  | "FAILED"
  /** Too many documents are waiting; a later request may render it. */
  | "BUSY"
  /** The worker could not start: nothing is rendered. */
  | "UNAVAILABLE";

/** A rendered document, or why it was not. */
export type RenderedMarkdown =
  | { html: string; refused: null }
  | { html: null; refused: MarkdownRefusal };

/** One page of a Markdown file, where its links point. */
export interface MarkdownDocument {
  /** The id of the blob the lines are from. */
  blob: string;
  /** The first line's number (a later page of a file is another document). */
  firstLine: number;
  /** The text. */
  source: string;
  /** The repository, commit and path the document's links are pinned to. */
  repo: string;
  commit: string;
  path: string;
}

/** What the pages render Markdown with. */
export interface DocumentRenderer {
  /** `document` rendered to HTML, or why it is shown as source. */
  render(document: MarkdownDocument): Promise<RenderedMarkdown>;
  /** One line saying why a refusal shows the source, for the page's notice. */
  describe(refused: MarkdownRefusal): string;
}

/** How the renderer is bounded. */
export interface MarkdownRendererOptions {
  /** Most characters of a document (default 1 MiB worth). */
  maxChars?: number;
  /** How long one document may take to render (default 2 s). */
  timeoutMs?: number;
  /** The most V8 heap the worker may use, in MiB (default 64). */
  heapMb?: number;
  /** Most documents waiting at once (default 4). */
  maxPending?: number;
  /** Most bytes of answers kept (default 32 MiB). */
  cacheBytes?: number;
  /** How long the worker may take to load (default 60 s). */
  startMs?: number;
  /** The worker module (tests give one that never answers). */
  workerUrl?: URL;
  /** Where a worker that fails is reported (once). */
  log?: (line: string) => void;
}

/** What the renderer has done, for the metrics. */
export interface MarkdownRendererStats {
  /** Documents handed to the worker. */
  renders: number;
  /** Documents in the worker now (0 or 1). */
  inFlight: number;
  /** Documents waiting for the worker. */
  waiting: number;
  /** Answers taken from the cache. */
  cacheHits: number;
  /** Bytes the cache holds. */
  cacheBytes: number;
  /** Documents shown as source, by reason. */
  refused: Record<MarkdownRefusal, number>;
}

const WORKER = new URL("./markdown_worker.ts", import.meta.url);

/**
 * The local modules the worker loads: Deno starts a worker only with read
 * access to them (`deno task start` reads the whole checkout; a service
 * given less needs these).
 */
export const MARKDOWN_WORKER_MODULES: readonly string[] = [
  fileURLToPath(new URL("./", import.meta.url)),
  fileURLToPath(new URL("../../render/page_urls.ts", import.meta.url)),
  fileURLToPath(new URL("../../symbols/languages.ts", import.meta.url)),
];

// An answer's bytes in the cache: its key and text as UTF-16, with room for the entry.
function sizeOf(key: string, answer: RenderedMarkdown): number {
  return 2 * (key.length + (answer.html?.length ?? 0)) + 64;
}

/** A worker-backed Markdown renderer with a bounded queue and cache; `close` ends its worker. */
export class MarkdownRenderer implements DocumentRenderer {
  #jobs: WorkerJobs<MarkdownJob, string>;
  #maxChars: number;
  #maxPending: number;
  #timeoutMs: number;
  #heapMb: number;
  #cacheBytes: number;
  #cache = new Map<string, { answer: RenderedMarkdown; bytes: number }>();
  #cached = 0;
  #rendering = new Map<string, Promise<RenderedMarkdown>>();
  #queue: (() => void)[] = [];
  #busy = false;
  #stats: MarkdownRendererStats;

  constructor(options: MarkdownRendererOptions = {}) {
    this.#maxChars = options.maxChars ?? 1024 * 1024;
    this.#maxPending = options.maxPending ?? 4;
    this.#timeoutMs = options.timeoutMs ?? 2_000;
    this.#heapMb = options.heapMb ?? 64;
    this.#cacheBytes = options.cacheBytes ?? 32 * 1024 * 1024;
    const log = options.log ?? (() => {});
    this.#stats = {
      renders: 0,
      inFlight: 0,
      waiting: 0,
      cacheHits: 0,
      cacheBytes: 0,
      refused: {
        TOO_LARGE: 0,
        TOO_SLOW: 0,
        TOO_MUCH_MEMORY: 0,
        FAILED: 0,
        BUSY: 0,
        UNAVAILABLE: 0,
      },
    };
    this.#jobs = new WorkerJobs(options.workerUrl ?? WORKER, {
      workers: 1,
      timeoutMs: this.#timeoutMs,
      heapMb: this.#heapMb,
      startMs: options.startMs,
      failed: (message) =>
        log(
          `Markdown rendering is off: its worker failed (${message}); the service needs read access to ${
            MARKDOWN_WORKER_MODULES.join(", ")
          }`,
        ),
    });
  }

  /** What the renderer has done so far. */
  stats(): MarkdownRendererStats {
    return {
      ...this.#stats,
      waiting: this.#queue.length,
      cacheBytes: this.#cached,
      refused: { ...this.#stats.refused },
    };
  }

  /** `document` rendered, from the cache when it was rendered (or refused) before. */
  render(document: MarkdownDocument): Promise<RenderedMarkdown> {
    if (document.source.length > this.#maxChars) return this.#refuse("TOO_LARGE");
    if (!this.#jobs.available) return this.#refuse("UNAVAILABLE");
    const blobKey = `${document.blob}\0${document.firstLine}`;
    const key = `${blobKey}\0${document.repo}\0${document.commit}\0${document.path}`;
    const known = this.#recall(blobKey) ?? this.#recall(key);
    if (known !== null) {
      this.#stats.cacheHits++;
      return Promise.resolve(known);
    }
    const running = this.#rendering.get(key);
    if (running !== undefined) return running;
    if (this.#queue.length >= this.#maxPending) return this.#refuse("BUSY");
    // In turn, remembered before the next document's turn: one waiting behind a render of the
    // same blob at another commit that proved too costly is answered by that refusal.
    const turn = async (): Promise<RenderedMarkdown> => {
      const known = this.#recall(blobKey);
      if (known !== null) return known;
      const answer = await this.#renderNow(document);
      // Refused for its content: every later request, at any commit, shows the source at once.
      if (answer.refused === "TOO_SLOW" || answer.refused === "TOO_MUCH_MEMORY") {
        this.#remember(blobKey, answer);
      } else if (answer.refused === null || answer.refused === "FAILED") {
        this.#remember(key, answer);
      }
      return answer;
    };
    const rendered = this.#inTurn(turn).finally(() => this.#rendering.delete(key));
    this.#rendering.set(key, rendered);
    return rendered;
  }

  /** The page's one line for `refused`. */
  describe(refused: MarkdownRefusal): string {
    switch (refused) {
      case "TOO_LARGE":
        return `longer than ${
          this.#maxChars.toLocaleString("en-US")
        } characters: shown as its source`;
      case "TOO_SLOW":
        return `took longer than ${this.#timeoutMs / 1000} s to render: shown as its source`;
      case "TOO_MUCH_MEMORY":
        return `needed more than ${this.#heapMb} MiB to render: shown as its source`;
      case "FAILED":
        return "could not be rendered: shown as its source";
      case "BUSY":
        return "the service is rendering other documents: shown as its source; reload to try again";
      case "UNAVAILABLE":
        return "rendering is off on this service: shown as its source";
    }
  }

  /** Ends the worker; waiting documents are shown as source. */
  close(): void {
    this.#jobs.close();
  }

  #refuse(refused: MarkdownRefusal): Promise<RenderedMarkdown> {
    this.#stats.refused[refused]++;
    return Promise.resolve({ html: null, refused });
  }

  // One job in the worker at a time, so its timer is its own: a job waiting
  // behind a slow one is neither timed nor ended with it.
  async #inTurn<T>(job: () => Promise<T>): Promise<T> {
    if (this.#busy) await new Promise<void>((resolve) => this.#queue.push(resolve));
    this.#busy = true;
    try {
      return await job();
    } finally {
      const next = this.#queue.shift();
      if (next === undefined) this.#busy = false;
      else next();
    }
  }

  async #renderNow(document: MarkdownDocument): Promise<RenderedMarkdown> {
    const { source, repo, commit, path } = document;
    const timeouts = this.#jobs.timeouts;
    const exhausted = this.#jobs.exhausted;
    this.#stats.renders++;
    this.#stats.inFlight++;
    let html: string | null;
    try {
      html = await this.#jobs.run({ source, repo, commit, path });
    } finally {
      this.#stats.inFlight--;
    }
    if (html !== null) return { html, refused: null };
    const refused: MarkdownRefusal = this.#jobs.timeouts > timeouts
      ? "TOO_SLOW"
      : this.#jobs.exhausted > exhausted
      ? "TOO_MUCH_MEMORY"
      : this.#jobs.available
      ? "FAILED"
      : "UNAVAILABLE";
    this.#stats.refused[refused]++;
    return { html: null, refused };
  }

  #recall(key: string): RenderedMarkdown | null {
    const entry = this.#cache.get(key);
    if (entry === undefined) return null;
    // Most recently used last: a Map keeps insertion order.
    this.#cache.delete(key);
    this.#cache.set(key, entry);
    return entry.answer;
  }

  #remember(key: string, answer: RenderedMarkdown): void {
    const bytes = sizeOf(key, answer);
    if (bytes > this.#cacheBytes / 4) return; // one answer never fills the cache
    const old = this.#cache.get(key);
    if (old !== undefined) {
      this.#cached -= old.bytes;
      this.#cache.delete(key);
    }
    this.#cache.set(key, { answer, bytes });
    this.#cached += bytes;
    for (const [oldest, entry] of this.#cache) {
      if (this.#cached <= this.#cacheBytes) break;
      this.#cache.delete(oldest);
      this.#cached -= entry.bytes;
    }
  }
}
