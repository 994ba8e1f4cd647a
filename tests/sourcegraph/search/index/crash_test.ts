import { compileSearch } from "../../../../sourcegraph/search/query/compiled_search.ts";
import { join } from "node:path";
import { PathScope } from "../../../../sourcegraph/access/path_scope.ts";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";
import { indexPath, SearchIndexes } from "../../../../sourcegraph/search/search_indexes.ts";
import { SharedSearches } from "../../../../sourcegraph/search/shared_searches.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";
import { mirrorFor, testRecord } from "../../../support/index_world.ts";
import { inProcessBuilder } from "../../../support/in_process_builder.ts";
import { readLine, spawnHelper } from "../../../support/processes.ts";
import type { IndexedCommit } from "../../../../sourcegraph/search/index/index_reader.ts";
import { searchSymbols } from "../../../../sourcegraph/search/symbol_search.ts";
import { EXTRACTION_WORKER_MODULES } from "../../../../sourcegraph/search/build/symbol_extraction.ts";

const REPO = testRecord(3, { name: "org/crash" });
const QUERIES = ["alpha17", "word\\d+x", "beta(3|9)9", "zzz-none"];

Deno.test("index crash safety: SIGKILL at 12 points of a build (postings written in segments as it goes) never leaves a half-built commit in use", async () => {
  const parent = await tempDir("sg-index-crash-");
  try {
    // Each definition in a Python file of its own, the text the queries find beside it in a
    // text file: the same writes, without each build parsing 10,000 comment lines for symbols.
    const files = Object.fromEntries(
      Array.from({ length: 160 }, (_, i) => [
        [`d${i % 7}/f${i}.py`, `def fn${i}():\n    pass\n`],
        [
          `d${i % 7}/f${i}.txt`,
          Array.from({ length: 60 }, (_, j) => `# alpha${(i * j) % 97} word${j}x beta${i}${j % 10}`)
            .join("\n") + "\n",
        ],
      ]).flat(),
    );
    const source = await createRepo(files, { parent, name: "source" });
    const commit = await source.git("rev-parse", "HEAD");
    const data = join(parent, "data");
    await Deno.mkdir(join(data, "search_index"), { recursive: true });
    const { mirror, mirrors } = await mirrorFor(source.path, { data, repo: REPO, packed: true });
    const path = indexPath(data, REPO);
    const plain = new SharedSearches(mirrors, {
      indexes: new SearchIndexes(data, { enabled: false, mirrors, log: () => {} }),
    });
    // The definitions of a commit's index: every file's function, or nothing while it is not indexed.
    const definitions = (indexed: IndexedCommit) =>
      searchSymbols(indexed, { query: "^fn\\d+$", match: "regex" }).symbols.length;
    const answers = async (searches: SharedSearches) => {
      const out: string[] = [];
      for (const pattern of QUERIES) {
        const found = await searches.search(REPO, {
          search: compileSearch({ pattern }),
          commit,
          scope: new PathScope(REPO),
        });
        out.push(JSON.stringify([found.fileCount, found.matchCount, found.files]));
      }
      return out;
    };
    const expected = await answers(plain);
    const build = (file: string) =>
      // Batches of 4 KiB of text (about two files) make many writes of a small corpus; postings
      // are written as segments of their own every 8 KiB: kills land between those too.
      spawnHelper("index_build_child.ts", [mirror, commit, file, "4096", "8192"], {
        read: [data, ...EXTRACTION_WORKER_MODULES],
        write: [join(data, "search_index")],
        run: ["git"],
        env: ["PATH"],
      });
    // A build run to its end says how many writes it makes (the last one publishes).
    const dry = build(join(data, "search_index", "dry.sqlite3"));
    let writes = 0;
    for (let line = await readLine(dry); line !== "done"; line = await readLine(dry)) {
      assertEquals(line, "batch");
      writes++;
    }
    await dry.status;
    await dry.stdout.cancel().catch(() => {});
    await dry.stderr.cancel().catch(() => {});
    assert(writes >= 20, `${writes} writes`);
    // Kill points spread over the whole build: staging, right after publishing, merging.
    const points = [0, 1, 2, 3, 5, 8, 13].map((k) =>
      Math.min(k * Math.ceil(writes / 13), writes - 1)
    )
      .concat([writes - 1, writes, writes, writes, writes]);
    let killedBeforeDone = 0;
    let checked = 0;
    try {
      for (const [point, after] of points.entries()) {
        if (point > 8) {
          // Start from nothing again so the publish itself is near the kill.
          for (const suffix of ["", "-wal", "-shm"]) {
            await Deno.remove(path + suffix).catch(() => {});
          }
        }
        const child = build(path);
        let line: string | null = "";
        for (let seen = 0; seen < after && line !== null && line !== "done"; seen++) {
          line = await readLine(child);
        }
        try {
          child.kill("SIGKILL");
        } catch {
          // already finished
        }
        if ((await child.status).signal === "SIGKILL") killedBeforeDone++;
        await child.stdout.cancel().catch(() => {});
        await child.stderr.cancel().catch(() => {});
        // Whatever was written: the commit is fully indexed and right, or not indexed at all.
        const indexes = new SearchIndexes(data, { enabled: true, mirrors, log: () => {} });
        const indexed = indexes.commit(REPO, commit);
        if (indexed !== null) {
          checked++;
          assertEquals(definitions(indexed), 160, `point ${point}: every definition`);
          assertEquals(
            await answers(new SharedSearches(mirrors, { indexes })),
            expected,
            `point ${point}`,
          );
        }
        await indexes.close();
        const db = new IndexDatabase(path);
        db.close();
      }
      assert(killedBeforeDone >= 10, `only ${killedBeforeDone} kills landed before the end`);
      assert(checked >= 2, "some kills landed after the commit was published");
      // The next build (the builder's, run in the test process) finishes what the killed ones
      // left and answers the same.
      const indexes = new SearchIndexes(data, {
        enabled: true,
        mirrors,
        log: () => {},
        launchBuilder: inProcessBuilder,
      });
      await indexes.schedule(REPO, [commit]);
      assert(indexes.commit(REPO, commit) !== null);
      assertEquals(await answers(new SharedSearches(mirrors, { indexes })), expected);
      assertEquals(definitions(indexes.commit(REPO, commit)!), 160);
      // No symbol is left of the blobs the killed builds staged and never published.
      const db = new IndexDatabase(path);
      const orphans = db.db.prepare(
        "SELECT COUNT(*) AS n FROM symbols WHERE blob NOT IN (SELECT id FROM blobs WHERE indexed = 1)",
      ).get() as { n: number };
      // Nor any posting a killed build wrote and never published: as many as one whole build wrote.
      const postings = (file: IndexDatabase) =>
        (file.db.prepare("SELECT SUM(count) AS n FROM postings").get() as { n: number }).n;
      const whole = new IndexDatabase(join(data, "search_index", "dry.sqlite3"));
      const counts = [postings(db), postings(whole)];
      whole.close();
      db.close();
      assertEquals(orphans.n, 0);
      assertEquals(counts[0], counts[1]);
      await indexes.close();
    } finally {
      await mirrors.close();
    }
  } finally {
    await removeDir(parent);
  }
});
