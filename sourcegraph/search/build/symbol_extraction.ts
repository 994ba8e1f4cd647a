/**
 * The symbol extraction of one build: files go to workers
 * (`symbols/extraction_worker.ts`, one per core, at most four, started as
 * the text in flight grows past `BYTES_PER_WORKER` each; a file goes to the
 * one with the least text in flight, except that a grammar language's first
 * `PINNED_LANGUAGE_BYTES` go to one worker) while the builder collects trigrams,
 * so parsing costs little wall time. The text
 * in flight is bounded (`submit` waits while it is over `MAX_PENDING_BYTES`);
 * finished extractions wait in memory (they are small) until the builder
 * writes them with its next batch. On one core there is nothing to run
 * beside: files are extracted on the builder's own thread, which saves a
 * worker's start and the copies of every text sent to it (the Git source
 * tree's build on one core of a 2-core AMD EPYC VM: 5.52 -> 5.29 s, medians
 * of six).
 *
 * Each commit's extraction has a budget of time (`startCommit`): the time
 * files took to extract, summed over the threads that extract them. Once it
 * is spent, the extractions in flight are abandoned (their workers stopped:
 * a file may take the parser's whole per-file deadline, and thousands may be
 * queued) and the commit's later files are not extracted at all; the build
 * publishes the commit with the files it skipped (`skipped`), so a commit
 * whose files are slow to parse costs its build at most the budget and one
 * file's deadline on each thread.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import type { ExtractionDone, ExtractionJob } from "../../symbols/extraction_worker.ts";
import type {
  Extraction,
  ExtractionOutcome,
  SymbolExtractor,
} from "../../symbols/symbol_extractor.ts";
import { grammarLanguageOf, patternLanguageOf } from "../../symbols/languages.ts";

/** Most text sent to the workers and not yet extracted. */
export const MAX_PENDING_BYTES = 16 * 1024 * 1024;

/**
 * Text of one grammar language sent to one worker before its files go to
 * any worker: a language with less is parsed by one worker, which alone
 * compiles its tags query. The deno tree's C, C++, C# and TSX files (under
 * 400 KiB in all) spared the second worker about 190 ms of query compiles.
 */
export const PINNED_LANGUAGE_BYTES = 1024 * 1024;

/**
 * Text in flight per worker before another one starts. A small commit's
 * build keeps to one worker: a second one's start (its runtime and grammars)
 * took the builder's own core on two-core machines, and the 1%-changed
 * commit of a 322 MiB tree took about 100 ms longer with it.
 */
export const BYTES_PER_WORKER = 1024 * 1024;
const WORKER = new URL("../../symbols/extraction_worker.ts", import.meta.url);
/**
 * The local modules the worker loads: Deno loads a worker's modules only
 * with read access to them (the builder has it to these and nothing else of
 * the checkout).
 */
export const EXTRACTION_WORKER_MODULES: readonly string[] = [
  fileURLToPath(new URL("../../symbols/", import.meta.url)),
  fileURLToPath(new URL("../../../shared/defined_names.ts", import.meta.url)),
];

/** A blob's extracted symbols. */
export interface BlobSymbols {
  blob: number;
  extraction: Extraction;
}

/** Symbol extraction running beside a build. */
export class SymbolExtraction {
  #workers: Worker[] = [];
  // Bytes in flight on each worker (by the index of `#workers`).
  #load: number[] = [];
  #pending = new Map<number, { bytes: number; worker: number }>(); // blob → what is in flight
  #pendingBytes = 0;
  // Text sent per grammar language, and the worker a language's files go to while it is little.
  #languageBytes = new Map<string, number>();
  #languageWorker = new Map<string, number>();
  #done: BlobSymbols[] = [];
  #waiters: (() => void)[] = [];
  #failure: Error | null = null;
  /** How many files ended each way. */
  readonly outcomes: Record<ExtractionOutcome, number> = {
    parsed: 0,
    patterns: 0,
    large: 0,
    timed_out: 0,
    failed: 0,
    none: 0,
  };

  #count: number;
  #budgetMs: number;
  #spentMs = 0;
  #skipped: number[] = [];
  #sent = false;
  #now: () => number;
  // The extractor of the builder's own thread (no workers), loaded on first use.
  #inline: Promise<SymbolExtractor> | null = null;

  /**
   * Extraction by up to `workers` workers (default: one per core, at most
   * four, none on one core), started as needed; with none, on the calling
   * thread. Each commit may spend `budgetMs` extracting (default: no
   * bound), timed on the clock `now` on the calling thread (workers time
   * their own files).
   */
  constructor(
    options: { workers?: number; budgetMs?: number; now?: () => number } = {},
  ) {
    const cores = navigator.hardwareConcurrency ?? 2;
    this.#count = options.workers ?? (cores <= 1 ? 0 : Math.min(4, cores));
    this.#budgetMs = options.budgetMs ?? Infinity;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Begins a commit: its budget is whole again and it has skipped no file. */
  startCommit(): void {
    this.#sent = false;
    this.#spentMs = 0;
    this.#skipped = [];
  }

  /** The blobs of the commit whose extraction the budget stopped or never started. */
  get skipped(): readonly number[] {
    return this.#skipped;
  }

  // Whether the commit's extraction budget is spent.
  get #overBudget(): boolean {
    return this.#spentMs >= this.#budgetMs;
  }

  /** Whether a file at `path` may define symbols (a grammar or the patterns know its language). */
  static wants(path: string): boolean {
    return grammarLanguageOf(path) !== null || patternLanguageOf(path) !== null;
  }

  /** Sends `text`, blob `blob`'s content at `path`, to a worker (waits while too much is in flight). */
  async submit(blob: number, path: string, text: string): Promise<void> {
    if (this.#overBudget) {
      this.#skipped.push(blob);
      return;
    }
    if (this.#count === 0) return this.#extractHere(blob, path, text);
    while (this.#pendingBytes > MAX_PENDING_BYTES) await this.#change();
    this.#check();
    if (this.#overBudget) {
      this.#skipped.push(blob);
      return;
    }
    // The first file always starts a worker (an empty one too: it would otherwise wait for none).
    const running = this.#workers.length;
    const wanted = running === 0 ||
      (running < this.#count && this.#pendingBytes + text.length > BYTES_PER_WORKER * running);
    if (wanted) this.#start();
    const job: ExtractionJob = { blob, path, text };
    const worker = this.#workerFor(path, text);
    this.#workers[worker].postMessage(job);
    this.#sent = true;
    this.#pending.set(blob, { bytes: text.length, worker });
    this.#load[worker] += text.length;
    this.#pendingBytes += text.length;
  }

  /**
   * Starts the first worker before any file is submitted, so that its
   * runtime compiles while the builder lists and reads the commit's blobs
   * (no effect on one core, or once a worker runs).
   */
  warm(): void {
    if (this.#count > 0 && this.#workers.length === 0) this.#start();
  }

  // The worker a file goes to: while its grammar language has sent little text, the one its
  // first file went to (each worker compiles the tags query of every language it parses: the
  // C++ one took 90 ms, TypeScript's 75–110 ms); otherwise the one with the least in flight.
  #workerFor(path: string, text: string): number {
    const language = grammarLanguageOf(path, text);
    if (language === null) return this.#leastLoaded();
    const sent = (this.#languageBytes.get(language) ?? 0) + text.length;
    this.#languageBytes.set(language, sent);
    if (sent > PINNED_LANGUAGE_BYTES) return this.#leastLoaded();
    let worker = this.#languageWorker.get(language);
    if (worker === undefined || worker >= this.#workers.length) {
      worker = this.#leastLoaded();
      this.#languageWorker.set(language, worker);
    }
    return worker;
  }

  // The worker with the fewest bytes in flight: files sent in turn left one worker with
  // seconds of Rust files queued while the other one had finished (the deno tree's build).
  #leastLoaded(): number {
    let least = 0;
    for (let i = 1; i < this.#load.length; i++) {
      if (this.#load[i] < this.#load[least]) least = i;
    }
    return least;
  }

  async #extractHere(blob: number, path: string, text: string): Promise<void> {
    this.#check();
    // Loaded only here: with workers, the builder's thread never needs the parser.
    this.#inline ??= import("../../symbols/symbol_extractor.ts").then((module) =>
      module.SymbolExtractor.create()
    );
    const extractor = await this.#inline;
    const started = this.#now();
    const extraction = await extractor.extract(path, text);
    this.#spentMs += this.#now() - started;
    this.#record({ blob, extraction });
  }

  #start(): void {
    const worker = new Worker(WORKER, { type: "module" });
    worker.onmessage = (event: MessageEvent<ExtractionDone>) => this.#finished(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#fail(new Error(`symbol extraction stopped: ${event.message}`));
    };
    this.#workers.push(worker);
    this.#load.push(0);
  }

  /**
   * Whether the commit sent files to workers (which may still be extracting
   * them once its blobs are read). Whatever their timing, so that two builds
   * of one commit write the same file.
   */
  get sentToWorkers(): boolean {
    return this.#sent;
  }

  /** The bytes of text in flight on each running worker (in the order they started). */
  get inFlight(): readonly number[] {
    return [...this.#load];
  }

  /** The extractions finished since the last call. */
  take(): BlobSymbols[] {
    this.#check();
    const done = this.#done;
    this.#done = [];
    return done;
  }

  /** Waits for every submitted file; then the rest of the extractions. */
  async finish(): Promise<BlobSymbols[]> {
    while (this.#pending.size > 0) await this.#change();
    return this.take();
  }

  /** Stops the workers. */
  close(): void {
    for (const worker of this.#workers) worker.terminate();
    this.#workers = [];
    this.#load = [];
    this.#count = 0;
    this.#fail(new Error("symbol extraction closed"));
  }

  #finished(done: ExtractionDone): void {
    const pending = this.#pending.get(done.blob);
    if (pending === undefined) return; // abandoned when the budget ran out
    this.#pending.delete(done.blob);
    this.#pendingBytes -= pending.bytes;
    this.#load[pending.worker] -= pending.bytes;
    this.#spentMs += done.ms;
    this.#record(done);
    if (this.#overBudget) this.#abandon();
    this.#wake();
  }

  // Stops the workers and counts every file still in flight as skipped;
  // the next file submitted starts a worker again (next commit).
  #abandon(): void {
    for (const worker of this.#workers) worker.terminate();
    this.#workers = [];
    this.#load = [];
    this.#languageWorker.clear();
    for (const blob of this.#pending.keys()) this.#skipped.push(blob);
    this.#pending.clear();
    this.#pendingBytes = 0;
  }

  // Counts a file's outcome and keeps its symbols for the next batch.
  #record(done: BlobSymbols): void {
    this.outcomes[done.extraction.outcome]++;
    if (done.extraction.symbols.length > 0) this.#done.push(done);
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#wake();
  }

  #check(): void {
    if (this.#failure !== null) throw this.#failure;
  }

  #change(): Promise<void> {
    this.#check();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
