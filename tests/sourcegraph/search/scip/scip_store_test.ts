/**
 * The stored SCIP indexes: written, read back and listed per commit in a
 * private folder; pruned to the retained commits and removed with the
 * repository (an upload in progress spared); a damaged file is refused with
 * one log line, never taken for an index; a writer killed with SIGKILL
 * mid-write leaves one whole index (the previous or the new one), and the
 * temp files it leaves are never listed and are removed by the next write.
 */

import * as fs from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { ScipIndexes } from "../../../../sourcegraph/search/scip/scip_store.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { removeDir, tempDir } from "../../../support/git_repo.ts";
import { readLine, spawnHelper } from "../../../support/processes.ts";
import { WRITER_COMMIT, writerIndex } from "../../../support/scip_writer.ts";

async function withData(fn: (data: string) => Promise<void> | void): Promise<void> {
  const data = await tempDir("scip-store-");
  try {
    await fn(data);
  } finally {
    await removeDir(data);
  }
}

Deno.test("SCIP store: an index is read back, listed with its tool, pruned and removed", () =>
  withData((data) => {
    const indexes = new ScipIndexes(data);
    const first = writerIndex("first");
    indexes.put(7, first);
    assertEquals(fs.statSync(indexes.folder(7)).mode & 0o777, 0o700);
    assertEquals(new ScipIndexes(data).get(7, WRITER_COMMIT), first);
    assertEquals(new ScipIndexes(data).get(7, "e".repeat(40)), null);
    assertEquals(new ScipIndexes(data).get(8, WRITER_COMMIT), null);
    assertEquals(
      [...new ScipIndexes(data).commits(7)],
      [[WRITER_COMMIT, { tool: "first", version: "1", commit: WRITER_COMMIT }]],
    );
    indexes.prune(7, [WRITER_COMMIT]);
    assertEquals(new ScipIndexes(data).commits(7).size, 1);
    indexes.prune(7, ["e".repeat(40)]);
    assertEquals(new ScipIndexes(data).commits(7).size, 0);
    assertEquals(indexes.get(7, WRITER_COMMIT), null, "the cache forgets a pruned index");
    indexes.put(7, first);
    indexes.remove(7);
    assert(!fs.existsSync(indexes.folder(7)));
    assertEquals(indexes.get(7, WRITER_COMMIT), null);
  }));

Deno.test("SCIP store: removing a repository's indexes spares an upload in progress, which then installs", () =>
  withData((data) => {
    const indexes = new ScipIndexes(data);
    indexes.put(7, writerIndex("first"));
    const temp = indexes.incoming(7, WRITER_COMMIT);
    fs.writeFileSync(temp.raw, "received so far");
    indexes.remove(7);
    assertEquals(indexes.get(7, WRITER_COMMIT), null, "the stored index is gone");
    assertEquals(fs.readFileSync(temp.raw, "utf8"), "received so far");
    new ScipIndexes(data).put(8, writerIndex("other"));
    const stored = new TextEncoder().encode(
      fs.readFileSync(
        join(new ScipIndexes(data).folder(8), `${WRITER_COMMIT}.json`),
        "utf8",
      ).replace('"tool":"other"', '"tool":"second"'),
    );
    fs.writeFileSync(temp.stored, stored);
    indexes.install(7, { commit: WRITER_COMMIT, stored: temp.stored });
    indexes.release(temp);
    assertEquals(new ScipIndexes(data).get(7, WRITER_COMMIT)?.source.tool, "second");
    // With nothing in progress, the folder goes too.
    indexes.remove(7);
    assert(!fs.existsSync(indexes.folder(7)));
  }));

Deno.test("SCIP store: a damaged file is refused with one log line, never read as an index", () =>
  withData((data) => {
    new ScipIndexes(data).put(3, writerIndex("first"));
    const file = join(new ScipIndexes(data).folder(3), `${WRITER_COMMIT}.json`);
    const whole = fs.readFileSync(file, "utf8");
    for (
      const damaged of [
        whole.slice(0, whole.length >> 1),
        whole.replace('"format":1', '"format":2'),
        whole.replace(WRITER_COMMIT, "f".repeat(40)),
        "",
      ]
    ) {
      fs.writeFileSync(file, damaged);
      const logged: string[] = [];
      const indexes = new ScipIndexes(data, { log: (line) => logged.push(line) });
      assertEquals(indexes.get(3, WRITER_COMMIT), null);
      assertEquals(indexes.get(3, WRITER_COMMIT), null);
      assertEquals(logged.length, 1, "said once");
      assert(logged[0].includes("cannot be read: refused"), logged[0]);
    }
    const logged: string[] = [];
    const indexes = new ScipIndexes(data, { log: (line) => logged.push(line) });
    indexes.put(3, writerIndex("second"));
    assertEquals(indexes.get(3, WRITER_COMMIT)?.source.tool, "second", "an upload replaces it");
    assertEquals(logged, []);
  }));

Deno.test("SCIP store: SIGKILL mid-write leaves one whole index; leftovers are never listed", () =>
  withData(async (data) => {
    const first = writerIndex("first");
    const second = writerIndex("second");
    new ScipIndexes(data).put(1, first); // a kill before the writer's first write leaves this one
    // The two indexes the writer stores in turn, as repositories 1 and 2 of another folder.
    const source = join(data, "writer_source");
    new ScipIndexes(source).put(1, first);
    new ScipIndexes(source).put(2, second);
    for (let round = 0; round < 12; round++) {
      const writer = spawnHelper("scip_writer.ts", [data, source], {
        read: [data, Deno.cwd()],
        write: [data],
        sys: ["uid"],
      });
      assertEquals(await readLine(writer), "writing");
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 60));
      writer.kill("SIGKILL");
      await writer.status;
      await writer.stderr.cancel();
      const stored = new ScipIndexes(data).get(1, WRITER_COMMIT);
      assert(
        isDeepStrictEqual(stored, first) || isDeepStrictEqual(stored, second),
        `round ${round}: not one whole index`,
      );
      assertEquals([...new ScipIndexes(data).commits(1).keys()], [WRITER_COMMIT]);
    }
    new ScipIndexes(data).put(1, first);
    assertEquals(fs.readdirSync(new ScipIndexes(data).folder(1)), [`${WRITER_COMMIT}.json`]);
  }));
