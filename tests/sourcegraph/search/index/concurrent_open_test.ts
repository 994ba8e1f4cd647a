/**
 * The index file is opened by the builder process (writing) and by the
 * service (to search) at the same time: an open waits for the other's lock
 * instead of reading SQLITE_BUSY as a damaged index, and processes that
 * create a new index together all succeed.
 */

import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assertEquals } from "../../../support/assert.ts";
import { removeDir, tempDir } from "../../../support/git_repo.ts";
import { lastLinesTogether, readLine, spawnHelper } from "../../../support/processes.ts";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";

Deno.test("index file: an open waits while another process holds the write lock", async () => {
  const dir = await tempDir("sg-index-open-");
  try {
    const path = join(dir, "index.sqlite3");
    new IndexDatabase(path).db.close();
    const writer = new DatabaseSync(path);
    writer.exec("BEGIN IMMEDIATE; INSERT INTO meta(key, value) VALUES ('held', '1')");
    const child = spawnHelper("open_index_database.ts", [path], { read: [dir], write: [dir] });
    try {
      assertEquals(await readLine(child), "opening");
      // The child is opening against the held lock; let it meet the lock, then release it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      writer.exec("COMMIT");
      assertEquals(await readLine(child), "ok", "the open waited instead of failing");
    } finally {
      writer.close();
      await child.status;
    }
  } finally {
    await removeDir(dir);
  }
});

Deno.test("index file: processes that create a new index together all succeed", async () => {
  const dir = await tempDir("sg-index-create-");
  try {
    // Rounds of six, each on a new file: the race it guards against was rare.
    for (let round = 0; round < 3; round++) {
      const path = join(dir, `index-${round}.sqlite3`);
      const answers = await lastLinesTogether("open_index_database.ts", [path], { count: 6, dir });
      assertEquals(answers, Array(6).fill("ok"));
      assertEquals(
        [...Deno.readDirSync(dir)].filter((entry) => entry.name.endsWith(".new")),
        [],
        "no staging file is left behind",
      );
    }
  } finally {
    await removeDir(dir);
  }
});
