/**
 * A build holds at most its bound of posting lists in memory: past it, the
 * lists are written as a segment of their own, staged until the commit is
 * published, then merged into one. A build that stops before publishing
 * leaves staged segments that the next build discards; a build in many
 * segments answers exactly as one in a single segment.
 */

import { join } from "node:path";
import { buildCommitIndex } from "../../../../sourcegraph/search/build/index_builder.ts";
import { MAX_SEGMENTS } from "../../../../sourcegraph/search/build/segment_merge.ts";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";
import { IndexedCommit } from "../../../../sourcegraph/search/index/index_reader.ts";
import { TrigramCollector } from "../../../../sourcegraph/search/index/trigrams.ts";
import { compileSearch } from "../../../../sourcegraph/search/query/compiled_search.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";

const FILES = Object.fromEntries(
  Array.from({ length: 60 }, (_, i) => [
    `src/f${i}.txt`,
    Array.from({ length: 200 }, (_, j) => `line ${j} of file ${i}: token${(i * j) % 53} w${j}`)
      .join("\n") + "\n",
  ]),
);
const PATTERNS = ["token17", "file 42:", "w1\\d9", "absent-word"];

// The files each pattern's candidates hold, from the index.
function candidateFiles(index: IndexDatabase, commit: string): string[][] {
  const indexed = IndexedCommit.open(index, commit)!;
  return PATTERNS.map((pattern) => {
    const search = compileSearch({ pattern });
    return indexed.candidates(search.trigrams, { paths: search.pathTrigrams, keep: search.keep })
      .map((candidate) => candidate.path);
  });
}

function stagedSegments(index: IndexDatabase): number[] {
  const row = index.db.prepare("SELECT value FROM meta WHERE key = 'staged_segments'").get() as
    | { value: string }
    | undefined;
  return row ? JSON.parse(row.value) : [];
}

Deno.test("held postings: written in segments past the bound, staged until published, discarded when never published", async () => {
  const parent = await tempDir("sg-held-");
  try {
    const repo = await createRepo(FILES, { parent, name: "source" });
    const commit = await repo.git("rev-parse", "HEAD");
    const build = (
      file: string,
      options: { held?: number; stopAfter?: number; commit?: string; batch?: number } = {},
    ) => {
      const index = new IndexDatabase(join(parent, file));
      let segmentsWritten = 0;
      return buildCommitIndex(index, {
        mirror: join(repo.path, ".git"),
        commit: options.commit ?? commit,
        collector: new TrigramCollector(),
        maxHeldPostingBytes: options.held,
        batchTextBytes: options.batch,
        // Writes of batches and of segments (the batches here are larger than the whole text).
        onBatch: () => segmentsWritten++,
        // Stops once the build has written `stopAfter` times.
        cancelled: () => options.stopAfter !== undefined && segmentsWritten >= options.stopAfter,
      }).then((stats) => ({ index, stats, writes: segmentsWritten }));
    };
    const whole = await build("whole.sqlite3");
    const expected = candidateFiles(whole.index, commit);
    const total = (whole.index.db.prepare("SELECT SUM(bytes) AS n FROM segments").get() as {
      n: number;
    }).n;
    assert(expected[0].length > 0 && expected[3].length === 0);
    whole.index.close();

    // A later commit's build stopped after staging rows, on top of a published one: the next
    // build discards exactly those (found by their numbers) and publishes.
    const text = (tag: string) =>
      Array.from({ length: 100 }, (_, j) => `${tag} line ${j} token17 v${j * 7}`).join("\n");
    await repo.write({ "src/f1.txt": text("changed"), "src/new.txt": text("new") });
    const later = await repo.commit("later");
    const cut = await build("whole.sqlite3", { batch: 1024, stopAfter: 1, commit: later });
    assertEquals(cut.stats, null);
    const unpublished = (file: IndexDatabase) =>
      (file.db.prepare(
        "SELECT (SELECT COUNT(*) FROM chunks WHERE id >= " +
          "(SELECT value ->> '$[1]' FROM meta WHERE key = 'staged_from')) + " +
          "(SELECT COUNT(*) FROM blobs WHERE indexed = 0) AS n",
      ).get() as { n: number }).n;
    assert(unpublished(cut.index) > 0, "the stopped build staged rows");
    cut.index.close();
    const resumed = await build("whole.sqlite3", { commit: later });
    assert(resumed.stats !== null);
    assertEquals(unpublished(resumed.index), 0);
    assertEquals(candidateFiles(resumed.index, commit), expected, "the first commit as before");
    assert(candidateFiles(resumed.index, later)[0].includes("src/new.txt"));
    resumed.index.close();

    // A small bound: many segments, the same candidates.
    const split = await build("split.sqlite3", { held: 4096 });
    assertEquals(candidateFiles(split.index, commit), expected);
    assertEquals(stagedSegments(split.index), [], "publishing took the staged segments in");

    split.index.close();
    assert(split.writes >= 5, `${split.writes} writes`);

    // In a few large segments: a later small build leaves them as they are (it merges only
    // segments holding less than a quarter of the index).
    const thirds = await build("thirds.sqlite3", { held: Math.ceil(total / 2.5) });
    const segmentIds = (
      file: IndexDatabase,
    ) => (file.db.prepare("SELECT id, bytes FROM segments ORDER BY id").all() as {
      id: number;
      bytes: number;
    }[]);
    const large = segmentIds(thirds.index).filter((segment) => segment.bytes * 4 >= total);
    assert(large.length >= 2, `${large.length} large segments`);
    thirds.index.close();
    for (let i = 0; i < MAX_SEGMENTS + 2; i++) {
      await repo.write({ [`small${i}.txt`]: `small file ${i} token17\n` });
      const small = await build("thirds.sqlite3", { commit: await repo.commit(`small ${i}`) });
      assert(small.stats !== null);
      const ids = segmentIds(small.index).map((segment) => segment.id);
      for (const segment of large) assert(ids.includes(segment.id), `segment ${segment.id} kept`);
      assert(ids.length <= large.length + MAX_SEGMENTS, `${ids.length} segments`);
      small.index.close();
    }

    // Stopped after two written segments: nothing published, the segments listed as staged.
    const stopped = await build("stopped.sqlite3", { held: 4096, stopAfter: 2 });
    assertEquals(stopped.stats, null);
    const staged = stagedSegments(stopped.index);
    assertEquals(staged.length, 2);
    stopped.index.close();
    // The next build (one segment of its own) discards them, and answers the same.
    const again = await build("stopped.sqlite3");
    assert(again.stats !== null);
    const marks = staged.map(() => "?").join(",");
    const left = again.index.db.prepare(
      `SELECT (SELECT COUNT(*) FROM segments WHERE id IN (${marks})) +
        (SELECT COUNT(*) FROM postings WHERE segment IN (${marks})) AS n`,
    ).get(...staged, ...staged) as { n: number };
    assertEquals(left.n, 0);
    assertEquals(candidateFiles(again.index, commit), expected);
    again.index.close();
  } finally {
    await removeDir(parent);
  }
});
