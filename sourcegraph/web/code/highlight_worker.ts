/**
 * The highlighting worker: one job at a time, `{ id, language, texts }` in,
 * `{ id, answer }` out (the highlight.js HTML of each text; null when
 * highlighting failed). It runs off the
 * service's main thread, so highlighting a long file never holds up other
 * requests, and `highlighter.ts` can end it when a job runs too long.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { highlightTexts } from "./highlight_grammars.ts";
import type { WORKER_READY, WorkerAnswer } from "../../workers/worker_jobs.ts";

/** A job the worker is given. */
export interface HighlightJob {
  language: string;
  texts: string[];
}

self.onmessage = (event: MessageEvent<HighlightJob & { id: number }>) => {
  const { id, language, texts } = event.data;
  let answer: string[] | null;
  try {
    answer = highlightTexts(texts, language);
  } catch {
    answer = null;
  }
  self.postMessage({ id, answer } satisfies WorkerAnswer<string[]>);
};

// Loaded: the jobs' time starts now.
self.postMessage({ ready: true } satisfies typeof WORKER_READY);
