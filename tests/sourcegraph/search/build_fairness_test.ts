/**
 * One repository's long build does not hold the others: past the build
 * slice the next repository's build starts beside it and publishes while
 * the long one still runs; at most two builders run, so a third build
 * waits for one of them (and then for the slice of the one left). The
 * long builds are builders that never end; the slice is counted on an
 * injected clock, so nothing depends on the machine's speed.
 */

import { join } from "node:path";
import type {
  BuilderCommand,
  BuilderJob,
} from "../../../sourcegraph/search/build/builder_command.ts";
import { builderCommand } from "../../../sourcegraph/search/build/builder_command.ts";
import { SearchIndexes } from "../../../sourcegraph/search/search_indexes.ts";
import { assert, assertEquals, waitFor } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { mirrorFor, testRecord } from "../../support/index_world.ts";
import type { RepositoryRecord } from "../../../sourcegraph/store/control_store.ts";
import type { MirrorReaders } from "../../../sourcegraph/git/mirror_readers.ts";

const SLICE_MS = 1_000;

// Repositories with a commit each, mirrored into one data folder.
async function world(parent: string, names: string[]) {
  const data = join(parent, "data");
  const repos: { repo: RepositoryRecord; commit: string; mirror: string }[] = [];
  let mirrors: MirrorReaders | undefined;
  for (const [i, name] of names.entries()) {
    const repo = testRecord(i + 1, { name });
    const source = await createRepo({ "a.txt": `${name}\n` }, { parent, name: `source${i}` });
    const made = await mirrorFor(source.path, { data, repo });
    mirrors = made.mirrors;
    repos.push({ repo, commit: await source.git("rev-parse", "HEAD"), mirror: made.mirror });
  }
  return { data, repos, mirrors: mirrors! };
}

// A builder that reports nothing and would end only after a minute, leaving `ended` behind.
function endlessBuilder(ended: string) {
  return {
    args: [
      "eval",
      `await new Promise((resolve) => setTimeout(resolve, 60_000)); ` +
      `Deno.writeTextFileSync(${JSON.stringify(ended)}, "ended");`,
    ],
    env: {},
  };
}

// Search indexes on `data` whose build slice is read on `now`: each builder
// launched is recorded (its mirror) before `command` picks what it runs, and
// every log line is kept for a failure's message.
function slicedIndexes(
  world: { data: string; mirrors: MirrorReaders },
  options: { now: () => number; command: (job: BuilderJob, launched: string[]) => BuilderCommand },
): { indexes: SearchIndexes; launched: string[]; log: string[] } {
  const launched: string[] = [];
  const log: string[] = [];
  const indexes = new SearchIndexes(world.data, {
    enabled: true,
    mirrors: world.mirrors,
    log: (line) => log.push(line),
    buildSliceMs: SLICE_MS,
    now: options.now,
    builder: (job: BuilderJob) => {
      launched.push(job.mirror);
      return options.command(job, launched);
    },
  });
  return { indexes, launched, log };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("build fairness: past the slice another repository's build publishes while a long one runs", async () => {
  const parent = await tempDir("sg-build-fair-");
  try {
    const { data, repos, mirrors } = await world(parent, ["org/endless", "org/quick"]);
    const [endless, quick] = repos;
    const ended = join(parent, "endless-ended");
    let clock = 0;
    const { indexes, launched, log } = slicedIndexes({ data, mirrors }, {
      now: () => clock,
      command: (job) => job.mirror === endless.mirror ? endlessBuilder(ended) : builderCommand(job),
    });
    try {
      let endlessDone = false;
      indexes.schedule(endless.repo, [endless.commit]).then(() => (endlessDone = true));
      const quickDone = indexes.schedule(quick.repo, [quick.commit]);
      assertEquals(launched, [endless.mirror], "within the slice the next build waits");
      clock = SLICE_MS;
      await quickDone;
      assertEquals(launched, [endless.mirror, quick.mirror]);
      assert(indexes.commit(quick.repo, quick.commit) !== null, log.join("\n"));
      assert(!endlessDone && !(await exists(ended)), "published while the long build still runs");
    } finally {
      await indexes.close();
    }
  } finally {
    await removeDir(parent);
  }
});

Deno.test("build fairness: at most two builders; a third build waits for one, then for the slice", async () => {
  const parent = await tempDir("sg-build-fair-");
  try {
    const { data, repos, mirrors } = await world(parent, ["org/one", "org/two", "org/three"]);
    const [one, two, three] = repos;
    let clock = 0;
    const { indexes, launched, log } = slicedIndexes({ data, mirrors }, {
      now: () => clock,
      command: (job, started) =>
        job.mirror === three.mirror
          ? builderCommand(job)
          : endlessBuilder(join(parent, `ended-${started.length}`)),
    });
    try {
      indexes.schedule(one.repo, [one.commit]);
      indexes.schedule(two.repo, [two.commit]);
      const threeDone = indexes.schedule(three.repo, [three.commit]);
      clock = SLICE_MS;
      await waitFor(() => launched.length === 2, { what: "the second builder" });
      // The look that started the second builder found no room for the third.
      assertEquals(launched, [one.mirror, two.mirror]);
      await indexes.remove(one.repo); // the first long build ends
      assertEquals(launched, [one.mirror, two.mirror], "the second build is within its slice");
      clock = 2 * SLICE_MS;
      await threeDone;
      assertEquals(launched, [one.mirror, two.mirror, three.mirror]);
      assert(indexes.commit(three.repo, three.commit) !== null, log.join("\n"));
    } finally {
      await indexes.close();
    }
  } finally {
    await removeDir(parent);
  }
});
