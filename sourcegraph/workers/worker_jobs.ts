/**
 * Jobs run in a few module workers of the service, answered in the order
 * they were asked or not at all: each job gets an id and a timer; a worker
 * that does not answer a job within `timeoutMs` is ended (its waiting jobs
 * answer null) and the next job starts a new one. A job's time counts from
 * when its worker said it is ready (`WORKER_READY`, posted once its modules
 * are loaded), so a slow start on a busy machine is not a slow job; a worker
 * not ready within `startMs`, or one that fails (it could not load: a
 * module it may not read), is reported once through `failed`, and from then
 * on every job answers null at once. Null always
 * means "do it on the service's thread, or not at all": the callers
 * (highlighting, chunk scanning) fall back, never fail.
 *
 * With `queuedMs` a worker says when it begins each job (`{ started: id }`,
 * `WORKER_STARTED`): a job's `timeoutMs` counts from then, and until then it
 * may wait `queuedMs` (behind its worker's earlier jobs, or while the worker
 * loads what the job needs, such as a grammar), so a job queued behind
 * another, or the first of a language in a worker, is not ended for time
 * that is not its own.
 *
 * With `heapMb` the workers are started with that much V8 heap at most
 * (`node:worker_threads` resource limits; such a worker talks through
 * `parentPort`): a job that would need more ends its worker, its jobs
 * answer null as after a timeout, and the next job starts a new one.
 *
 * @module
 */

import { Worker as ThreadWorker } from "node:worker_threads";

/** What a worker posts once it is ready for jobs. */
export const WORKER_READY = { ready: true } as const;

/** What a worker of a pool with `queuedMs` posts when it begins job `id`. */
export interface WorkerStarted {
  started: number;
}

/** What a worker posts back: the job's id and its answer (null: it could not). */
export interface WorkerAnswer<A> {
  id: number;
  answer: A | null;
}

type Waiting<A> = {
  resolve: (answer: A | null) => void;
  /** Set once the worker is ready. */
  timer: ReturnType<typeof setTimeout> | null;
  slot: number;
};

// A started worker, whichever kind: what the pool posts to and ends.
// `terminate` resolves once the worker's thread (and its heap) is gone.
type JobWorker = { post(message: unknown): void; terminate(): Promise<void> };

type WorkerEvents = {
  message(data: unknown): void;
  /** It failed; `exhausted` when it ran out of its heap (a job's fault, not the module's). */
  error(message: string, exhausted: boolean): void;
};

type Slot = { worker: JobWorker; ready: boolean; start: ReturnType<typeof setTimeout> };

// A module worker (`self.onmessage`), the kind with no resource limits.
function webWorker(url: URL, events: WorkerEvents): JobWorker {
  const worker = new Worker(url, { type: "module" });
  worker.onmessage = (event) => events.message(event.data);
  worker.onerror = (event) => {
    event.preventDefault();
    events.error(event.message, false);
  };
  return {
    post: (message) => worker.postMessage(message),
    terminate: () => Promise.resolve(worker.terminate()),
  };
}

// A worker thread (`parentPort`) whose V8 heap is capped at `heapMb`, started
// once `after` (the previous one's termination) resolves rather than beside a
// worker still being ended; messages posted meanwhile wait.
function limitedWorker(
  url: URL,
  heap: { oldMb: number; youngMb: number },
  options: { events: WorkerEvents; after: Promise<void> },
): JobWorker {
  const { events } = options;
  let worker: ThreadWorker | null = null;
  let ended = false;
  const posted: unknown[] = [];
  const started = options.after.then(() => {
    if (ended) return;
    try {
      worker = new ThreadWorker(url, {
        resourceLimits: {
          maxOldGenerationSizeMb: heap.oldMb,
          maxYoungGenerationSizeMb: heap.youngMb,
        },
      });
    } catch (error) {
      ended = true;
      return events.error((error as Error).message, false);
    }
    listen(worker);
    for (const message of posted.splice(0)) worker.postMessage(message);
  });
  const listen = (worker: ThreadWorker) => {
    worker.on("message", (data) => events.message(data));
    worker.on("error", (error: Error & { code?: string }) => {
      if (ended) return;
      ended = true;
      events.error(error.message, error.code === "ERR_WORKER_OUT_OF_MEMORY");
    });
    worker.on("exit", () => {
      if (ended) return;
      ended = true;
      events.error("the worker exited", false);
    });
  };
  return {
    post: (message) => worker === null ? posted.push(message) : worker.postMessage(message),
    terminate: async () => {
      ended = true;
      await started;
      if (worker !== null) await worker.terminate();
    },
  };
}

/** A pool of module workers that answer jobs `{ id, ...job }` with `{ id, answer }`. */
export class WorkerJobs<J extends object, A> {
  #url: URL;
  #slots: (Slot | null)[];
  #waiting = new Map<number, Waiting<A>>();
  #nextId = 1;
  #turn = 0;
  #timeoutMs: number;
  #queuedMs: number;
  // Whether the pool times jobs from their `WorkerStarted` (with `queuedMs` only).
  #timedFromStart: boolean;
  #startMs: number;
  #failed: (message: string) => void;
  #broken = false;
  #timeouts = 0;
  #exhausted = 0;
  #answered = 0;
  #heapMb: number | null;
  #youngMb: number;
  // Per slot, when its last worker is gone (a new one starts after it).
  #retired: Promise<void>[];

  constructor(
    url: URL,
    options: {
      workers: number;
      timeoutMs: number;
      /** How long a worker may take to load (default 60 s). */
      startMs?: number;
      /**
       * How long a job may wait in its worker before the worker says it began
       * (`WorkerStarted`); default: such messages are not heeded, `timeoutMs` counts from
       * when the job is posted.
       */
      queuedMs?: number;
      /** The most V8 heap a worker may use, in MiB (default: no limit). */
      heapMb?: number;
      /** With `heapMb`, its young generation's part (default 16 MiB). */
      youngMb?: number;
      failed: (message: string) => void;
    },
  ) {
    this.#heapMb = options.heapMb ?? null;
    this.#youngMb = options.youngMb ?? 16;
    this.#url = url;
    this.#slots = Array(Math.max(1, options.workers)).fill(null);
    this.#retired = this.#slots.map(() => Promise.resolve());
    this.#timeoutMs = options.timeoutMs;
    this.#queuedMs = options.queuedMs ?? options.timeoutMs;
    this.#timedFromStart = options.queuedMs !== undefined;
    this.#startMs = options.startMs ?? 60_000;
    this.#failed = options.failed;
  }

  /** Whether jobs go to workers (false once one failed). */
  get available(): boolean {
    return !this.#broken;
  }

  /** Jobs waiting for an answer. */
  get waiting(): number {
    return this.#waiting.size;
  }

  /** Workers ended because a job ran past its time. */
  get timeouts(): number {
    return this.#timeouts;
  }

  /** Workers ended because a job ran out of their heap (`heapMb`). */
  get exhausted(): number {
    return this.#exhausted;
  }

  /** Jobs a worker answered (not null). */
  get answered(): number {
    return this.#answered;
  }

  /** Runs `job` in the next worker; null when it could not be done there. */
  run(job: J): Promise<A | null> {
    if (this.#broken) return Promise.resolve(null);
    const index = this.#turn++ % this.#slots.length;
    const slot = this.#started(index);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const waiting: Waiting<A> = { resolve, timer: null, slot: index };
      if (slot.ready) waiting.timer = this.#timer(index, this.#queuedMs);
      this.#waiting.set(id, waiting);
      slot.worker.post({ id, ...job });
    });
  }

  /** Ends every worker; waiting jobs answer null. */
  close(): void {
    for (let index = 0; index < this.#slots.length; index++) this.#end(index);
  }

  #timer(index: number, ms: number): ReturnType<typeof setTimeout> {
    return setTimeout(() => {
      this.#timeouts++;
      this.#end(index);
    }, ms);
  }

  // The worker began job `id`: its own time starts now.
  #began(id: number): void {
    const waiting = this.#waiting.get(id);
    if (!this.#timedFromStart || waiting === undefined || waiting.timer === null) return;
    clearTimeout(waiting.timer);
    waiting.timer = this.#timer(waiting.slot, this.#timeoutMs);
  }

  #started(index: number): Slot {
    const running = this.#slots[index];
    if (running !== null) return running;
    // Bound before the worker exists, filled in once it does: its handlers never meet an
    // uninitialized binding (a suite run once saw `ready` handled before `slot` was declared).
    const slot = {} as Slot;
    const events: WorkerEvents = {
      message: (message) => {
        const data = message as WorkerAnswer<A> | WorkerStarted | typeof WORKER_READY;
        if ("ready" in data) return this.#readied(index, slot);
        if ("started" in data) return this.#began(data.started);
        const waiting = this.#waiting.get(data.id);
        if (waiting === undefined) return;
        this.#waiting.delete(data.id);
        if (waiting.timer !== null) clearTimeout(waiting.timer);
        if (data.answer !== null) this.#answered++;
        waiting.resolve(data.answer);
      },
      error: (message, exhausted) => {
        if (this.#slots[index] !== slot) return; // already ended
        // Out of heap is the job's doing: end this worker, as after a timeout.
        if (exhausted && slot.ready) {
          this.#exhausted++;
          return this.#end(index);
        }
        this.#fail(message);
      },
    };
    const worker = this.#heapMb === null
      ? webWorker(this.#url, events)
      : limitedWorker(this.#url, { oldMb: this.#heapMb, youngMb: this.#youngMb }, {
        events,
        after: this.#retired[index],
      });
    const start = setTimeout(
      () => this.#fail(`not ready within ${this.#startMs / 1000} s`),
      this.#startMs,
    );
    Object.assign(slot, { worker, ready: false, start } satisfies Slot);
    this.#slots[index] = slot;
    return slot;
  }

  // The worker loaded: its waiting jobs' time starts now.
  #readied(index: number, slot: Slot): void {
    slot.ready = true;
    clearTimeout(slot.start);
    for (const waiting of this.#waiting.values()) {
      if (waiting.slot === index && waiting.timer === null) {
        waiting.timer = this.#timer(index, this.#queuedMs);
      }
    }
  }

  #fail(message: string): void {
    if (this.#broken) return; // said once, when the first worker failed
    this.#broken = true;
    this.#failed(message);
    this.close();
  }

  #end(index: number): void {
    const slot = this.#slots[index];
    if (slot !== null) {
      clearTimeout(slot.start);
      this.#retired[index] = slot.worker.terminate().catch(() => {});
    }
    this.#slots[index] = null;
    for (const [id, waiting] of this.#waiting) {
      if (waiting.slot !== index) continue;
      if (waiting.timer !== null) clearTimeout(waiting.timer);
      this.#waiting.delete(id);
      waiting.resolve(null);
    }
  }
}
