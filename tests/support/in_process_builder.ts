/**
 * Index builds inside the test process, for in-process services: each
 * build runs `runBuild` (what `build_main.ts` runs, so the index is the
 * same byte for byte) in a worker kept for the next build, instead of a
 * builder process per build. Why: speed. A builder process pays Deno's
 * start, its modules' loading and the grammars' loading again on every
 * build; a kept worker loads them once, and its symbol extraction keeps its
 * workers (their grammars loaded) from build to build. Six builds of a
 * four-file repository on the 2-core AMD EPYC VM (24 GiB, under load):
 * 5.28 processor-seconds as builder processes, 1.60 here (0.82 the first,
 * then about 0.16 each).
 *
 * A worker runs one build at a time (two builds at once take two workers),
 * so stopping a build ends its worker as SIGKILL ends a process (the
 * index's transaction in progress is rolled back; the next build starts a
 * fresh worker). The builder process itself stays what the service runs
 * and is tested as such: its command line, flags and exit
 * (`builder_process_test.ts`), its heap bound (`lifecycle_test.ts`), a
 * build killed at any point (`crash_test.ts`), its idle watch and the build
 * queue (`build_watch_test.ts`, `build_fairness_test.ts`, `SearchIndexes`
 * tests), a build held at a gate (`held_builder.ts`, on builder processes),
 * and every test of the service as a process of its own (`stop_test.ts`:
 * a build in progress is ended with the service).
 *
 * @module
 */

import type { BuilderJob, RunningBuilder } from "../../sourcegraph/search/build/builder_command.ts";
import type { BuilderMessage } from "./in_process_builder_worker.ts";

const WORKER = new URL("./in_process_builder_worker.ts", import.meta.url);
// The exit status the service sees of a build stopped at once (as of a process killed by SIGKILL).
const KILLED = 128 + 9;

// Workers whose build has ended, kept for the next ones.
const idle: Worker[] = [];

/** Starts `job`'s build in a kept worker of the test process (a `BuilderLauncher`). */
export function inProcessBuilder(job: BuilderJob): RunningBuilder {
  const worker = idle.pop() ?? new Worker(WORKER, { type: "module" });
  return new WorkerBuild(worker, job);
}

// One build in `worker`: its messages as a process's output and end.
class WorkerBuild implements RunningBuilder {
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ success: boolean; code: number }>;
  #worker: Worker;
  #out!: ReadableStreamDefaultController<Uint8Array>;
  #err!: ReadableStreamDefaultController<Uint8Array>;
  #ended!: (code: number) => void;
  #done = false;

  constructor(worker: Worker, job: BuilderJob) {
    this.#worker = worker;
    this.stdout = new ReadableStream({ start: (controller) => void (this.#out = controller) });
    this.stderr = new ReadableStream({ start: (controller) => void (this.#err = controller) });
    this.status = new Promise((resolve) => {
      this.#ended = (code) => resolve({ success: code === 0, code });
    });
    const encoder = new TextEncoder();
    worker.onmessage = (event: MessageEvent<BuilderMessage>) => {
      const message = event.data;
      if ("stdout" in message) this.#write(this.#out, encoder.encode(message.stdout));
      else if ("stderr" in message) this.#write(this.#err, encoder.encode(message.stderr));
      else if (this.#end(message.exit)) idle.push(worker);
    };
    // An error the worker did not catch ends it (as it would the process), kept or not.
    worker.onerror = (event) => {
      event.preventDefault();
      this.#write(this.#err, encoder.encode(`${event.message}\n`));
      this.kill(1);
      if (idle.includes(worker)) idle.splice(idle.indexOf(worker), 1);
      worker.terminate();
    };
    worker.postMessage(job);
  }

  /** Ends the build at once: its worker is ended, never kept (nothing once the build ended). */
  kill(code: Deno.Signal | number = KILLED): void {
    if (this.#done) return; // its worker may run another build now
    this.#worker.terminate();
    this.#end(typeof code === "number" ? code : KILLED);
  }

  // Output nobody reads any more (its stream cancelled) is dropped, as a pipe's would be.
  #write(stream: ReadableStreamDefaultController<Uint8Array>, bytes: Uint8Array): void {
    if (this.#done) return;
    try {
      stream.enqueue(bytes);
    } catch {
      // cancelled by its reader
    }
  }

  // Closes the output and settles the status once; whether it was this call.
  #end(code: number): boolean {
    if (this.#done) return false;
    this.#done = true;
    for (const stream of [this.#out, this.#err]) {
      try {
        stream.close();
      } catch {
        // cancelled by its reader
      }
    }
    this.#ended(code);
    return true;
  }
}
