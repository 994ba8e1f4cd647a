/**
 * The service's watch over index builds: a builder that reports nothing for
 * the idle limit is killed (logged once, the build slot freed for the next
 * build, nothing half-built in use), a long build logs its progress at most
 * every `PROGRESS_LOG_MS` on the watch's clock, and the idle limit is a
 * setting. The clock is injected; nothing here depends on how fast the
 * machine is.
 */

import { join } from "node:path";
import {
  BuildWatch,
  DEFAULT_BUILD_IDLE_MS,
  PROGRESS_LOG_MS,
} from "../../../sourcegraph/search/build_watch.ts";
import { SearchIndexes } from "../../../sourcegraph/search/search_indexes.ts";
import { readSettings } from "../../../sourcegraph/settings.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { mirrorFor, testRecord } from "../../support/index_world.ts";

const REPO = testRecord(3, { name: "org/watched" });

Deno.test("build watch: stalled only after the idle limit since the last report", () => {
  const watch = new BuildWatch({ idleMs: 1_000, startedAt: 5_000 });
  assertEquals(watch.stalled(6_000), false, "exactly the limit is not past it");
  assertEquals(watch.stalled(6_001), true);
  watch.heard(5_900);
  assertEquals(watch.stalled(6_500), false);
  assertEquals(watch.stalled(6_901), true);
  watch.heard(5_000); // a report stamped earlier never moves the last one back
  assertEquals(watch.stalled(6_901), true);
});

Deno.test("build watch: progress lines at most every PROGRESS_LOG_MS, the first that long after the start", () => {
  const watch = new BuildWatch({ idleMs: DEFAULT_BUILD_IDLE_MS, startedAt: 0 });
  assertEquals(watch.progressDue(PROGRESS_LOG_MS - 1), false);
  assertEquals(watch.progressDue(PROGRESS_LOG_MS), true);
  assertEquals(watch.progressDue(PROGRESS_LOG_MS + 1), false, "just logged");
  assertEquals(watch.progressDue(2 * PROGRESS_LOG_MS - 1), false);
  assertEquals(watch.progressDue(2 * PROGRESS_LOG_MS + 5), true);
});

Deno.test("build watch: SOURCEGRAPH_INDEX_BUILD_IDLE is a duration of at most a day", () => {
  const read = (value?: string) =>
    readSettings((name) => name === "SOURCEGRAPH_INDEX_BUILD_IDLE" ? value : undefined, "/");
  const fallback = read();
  assert(fallback.ok);
  assertEquals(fallback.settings.indexBuildIdleMs, DEFAULT_BUILD_IDLE_MS);
  const set = read("90s");
  assert(set.ok);
  assertEquals(set.settings.indexBuildIdleMs, 90_000);
  for (const wrong of ["forever", "25h", "0s"]) {
    const refused = read(wrong);
    assert(!refused.ok, wrong);
    assert(
      refused.problems.some((line) => line.startsWith("SOURCEGRAPH_INDEX_BUILD_IDLE must be")),
      refused.problems.join("\n"),
    );
  }
});

async function world(parent: string) {
  const source = await createRepo(
    Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}.txt`, `text ${i}\n`])),
    { parent, name: "source" },
  );
  const commit = await source.git("rev-parse", "HEAD");
  const data = join(parent, "data");
  const { mirrors } = await mirrorFor(source.path, { data, repo: REPO });
  return { commit, data, mirrors };
}

Deno.test("build watch: a builder that reports nothing is killed, and the next build runs", async () => {
  const parent = await tempDir("sg-build-watch-");
  try {
    const { commit, data, mirrors } = await world(parent);
    const log: string[] = [];
    // A builder that waits forever, saying nothing: the build ends only if it is killed.
    const stalled = new SearchIndexes(data, {
      enabled: true,
      mirrors,
      log: (line) => log.push(line),
      buildIdleMs: 200,
      builder: () => ({
        args: ["eval", "setInterval(() => {}, 60_000);"],
        env: {},
      }),
    });
    await stalled.schedule(REPO, [commit]);
    assertEquals(
      log.filter((line) => line.includes("reported nothing")),
      [
        "the search index build of org/watched reported nothing for 200 ms; stopped it (the " +
        "next sync builds it again; until then its versions not indexed yet are searched through Git)",
      ],
    );
    assertEquals(log.filter((line) => line.includes("stopped (exit")), [], "logged once");
    assertEquals(stalled.commit(REPO, commit), null, "nothing indexed");
    await stalled.close();

    // The real builder on the same data: built, and its progress logged on a clock
    // that moves 40 s at each look (every report is then due a line).
    let clock = 0;
    const real = new SearchIndexes(data, {
      enabled: true,
      mirrors,
      log: (line) => log.push(line),
      now: () => (clock += 40_000),
    });
    try {
      await real.schedule(REPO, [commit]);
      assert(real.commit(REPO, commit) !== null, log.join("\n"));
      assert(
        log.includes(
          `search index of org/watched at ${
            commit.slice(0, 12)
          }: 20 of 20 new blobs read (0.0 MiB)`,
        ),
        log.join("\n"),
      );
    } finally {
      await real.close();
    }
  } finally {
    await removeDir(parent);
  }
});
