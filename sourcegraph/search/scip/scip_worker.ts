/**
 * The SCIP worker: one upload at a time, `{ id, input, output, commit,
 * maxOccurrences }` in, `{ id, answer }` out. It reads the uploaded index
 * from the file `input` one top-level message at a time, derives its compact
 * form as it goes (`ScipDeriver`) and writes the stored text to the new
 * private file `output` in pieces, with its SHA-256; the answer is what it
 * holds (document paths, counts, source, digest) or the refusal
 * (`SCIP_INVALID`, `SCIP_PATH_INVALID`, `SCIP_TOO_COSTLY` once the
 * occurrences pass the cap). It runs off the service's main thread, so a
 * large index never holds up other requests, and `scip_jobs.ts` ends it
 * when a job runs too long or out of memory.
 *
 * @module
 */

import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { parentPort } from "node:worker_threads";
import { SourcegraphError } from "../../errors.ts";
import type { WORKER_READY, WorkerAnswer } from "../../workers/worker_jobs.ts";
import { type DerivedSummary, ScipDeriver, tooCostly } from "./scip_derived.ts";
import { countScipFile, walkScipFile } from "./scip_proto.ts";

/** One upload for the worker. */
export interface ScipJob {
  /** The uploaded index. */
  input: string;
  /** Where the stored text goes (a new private file). */
  output: string;
  commit: string;
  /** More occurrences than this are `SCIP_TOO_COSTLY`. */
  maxOccurrences: number;
}

/** What the worker made of an upload: what the stored text holds, or the refusal. */
export type ScipJobAnswer =
  | (DerivedSummary & { ok: true; digest: string; bytes: number })
  | { ok: false; code: string; message: string; hint?: string };

const port = parentPort!;

// Exclusive creation of a new private file, never through a final symlink.
const CREATE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL |
  (fs.constants.O_NOFOLLOW ?? 0);

port.on("message", (job: ScipJob & { id: number }) => {
  port.postMessage({ id: job.id, answer: derived(job) } satisfies WorkerAnswer<ScipJobAnswer>);
});

function derived(job: ScipJob): ScipJobAnswer {
  try {
    return { ok: true, ...write(job.output, read(job)) };
  } catch (error) {
    if (error instanceof SourcegraphError) {
      return { ok: false, code: error.code, message: error.message, hint: error.hint };
    }
    // Unexpected: the service logs it once and answers an internal error.
    return { ok: false, code: "INTERNAL_ERROR", message: String((error as Error)?.stack ?? error) };
  }
}

// Counted first (refused before anything is decoded when over the cap), then derived.
function read(job: ScipJob): ScipDeriver {
  const fd = fs.openSync(job.input, "r");
  try {
    const { occurrences } = countScipFile(fd);
    if (occurrences > job.maxOccurrences) throw tooCostly("occurrences", job.maxOccurrences);
    const deriver = new ScipDeriver({ ...job, occurrences });
    walkScipFile(fd, deriver);
    return deriver;
  } catch (error) {
    if (error instanceof SourcegraphError) throw error;
    throw notScip();
  } finally {
    fs.closeSync(fd);
  }
}

function write(
  output: string,
  deriver: ScipDeriver,
): DerivedSummary & { digest: string; bytes: number } {
  const fd = fs.openSync(output, CREATE, 0o600);
  const hash = createHash("sha256");
  let bytes = 0;
  try {
    const summary = deriver.finish((chunk) => {
      hash.update(chunk);
      bytes += chunk.length;
      for (let done = 0; done < chunk.length;) {
        done += fs.writeSync(fd, chunk, done, chunk.length - done);
      }
    });
    fs.fsyncSync(fd);
    return { ...summary, digest: hash.digest("hex"), bytes };
  } finally {
    fs.closeSync(fd);
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
