/**
 * The service keeps indexed commits open within its memory setting
 * (`SOURCEGRAPH_INDEX_CACHE_MIB`, `OPEN_FILE_BYTES` a file): past it the
 * oldest are closed (and opened again when searched), and the latest one
 * stays open whatever its size.
 */

import { join } from "node:path";
import { OPEN_FILE_BYTES, SearchIndexes } from "../../../sourcegraph/search/search_indexes.ts";
import { assert } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { mirrorFor, testRecord } from "../../support/index_world.ts";

const REPO = testRecord(7, { name: "org/open-commits" });

Deno.test("open commits: kept within the cache's memory, the latest always open", async () => {
  const parent = await tempDir("sg-open-commits-");
  try {
    const source = await createRepo(
      Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, `text ${i}\n`])),
      { parent, name: "source" },
    );
    const first = await source.git("rev-parse", "HEAD");
    await source.write({ "f1.txt": "changed\n" });
    const second = await source.commit("change");
    const data = join(parent, "data");
    const { mirrors } = await mirrorFor(source.path, { data, repo: REPO });
    const open = (cacheMib: number) =>
      new SearchIndexes(data, { enabled: true, mirrors, log: () => {}, cacheMib });
    try {
      const builder = open(256);
      await builder.schedule(REPO, [second, first]);
      await builder.close();
      // Room for both commits' 60 files: each stays the same open commit.
      const roomy = open(256);
      const a = roomy.commit(REPO, first);
      assert(a !== null && roomy.commit(REPO, second) !== null, "both commits are indexed");
      assert(roomy.commit(REPO, first) === a, "kept open");
      await roomy.close();
      // Room for 40 files: opening the second closes the first, which opens anew.
      const tight = open(40 * OPEN_FILE_BYTES / 1024 / 1024);
      const b = tight.commit(REPO, first);
      assert(b !== null);
      assert(tight.commit(REPO, first) === b, "one commit fits");
      tight.commit(REPO, second);
      assert(tight.commit(REPO, first) !== b, "the first was closed");
      // Room for 10 files: the latest commit still opens.
      const tiny = open(10 * OPEN_FILE_BYTES / 1024 / 1024);
      assert(tiny.commit(REPO, second)?.fileCount === 30);
      await tight.close();
      await tiny.close();
    } finally {
      await mirrors.close();
    }
  } finally {
    await removeDir(parent);
  }
});
