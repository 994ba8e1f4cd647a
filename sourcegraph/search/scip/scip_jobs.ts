/**
 * Decoding and deriving uploaded SCIP indexes off the service's thread: one
 * worker thread (`scip_worker.ts`), one upload at a time (later ones wait
 * their turn). The worker reads the upload from a file a document at a
 * time and writes the derived form to a file in pieces, so its memory is
 * the derived table (28 bytes an occurrence) and the symbols, never the
 * upload or its decoded messages. An index of more than
 * `SCIP_MAX_OCCURRENCES` occurrences is refused before it is decoded, and
 * one of more than `SCIP_MAX_SYMBOLS` symbols as soon as it passes that
 * (`SCIP_TOO_COSTLY`); each upload is given `SCIP_WORKER_MS` and the
 * worker's heap is capped at `SCIP_WORKER_HEAP_MB` besides: past either the
 * upload is `SCIP_TOO_COSTLY` and the worker is ended (the next upload
 * starts a new one).
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { SourcegraphError } from "../../errors.ts";
import { WorkerJobs } from "../../workers/worker_jobs.ts";
import type { ScipJob, ScipJobAnswer } from "./scip_worker.ts";

/**
 * Most V8 heap the SCIP worker may use: a safety net above what the caps
 * need (measured: a 50 MiB upload of 940,000 occurrences and 110,000
 * symbols peaked at 120 MiB of the worker's memory; the caps are what keep
 * an upload within it).
 */
export const SCIP_WORKER_HEAP_MB = 512;
/** Most milliseconds one upload may spend being decoded and derived. */
export const SCIP_WORKER_MS = 300_000;

const WORKER = new URL("./scip_worker.ts", import.meta.url);

/**
 * The local modules the SCIP worker loads: Deno starts a worker only with
 * read access to them (`deno task start` reads the whole checkout).
 */
export const SCIP_WORKER_MODULES: readonly string[] = [
  fileURLToPath(new URL("./", import.meta.url)),
  fileURLToPath(new URL("../../errors.ts", import.meta.url)),
  fileURLToPath(new URL("../../../shared/coded_error.ts", import.meta.url)),
];

export type { ScipJob, ScipJobAnswer };

/**
 * Most occurrences one index may hold: 28 bytes each in the derived table
 * (56 MiB at the cap), plus the two sort orders (8 bytes each).
 */
export const SCIP_MAX_OCCURRENCES = 2_000_000;

/** The derived form of an upload, ready to store. */
export type DerivedUpload = Extract<ScipJobAnswer, { ok: true }>;

/** The SCIP worker of the service. */
export class ScipJobs {
  #jobs: WorkerJobs<ScipJob, ScipJobAnswer>;
  #log: (line: string) => void;
  #maxOccurrences: number;

  /** A worker whose jobs each get `timeoutMs` and at most `heapMb` of heap. */
  constructor(
    options: {
      log: (line: string) => void;
      timeoutMs?: number;
      heapMb?: number;
      maxOccurrences?: number;
    },
  ) {
    this.#log = options.log;
    this.#maxOccurrences = options.maxOccurrences ?? SCIP_MAX_OCCURRENCES;
    this.#jobs = new WorkerJobs(WORKER, {
      workers: 1,
      timeoutMs: options.timeoutMs ?? SCIP_WORKER_MS,
      heapMb: options.heapMb ?? SCIP_WORKER_HEAP_MB,
      failed: (message) =>
        options.log(
          `SCIP uploads are refused: the SCIP worker failed (${message}); ` +
            `the service needs read access to ${SCIP_WORKER_MODULES.join(", ")}`,
        ),
    });
  }

  /**
   * Derives the index in file `at.input`, the index of `at.commit`, into the
   * new file `at.output` (left for the caller to remove on a refusal);
   * refusals as `SourcegraphError`s.
   */
  async derive(at: { input: string; output: string; commit: string }): Promise<DerivedUpload> {
    const answer = await this.#jobs.run({ ...at, maxOccurrences: this.#maxOccurrences });
    if (answer === null && !this.#jobs.available) {
      throw new SourcegraphError("DEPENDENCY_UNAVAILABLE", "the SCIP worker could not start", {
        hint: "The operator's log says why; uploads work again once the service can start it.",
      });
    }
    if (answer === null) {
      throw new SourcegraphError(
        "SCIP_TOO_COSTLY",
        "the index needed more memory or time to read than the service allows",
        { hint: "Upload an index of fewer or smaller files (index the project's sources only)." },
      );
    }
    if (answer.ok) return answer;
    if (answer.code === "INTERNAL_ERROR") {
      this.#log(`SCIP upload failed unexpectedly: ${answer.message}`);
      throw new Error("the SCIP worker failed");
    }
    throw new SourcegraphError(answer.code, answer.message, { hint: answer.hint });
  }

  /** Ends the worker; uploads asked for afterwards are refused. */
  close(): void {
    this.#jobs.close();
  }
}
