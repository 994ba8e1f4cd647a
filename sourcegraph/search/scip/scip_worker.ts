/**
 * The SCIP worker: one upload at a time, `{ id, bytes, commit,
 * maxOccurrences }` in, `{ id, answer }` out: the derived form's stored
 * text, its document paths and counts, or the refusal (`SCIP_INVALID`,
 * `SCIP_PATH_INVALID`, `SCIP_TOO_COSTLY` when the wire holds more
 * occurrences than allowed, counted before anything is decoded). It runs
 * off the service's main thread, so decoding and deriving a large index
 * never holds up other requests, and `scip_jobs.ts` ends it when a job runs
 * too long or out of memory.
 *
 * @module
 */

import { parentPort } from "node:worker_threads";
import { SourcegraphError } from "../../errors.ts";
import type { WORKER_READY, WorkerAnswer } from "../../workers/worker_jobs.ts";
import { deriveScip, storedText } from "./scip_derived.ts";
import { countScipIndex, decodeScipIndex, type ScipIndex } from "./scip_proto.ts";
import type { ScipSource } from "./scip_derived.ts";

/** One upload for the worker. */
export interface ScipJob {
  bytes: Uint8Array;
  commit: string;
  /** More occurrences than this are `SCIP_TOO_COSTLY`, refused before decoding. */
  maxOccurrences: number;
}

/** What the worker made of an upload: the stored text, or the refusal. */
export type ScipJobAnswer =
  | {
    ok: true;
    text: string;
    paths: string[];
    symbols: number;
    occurrences: number;
    source: ScipSource;
  }
  | { ok: false; code: string; message: string; hint?: string };

const port = parentPort!;

port.on("message", (job: ScipJob & { id: number }) => {
  port.postMessage({ id: job.id, answer: derived(job) } satisfies WorkerAnswer<ScipJobAnswer>);
});

function derived(job: ScipJob): ScipJobAnswer {
  try {
    const scip = deriveScip(decoded(job), { commit: job.commit });
    return {
      ok: true,
      text: storedText(scip),
      paths: scip.paths,
      symbols: scip.symbols.length,
      occurrences: scip.byDocument.reduce((sum, rows) => sum + rows.length / 6, 0),
      source: scip.source,
    };
  } catch (error) {
    if (error instanceof SourcegraphError) {
      return { ok: false, code: error.code, message: error.message, hint: error.hint };
    }
    // Unexpected: the service logs it once and answers an internal error.
    return { ok: false, code: "INTERNAL_ERROR", message: String((error as Error)?.stack ?? error) };
  }
}

function decoded(job: ScipJob): ScipIndex {
  let counts: { occurrences: number };
  try {
    counts = countScipIndex(job.bytes);
  } catch {
    throw notScip();
  }
  if (counts.occurrences > job.maxOccurrences) {
    throw new SourcegraphError(
      "SCIP_TOO_COSTLY",
      `the index has more than ${job.maxOccurrences} occurrences`,
      { hint: "Upload an index of fewer files (index the project's sources only)." },
    );
  }
  try {
    return decodeScipIndex(job.bytes);
  } catch {
    throw notScip();
  }
}

function notScip(): SourcegraphError {
  return new SourcegraphError(
    "SCIP_INVALID",
    "the body is not a SCIP index (malformed, truncated or nested too deep)",
    { hint: "Upload the index file the indexer wrote (index.scip), unchanged." },
  );
}

// Loaded: the jobs' time starts now.
port.postMessage({ ready: true } satisfies typeof WORKER_READY);
