import { compileSearch } from "../../../../sourcegraph/search/query/compiled_search.ts";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { PathScope } from "../../../../sourcegraph/access/path_scope.ts";
import {
  INDEX_FORMAT,
  IndexDatabase,
} from "../../../../sourcegraph/search/index/index_database.ts";
import { MAX_SEGMENTS } from "../../../../sourcegraph/search/build/segment_merge.ts";
import { indexPath, SearchIndexes } from "../../../../sourcegraph/search/search_indexes.ts";
import { SharedSearches } from "../../../../sourcegraph/search/shared_searches.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";
import { mirrorFor, testRecord } from "../../../support/index_world.ts";
import { inProcessBuilder } from "../../../support/in_process_builder.ts";

const REPO = testRecord(7, { name: "org/life" });
// The index's life is the same whichever runs the builds: these build in the test process
// (the builder process's own heap bound is tested below, on a builder process).
const launchBuilder = inProcessBuilder;

Deno.test("index lifecycle: shared blobs, one new blob per changed file, prune and GC, merges, delete, damage", async () => {
  const parent = await tempDir("sg-index-life-");
  try {
    const files = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`f${i}.txt`, `common text ${i}\nunique${i}word\n`]),
    );
    const source = await createRepo(files, { parent, name: "source" });
    const commits = [await source.git("rev-parse", "HEAD")];
    for (let i = 1; i <= MAX_SEGMENTS + 3; i++) {
      await source.write({ [`f${i}.txt`]: `common text ${i}\nchanged${i}version\n` });
      commits.push(await source.commit(`change ${i}`));
    }
    const data = join(parent, "data");
    const { mirrors } = await mirrorFor(source.path, { data, repo: REPO });
    const log: string[] = [];
    let indexes = new SearchIndexes(data, {
      enabled: true,
      mirrors,
      log: (line) => log.push(line),
      launchBuilder,
    });
    const search = async (pattern: string, commit: string) => {
      const searches = new SharedSearches(mirrors, { indexes });
      const outcome = await searches.search(REPO, {
        search: compileSearch({ pattern }),
        commit,
        scope: new PathScope(REPO),
      });
      return { index: outcome.index, files: outcome.files.map((file) => file.path) };
    };
    try {
      await indexes.schedule(REPO, [commits[0]]);
      assert(log.some((line) => line.includes("50 files, 50 new blobs")), log.join("\n"));
      await indexes.schedule(REPO, [commits[1], commits[0]]);
      assert(log.some((line) => line.includes("50 files, 1 new blobs")), log.join("\n"));
      assertEquals(await search("unique1word", commits[0]), { index: "ready", files: ["f1.txt"] });
      assertEquals(await search("unique1word", commits[1]), { index: "ready", files: [] });
      assertEquals(await search("changed1version", commits[1]), {
        index: "ready",
        files: ["f1.txt"],
      });
      // Every later commit: one new blob each, and small segments merged as they pile up.
      await indexes.schedule(REPO, [...commits].reverse());
      const db = new IndexDatabase(indexPath(data, REPO));
      const count = (sql: string) => (db.db.prepare(sql).get() as { n: number }).n;
      try {
        assertEquals(count("SELECT COUNT(*) AS n FROM commits"), commits.length);
        assertEquals(count("SELECT COUNT(*) AS n FROM blobs"), 50 + commits.length - 1);
        assert(count("SELECT COUNT(*) AS n FROM segments") <= MAX_SEGMENTS, "segments merged");
      } finally {
        db.close();
      }
      for (let i = 1; i < commits.length; i++) {
        assertEquals((await search(`changed${i}version`, commits.at(-1)!)).files, [`f${i}.txt`]);
      }
      // Retention lets the first commit go: its mapping and its only-used blob go with it.
      await indexes.schedule(REPO, commits.slice(1).reverse());
      assert(log.some((line) => line.includes("dropped 1 pruned version")), log.join("\n"));
      assertEquals((await search("unique1word", commits[0])).index, "not_ready");
      const after = new IndexDatabase(indexPath(data, REPO));
      try {
        const blobs =
          (after.db.prepare("SELECT COUNT(*) AS n FROM blobs").get() as { n: number }).n;
        assertEquals(blobs, 50 + commits.length - 2, "the blob only the first commit used is gone");
      } finally {
        after.close();
      }
      // A damaged file is logged and rebuilt from the mirror, never read.
      await indexes.close();
      for (const suffix of ["-wal", "-shm"]) {
        await Deno.remove(indexPath(data, REPO) + suffix).catch(() => {});
      }
      await Deno.writeTextFile(indexPath(data, REPO), "not a database ".repeat(100));
      indexes = new SearchIndexes(data, {
        enabled: true,
        mirrors,
        log: (line) => log.push(line),
        launchBuilder,
      });
      assertEquals((await search("changed2version", commits.at(-1)!)).index, "not_ready");
      await indexes.schedule(REPO, [commits.at(-1)!]);
      assert(log.some((line) => line.includes("rebuilding it from the mirror")), log.join("\n"));
      assertEquals(await search("changed2version", commits.at(-1)!), {
        index: "ready",
        files: ["f2.txt"],
      });
      // Deleting the repository deletes its index.
      await indexes.remove(REPO);
      assert(!(await exists(indexPath(data, REPO))), "the index file is deleted");
      assertEquals((await search("changed2version", commits.at(-1)!)).index, "not_ready");
    } finally {
      await indexes.close();
      await mirrors.close();
    }
  } finally {
    await removeDir(parent);
  }
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("index format: a file of the previous format is never read, and is rebuilt", async () => {
  const parent = await tempDir("sg-index-format-");
  try {
    const source = await createRepo({ "a.txt": "formatword\n" }, { parent, name: "source" });
    const commit = await source.git("rev-parse", "HEAD");
    const data = join(parent, "data");
    const { mirrors } = await mirrorFor(source.path, { data, repo: REPO });
    await Deno.mkdir(join(data, "search_index"), { recursive: true });
    // The layout of format 1: texts per blob and commit rows with their paths inline.
    const old = new DatabaseSync(indexPath(data, REPO));
    old.exec(`
      CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO meta VALUES ('format', '1');
      CREATE TABLE commits(commit_id TEXT PRIMARY KEY, files INTEGER, paths BLOB, blob_ids BLOB);
      INSERT INTO commits VALUES ('${commit}', 1, x'', x'');
    `);
    old.close();
    const log: string[] = [];
    const indexes = new SearchIndexes(data, {
      enabled: true,
      mirrors,
      log: (l) => log.push(l),
      launchBuilder,
    });
    const searches = new SharedSearches(mirrors, { indexes });
    const search = () =>
      searches.search(REPO, {
        search: compileSearch({ pattern: "formatword" }),
        commit,
        scope: new PathScope(REPO),
      });
    try {
      const before = await search();
      assertEquals([before.index, before.fileCount], ["not_ready", 1]);
      await indexes.schedule(REPO, [commit]);
      assert(
        log.some((line) =>
          line.includes(`has format 1, not ${INDEX_FORMAT}; rebuilding it from the mirror`)
        ),
        log.join("\n"),
      );
      const after = await search();
      assertEquals([after.index, after.files.map((file) => file.path)], ["ready", ["a.txt"]]);
    } finally {
      await indexes.close();
      await mirrors.close();
    }
  } finally {
    await removeDir(parent);
  }
});

Deno.test("index builder: a heap bound the service runs under (DENO_V8_FLAGS) never reaches the builder", async () => {
  const parent = await tempDir("sg-index-heap-");
  // A bound no builder starts under (it dies loading its modules); the builder
  // inherits this process's environment, and its own bound overrides this one.
  Deno.env.set("DENO_V8_FLAGS", "--max-old-space-size=2");
  try {
    const source = await createRepo({ "a.ts": "export function heapWord() {}\n" }, {
      parent,
      name: "source",
    });
    const commit = await source.git("rev-parse", "HEAD");
    const data = join(parent, "data");
    const { mirrors } = await mirrorFor(source.path, { data, repo: REPO });
    const log: string[] = [];
    const indexes = new SearchIndexes(data, { enabled: true, mirrors, log: (l) => log.push(l) });
    try {
      await indexes.schedule(REPO, [commit]);
      assert(log.some((line) => line.includes(": 1 files, 1 new blobs")), log.join("\n"));
      assert(indexes.commit(REPO, commit) !== null, "the commit is indexed");
    } finally {
      await indexes.close();
      await mirrors.close();
    }
  } finally {
    Deno.env.delete("DENO_V8_FLAGS");
    await removeDir(parent);
  }
});
