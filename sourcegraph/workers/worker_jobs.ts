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
 * @module
 */

/** What a worker posts once it is ready for jobs. */
export const WORKER_READY = { ready: true } as const;

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

type Slot = { worker: Worker; ready: boolean; start: ReturnType<typeof setTimeout> };

/** A pool of module workers that answer jobs `{ id, ...job }` with `{ id, answer }`. */
export class WorkerJobs<J extends object, A> {
  #url: URL;
  #slots: (Slot | null)[];
  #waiting = new Map<number, Waiting<A>>();
  #nextId = 1;
  #turn = 0;
  #timeoutMs: number;
  #startMs: number;
  #failed: (message: string) => void;
  #broken = false;
  #timeouts = 0;
  #answered = 0;

  constructor(
    url: URL,
    options: {
      workers: number;
      timeoutMs: number;
      /** How long a worker may take to load (default 60 s). */
      startMs?: number;
      failed: (message: string) => void;
    },
  ) {
    this.#url = url;
    this.#slots = Array(Math.max(1, options.workers)).fill(null);
    this.#timeoutMs = options.timeoutMs;
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
      if (slot.ready) waiting.timer = this.#timer(index);
      this.#waiting.set(id, waiting);
      slot.worker.postMessage({ id, ...job });
    });
  }

  /** Ends every worker; waiting jobs answer null. */
  close(): void {
    for (let index = 0; index < this.#slots.length; index++) this.#end(index);
  }

  #timer(index: number): ReturnType<typeof setTimeout> {
    return setTimeout(() => {
      this.#timeouts++;
      this.#end(index);
    }, this.#timeoutMs);
  }

  #started(index: number): Slot {
    const running = this.#slots[index];
    if (running !== null) return running;
    const worker = new Worker(this.#url, { type: "module" });
    const start = setTimeout(
      () => this.#fail(`not ready within ${this.#startMs / 1000} s`),
      this.#startMs,
    );
    const slot: Slot = { worker, ready: false, start };
    worker.onmessage = (event: MessageEvent<WorkerAnswer<A> | typeof WORKER_READY>) => {
      if ("ready" in event.data) return this.#readied(index, slot);
      const waiting = this.#waiting.get(event.data.id);
      if (waiting === undefined) return;
      this.#waiting.delete(event.data.id);
      if (waiting.timer !== null) clearTimeout(waiting.timer);
      if (event.data.answer !== null) this.#answered++;
      waiting.resolve(event.data.answer);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.#fail(event.message);
    };
    this.#slots[index] = slot;
    return slot;
  }

  // The worker loaded: its waiting jobs' time starts now.
  #readied(index: number, slot: Slot): void {
    slot.ready = true;
    clearTimeout(slot.start);
    for (const waiting of this.#waiting.values()) {
      if (waiting.slot === index && waiting.timer === null) waiting.timer = this.#timer(index);
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
      slot.worker.terminate();
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
