import { join } from "node:path";
import { validateConfig } from "../../git_source/config.ts";
import { GitKnowledgeSource } from "../../git_source/feed.ts";
import type { GitBatch } from "../../git_source/protocol.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../support/git_repo.ts";
import { LineReader, spawnHelper } from "../support/processes.ts";
import { crashPoints } from "../support/crash_points.ts";

const ROUNDS = 24;
const FILES = 40;

function corpus(round: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) {
    files[`docs/f${i}.md`] = `round ${round} file ${i}\n${"x".repeat(4000)}\n`;
  }
  return files;
}

Deno.test(`SIGKILL at points of changes/acknowledge (a sample of ${ROUNDS}) never corrupts state or loses a pending page`, async () => {
  const parent = await tempDir("gs-crash-");
  try {
    const repo = await createRepo(corpus(0), { parent, name: "repo" });
    const data = join(parent, "data");
    const paths = Object.keys(corpus(0));
    const feed = () =>
      new GitKnowledgeSource(validateConfig({
        repository: repo.path,
        dataDirectory: data,
        paths,
        limits: { maxFiles: 200, maxFileBytes: 65_536, maxBatchBytes: 16 * 1024 },
      }));
    const run = () =>
      spawnHelper("git_source_churn.ts", [repo.path, data, JSON.stringify(paths)], {
        read: [repo.path, data],
        write: [data],
        run: ["git"],
      });
    // Measure one full drain, and its start-up (up to the first page), to
    // spread the kill points over the work.
    const started = performance.now();
    const measured = run();
    const measuredLines = new LineReader(measured.stdout);
    assert((await measuredLines.next(60_000)) !== null, "the first page is printed");
    const startup = performance.now() - started;
    while ((await measuredLines.next(60_000)) !== null);
    await measured.stdin.close().catch(() => {});
    await measured.stderr.cancel().catch(() => {});
    assert((await measured.status).success);
    const duration = performance.now() - started;
    let locksLeft = 0;
    let midDelivery = 0;
    const { points, random } = crashPoints("git_source", { total: ROUNDS, sample: 12 });
    // One round: a new commit, the helper run and killed when `killAt` says (it may finish
    // first), then the checks of what the kill left.
    const crashRound = async (
      round: number,
      killAt: (firstPage: Promise<void>) => Promise<void>,
    ) => {
      await repo.write(corpus(round));
      await repo.commit(`round ${round}`);
      const child = run();
      const lines = new LineReader(child.stdout);
      const seen: ({ page: GitBatch } | { acked: string })[] = [];
      let pageSeen = () => {};
      const firstPage = new Promise<void>((resolve) => pageSeen = resolve);
      const reading = (async () => {
        while (true) {
          const line = await lines.next(60_000).catch(() => null);
          if (line === null) return;
          seen.push(JSON.parse(line));
          if ("page" in seen.at(-1)!) pageSeen();
        }
      })();
      await Promise.race([killAt(firstPage), reading]);
      try {
        child.kill("SIGKILL");
      } catch {
        // it finished first: that round checks a clean exit
      }
      await child.status;
      await reading;
      await child.stdin.close().catch(() => {});
      await child.stderr.cancel().catch(() => {});
      await checkRecovery(child.pid, seen);
    };
    // What a kill left: the lock removed as documented, the state never corrupt, the last
    // unacknowledged page never lost; then drained so the next round starts clean.
    const checkRecovery = async (pid: number, seen: ({ page: GitBatch } | { acked: string })[]) => {
      // Documented recovery: the recorded process is gone, so remove exactly its lock.
      const lock = join(data, "writer.lock");
      if (await Deno.stat(lock).then(() => true, () => false)) {
        // Empty when the kill landed between creating the lock and writing it.
        const contents = await Deno.readTextFile(lock);
        if (contents !== "") assertEquals(JSON.parse(contents).pid, pid);
        await Deno.remove(lock);
        locksLeft++;
      }
      // The state is never corrupt, and the last unacknowledged page is never lost.
      const next = await feed().changes();
      const pages = seen.filter((step): step is { page: GitBatch } => "page" in step);
      const acked = new Set(
        seen.filter((s): s is { acked: string } => "acked" in s).map((s) => s.acked),
      );
      const last = pages.at(-1)?.page;
      if (last && !acked.has(last.token)) {
        midDelivery++;
        if (JSON.stringify(next) !== JSON.stringify(last)) {
          // Only allowed if its acknowledgement became durable just before the kill.
          await feed().acknowledge(last.token); // idempotent: throws unknown_ack if lost
        }
      }
      // Drain so the next round starts from a clean checkpoint.
      let page = await feed().changes();
      for (let i = 0; i < 100 && page.updates.length > 0; i++) {
        await feed().acknowledge(page.token);
        page = await feed().changes();
      }
      await feed().acknowledge(page.token);
    };
    for (const round of points.map((point) => point + 1)) {
      // From the first page's build (the last 20% of the start-up) up to the run's end.
      const from = startup * 0.8;
      const delay = from + (duration - from) * 1.05 * random();
      await crashRound(round, () => new Promise((resolve) => setTimeout(resolve, delay)));
    }
    // The sample's delays may all miss the window between a page and its acknowledgement (it is
    // short): then rounds killed as soon as a page is read land in it.
    for (let extra = 1; midDelivery === 0 && extra <= 10; extra++) {
      await crashRound(ROUNDS + extra, (firstPage) => firstPage);
    }
    assert(midDelivery > 0, "some kills landed between a page and its acknowledgement");
    assert(locksLeft > 0, "some kills landed inside an operation");
    console.log(`locks left by kills: ${locksLeft}, kills between page and ack: ${midDelivery}`);
  } finally {
    await removeDir(parent);
  }
});
