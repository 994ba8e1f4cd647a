/**
 * The SCIP worker: an upload is decoded and derived off the service's
 * thread (the thread keeps running timers meanwhile), a refusal keeps its
 * code, and an index that needs more heap than the worker has is
 * `SCIP_TOO_COSTLY`, after which the next upload gets a new worker.
 */

import { join } from "node:path";
import { SourcegraphError } from "../../../../sourcegraph/errors.ts";
import { ScipJobs } from "../../../../sourcegraph/search/scip/scip_jobs.ts";
import { assert, assertEquals, assertRejects } from "../../../support/assert.ts";
import { encodeScip } from "../../../support/scip_fixtures.ts";
import { removeDir, tempDir } from "../../../support/git_repo.ts";

const COMMIT = "a".repeat(40);
const SMALL = encodeScip([{
  path: "a.ts",
  occurrences: [{ range: [0, 0, 1], symbol: "local 0" }],
}]);

// An index of `files` files of 250 occurrences each (about 13 KiB a file).
function large(files: number): Uint8Array {
  return encodeScip(Array.from({ length: files }, (_, d) => ({
    path: `src/file_${d}.ts`,
    occurrences: Array.from({ length: 250 }, (_, i) => ({
      range: [i, 4, 12],
      symbol: i % 3 === 0 ? `local ${i}` : `npm pkg 1.0.0 src/\`file_${d}.ts\`/name${i % 40}().`,
    })),
  })));
}

// Derives `bytes` through the worker from a file of a temp folder, as an upload is.
async function derive(jobs: ScipJobs, bytes: Uint8Array) {
  const folder = await tempDir("scip-jobs-");
  try {
    const input = join(folder, "index.scip");
    await Deno.writeFile(input, bytes);
    return await jobs.derive({ input, output: join(folder, "stored.json"), commit: COMMIT });
  } finally {
    await removeDir(folder);
  }
}

Deno.test("SCIP worker: an upload is derived off the service's thread, refusals keep their code", async () => {
  const jobs = new ScipJobs({ log: () => {} });
  try {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const derived = await derive(jobs, large(400)).finally(() => clearInterval(timer));
    assertEquals(derived.paths.length, 400);
    assertEquals(derived.source.commit, COMMIT);
    assert(ticks > 0, "the service's thread ran timers while the index was read");
    const truncated = await assertRejects(
      () => derive(jobs, SMALL.subarray(0, SMALL.length - 2)),
      SourcegraphError,
    );
    assertEquals(truncated.code, "SCIP_INVALID");
    const escaping = await assertRejects(
      () => derive(jobs, encodeScip([{ path: "../x.ts", occurrences: [] }])),
      SourcegraphError,
    );
    assertEquals(escaping.code, "SCIP_PATH_INVALID");
  } finally {
    jobs.close();
  }
});

Deno.test("SCIP worker: an index of more occurrences than the cap is SCIP_TOO_COSTLY", async () => {
  const logged: string[] = [];
  const jobs = new ScipJobs({ log: (line) => logged.push(line), maxOccurrences: 1_000 });
  try {
    const error = await assertRejects(() => derive(jobs, large(5)), SourcegraphError);
    assertEquals(error.code, "SCIP_TOO_COSTLY");
    assertEquals((await derive(jobs, large(4))).occurrences, 1_000, "at the cap is taken");
    assertEquals(logged, []);
  } finally {
    jobs.close();
  }
});
