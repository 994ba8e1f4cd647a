import { assertEquals } from "../../support/assert.ts";
import { WorkerJobs } from "../../../sourcegraph/workers/worker_jobs.ts";

const QUEUED_WORKER = new URL("../../fixtures/workers/queued_worker.ts", import.meta.url);

type Job = { loadMs: number; runMs: number };

function pool(queuedMs?: number, timeoutMs = 1_000): WorkerJobs<Job, number> {
  return new WorkerJobs<Job, number>(QUEUED_WORKER, {
    workers: 1,
    timeoutMs,
    ...(queuedMs === undefined ? {} : { queuedMs }),
    failed: (message) => {
      throw new Error(message);
    },
  });
}

Deno.test("worker jobs: with queuedMs a job's time counts from when its worker says it began", async () => {
  const jobs = pool(20_000);
  try {
    // Waiting behind an earlier job, and a slow load before the job begins, are not its time.
    const [first, second] = await Promise.all([
      jobs.run({ loadMs: 0, runMs: 700 }),
      jobs.run({ loadMs: 0, runMs: 700 }),
    ]);
    assertEquals([first !== null, second !== null], [true, true]);
    assertEquals(await jobs.run({ loadMs: 1_500, runMs: 0 }) !== null, true);
    assertEquals(jobs.timeouts, 0);
    // A job that runs past its time once begun is still ended: its 1 s, not the 30 s it would
    // take (a run on a loaded machine once saw a 5 s job finish before its worker was ended).
    assertEquals(await jobs.run({ loadMs: 0, runMs: 30_000 }), null);
    assertEquals(jobs.timeouts, 1);
  } finally {
    jobs.close();
  }
});

Deno.test("worker jobs: without queuedMs a job's time counts from when it is posted", async () => {
  // Each job alone is well within its time (the first has 1.8 s to spare on a busy machine);
  // both one after the other are not, and a late machine only makes the second later.
  const jobs = pool(undefined, 4_000);
  try {
    const [first, second] = await Promise.all([
      jobs.run({ loadMs: 0, runMs: 2_200 }),
      jobs.run({ loadMs: 0, runMs: 2_200 }),
    ]);
    // The second job waited behind the first: past its time, the worker is ended.
    assertEquals([first !== null, second], [true, null]);
    assertEquals(jobs.timeouts, 1);
  } finally {
    jobs.close();
  }
});
