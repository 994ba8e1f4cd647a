/**
 * The service's worker that finds where a name occurs as an identifier in
 * the files it is sent, one at a time (`SymbolExtractor.occurrences`), so
 * parsing for `references` never holds up the service's own thread, and the
 * pool (`workers/worker_jobs.ts`) can end it when a file takes too long.
 *
 * Messages in: `{ id, path, text, name, bindings?, deadlineMs }` (`bindings`: each
 * occurrence with what it is bound to, and what the file exports under the
 * name); out: `{ started: id }` once the file's grammar is loaded (and warmed
 * up, on its first file) and its parse begins (the pool times the job from then), then `{ id, answer }`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { type NameOccurrences, SymbolExtractor } from "./symbol_extractor.ts";

/** A file to look at for a name. */
export interface OccurrencesJob {
  path: string;
  text: string;
  name: string;
  /** Also resolve each occurrence's binding (`name_bindings.ts`). */
  bindings?: boolean;
}

// The extractor's own deadline (tree-sitter's progress callback) ends a long parse inside the
// worker; the pool's timer is the guard behind it.
const extractors = new Map<number, Promise<SymbolExtractor>>();

let previous: Promise<void> = Promise.resolve();

self.onmessage = (event: MessageEvent<OccurrencesJob & { id: number; deadlineMs: number }>) => {
  previous = previous.then(() => find(event.data));
};

async function find(
  job: OccurrencesJob & { id: number; deadlineMs: number },
): Promise<void> {
  let answer: NameOccurrences | null;
  try {
    let extractor = extractors.get(job.deadlineMs);
    if (!extractor) {
      extractor = SymbolExtractor.create({ deadlineMs: job.deadlineMs });
      extractors.set(job.deadlineMs, extractor);
    }
    // Loading and warming a grammar up is the worker's, not the file's, time.
    await (await extractor).prepare(job.path, job.text, job.name);
    self.postMessage({ started: job.id });
    answer = await (await extractor).occurrences(job.path, job.text, job.name, {
      bindings: job.bindings,
    });
  } catch {
    answer = null;
  }
  // The pool's answer shape (`workers/worker_jobs.ts` sits above this layer).
  self.postMessage({ id: job.id, answer });
}

// Loaded: the jobs' time starts now (the pool's ready message).
self.postMessage({ ready: true });
