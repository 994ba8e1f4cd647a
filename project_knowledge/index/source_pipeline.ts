/**
 * Runs source preparation ahead of the SQLite writes: requests go to a worker
 * (a second core) in order and results come back in the same order. If the
 * worker cannot start or dies (for example without read permission on the
 * program folder, which loading a worker needs), the requests it still holds
 * are prepared inline instead, with the same results.
 *
 * @module
 */

import type { ProjectRoot } from "../project/project_root.ts";
import { type PreparedSource, type PrepareRequest, prepareSource } from "./source_preparation.ts";

/** In-order source preparation, in a worker when one can run. */
export class SourcePipeline {
  #root: ProjectRoot;
  #worker: Worker | null = null;
  // Requests the worker holds, oldest first; they move inline if it fails.
  #outstanding: PrepareRequest[] = [];
  #inline: PrepareRequest[] = [];
  #ready: PreparedSource[] = [];
  #waiting: ((source: PreparedSource) => void) | null = null;

  /** Starts a worker for `root` when `useWorker`, else prepares inline. */
  constructor(root: ProjectRoot, options: { useWorker: boolean }) {
    this.#root = root;
    if (!options.useWorker) return;
    try {
      const worker = new Worker(new URL("./source_worker.ts", import.meta.url), {
        type: "module",
      });
      worker.onmessage = (event: MessageEvent<PreparedSource>) => this.#deliver(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        this.#fallBackInline();
      };
      worker.postMessage({ root });
      this.#worker = worker;
    } catch {
      this.#worker = null;
    }
  }

  /** Queues one source. */
  submit(request: PrepareRequest): void {
    if (this.#worker) {
      this.#outstanding.push(request);
      this.#worker.postMessage(request);
    } else {
      this.#inline.push(request);
    }
  }

  /** The next prepared source, in submission order. */
  next(): Promise<PreparedSource> {
    const ready = this.#ready.shift();
    if (ready) return Promise.resolve(ready);
    if (this.#worker === null) {
      const inline = this.#inline.shift();
      if (inline) return Promise.resolve(prepareSource(this.#root, inline));
    }
    return new Promise((resolve) => this.#waiting = resolve);
  }

  #deliver(source: PreparedSource): void {
    this.#outstanding.shift();
    const waiting = this.#waiting;
    this.#waiting = null;
    if (waiting) waiting(source);
    else this.#ready.push(source);
  }

  #fallBackInline(): void {
    this.#worker?.terminate();
    this.#worker = null;
    this.#inline = [...this.#outstanding, ...this.#inline];
    this.#outstanding = [];
    const waiting = this.#waiting;
    this.#waiting = null;
    if (waiting) void this.next().then(waiting);
  }

  /** Stops the worker; results still in flight are dropped. */
  close(): void {
    this.#worker?.terminate();
    this.#worker = null;
  }
}
