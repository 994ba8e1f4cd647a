/**
 * A worker of the index builder that finds the symbols of the files it is
 * sent, one at a time (`SymbolExtractor`), so parsing runs beside the
 * builder's trigram work on another core.
 *
 * Messages in: `{ blob, path, text }`; out: `{ blob, extraction }`.
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
}

const extractor = SymbolExtractor.create();

self.onmessage = async (event: MessageEvent<ExtractionJob>) => {
  const { blob, path, text } = event.data;
  const extraction = await (await extractor).extract(path, text);
  self.postMessage({ blob, extraction } satisfies ExtractionDone);
};
