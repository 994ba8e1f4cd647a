/**
 * The highlighting worker: one job at a time, `{ id, language, texts }` in,
 * `{ id, html }` out (`html` null when highlighting failed). It runs off the
 * service's main thread, so highlighting a long file never holds up other
 * requests, and `highlighter.ts` can end it when a job runs too long.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { highlightTexts } from "./highlight_grammars.ts";

/** A job the worker is given. */
export interface HighlightJob {
  id: number;
  language: string;
  texts: string[];
}

/** What the worker answers. */
export interface HighlightDone {
  id: number;
  html: string[] | null;
}

self.onmessage = (event: MessageEvent<HighlightJob>) => {
  const { id, language, texts } = event.data;
  let html: string[] | null;
  try {
    html = highlightTexts(texts, language);
  } catch {
    html = null;
  }
  self.postMessage({ id, html } satisfies HighlightDone);
};
