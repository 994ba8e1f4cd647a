/**
 * A worker of the index builder that finds the symbols of the files it is
 * sent, one at a time (`SymbolExtractor`), so parsing runs beside the
 * builder's trigram work on another core.
 *
 * Messages in: `{ blob, path, text }`; out: `{ blob, extraction, ms }`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { type Extraction, SymbolExtractor } from "./symbol_extractor.ts";

/** A file to extract, as the builder posts it. */
export interface ExtractionJob {
  blob: number;
  path: string;
  text: string;
}

/** What the worker posts back for a job. */
export interface ExtractionDone {
  blob: number;
  extraction: Extraction;
  /** How long the extraction took (the builder's budget counts it). */
  ms: number;
}

const extractor = SymbolExtractor.create();

// Jobs run one after another: an extraction awaits its grammar's first load, and jobs started
// meanwhile would each count the others' time as their own.
let previous: Promise<void> = Promise.resolve();

self.onmessage = (event: MessageEvent<ExtractionJob>) => {
  previous = previous.then(() => extract(event.data));
};

async function extract({ blob, path, text }: ExtractionJob): Promise<void> {
  const ready = await extractor;
  const started = performance.now();
  const extraction = await ready.extract(path, text);
  self.postMessage({ blob, extraction, ms: performance.now() - started } satisfies ExtractionDone);
}
