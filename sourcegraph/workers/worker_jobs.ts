/**
 * Jobs run in a few module workers of the service, answered in the order
 * they were asked or not at all: each job gets an id and a timer; a worker
 * that does not answer a job within `timeoutMs` is ended (its waiting jobs
 * answer null) and the next job starts a new one; a worker that fails (it
 * could not load: a module it may not read) is reported once through
 * `failed`, and from then on every job answers null at once. Null always
 * means "do it on the service's thread, or not at all": the callers
 * (highlighting, chunk scanning) fall back, never fail.
 *
 * @module
 */

/** What a worker posts back: the job's id and its answer (null: it could not). */
export interface WorkerAnswer<A> {
  id: number;
  answer: A | null;
}

type Waiting<A> = {
  resolve: (answer: A | null) => void;
  timer: ReturnType<typeof setTimeout>;
  slot: number;
};

/** A pool of module workers that answer jobs `{ id, ...job }` with `{ id, answer }`. */
export class WorkerJobs<J extends object, A> {
  #url: URL;
  #workers: (Worker | null)[];
  #waiting = new Map<number, Waiting<A>>();
  #nextId = 1;
  #turn = 0;
  #timeoutMs: number;
  #failed: (message: string) => void;
  #broken = false;
  #timeouts = 0;
  #answered = 0;

  constructor(
    url: URL,
    options: { workers: number; timeoutMs: number; failed: (message: string) => void },
  ) {
    this.#url = url;
    this.#workers = Array(Math.max(1, options.workers)).fill(null);
    this.#timeoutMs = options.timeoutMs;
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
    const slot = this.#turn++ % this.#workers.length;
    const worker = this.#started(slot);
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timeouts++;
        this.#end(slot);
      }, this.#timeoutMs);
      this.#waiting.set(id, { resolve, timer, slot });
      worker.postMessage({ id, ...job });
    });
  }

  /** Ends every worker; waiting jobs answer null. */
  close(): void {
    for (let slot = 0; slot < this.#workers.length; slot++) this.#end(slot);
  }

  #started(slot: number): Worker {
    const running = this.#workers[slot];
    if (running !== null) return running;
    const worker = new Worker(this.#url, { type: "module" });
    worker.onmessage = (event: MessageEvent<WorkerAnswer<A>>) => {
      const waiting = this.#waiting.get(event.data.id);
      if (waiting === undefined) return;
      this.#waiting.delete(event.data.id);
      clearTimeout(waiting.timer);
      if (event.data.answer !== null) this.#answered++;
      waiting.resolve(event.data.answer);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.#broken) return; // said once, when the first worker failed
      this.#broken = true;
      this.#failed(event.message);
      this.close();
    };
    this.#workers[slot] = worker;
    return worker;
  }

  #end(slot: number): void {
    this.#workers[slot]?.terminate();
    this.#workers[slot] = null;
    for (const [id, waiting] of this.#waiting) {
      if (waiting.slot !== slot) continue;
      clearTimeout(waiting.timer);
      this.#waiting.delete(id);
      waiting.resolve(null);
    }
  }
}
