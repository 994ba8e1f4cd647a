/**
 * The build's symbol extraction, in workers and on the calling thread (as on
 * one core): every file submitted comes back, whatever its size, including
 * an empty first file (which once started no worker and left the build
 * waiting for ever), a build of a repository whose first file of a
 * symbol language is empty publishes its symbols, and a build that sent
 * files to workers writes its rows and postings before it waits for them,
 * publishing the same index as a build that extracts on its own thread; a
 * grammar language that has sent little text goes to the worker its first
 * file went to (which alone compiles its tags query), not to the one with
 * the least in flight.
 */

import { join } from "node:path";
import { buildCommitIndex } from "../../../../sourcegraph/search/build/index_builder.ts";
import { SymbolExtraction } from "../../../../sourcegraph/search/build/symbol_extraction.ts";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";
import { TrigramCollector } from "../../../../sourcegraph/search/index/trigrams.ts";
import { assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";

for (const workers of [2, 0]) {
  const where = workers === 0 ? "on the calling thread" : "in workers";
  Deno.test(`symbol extraction ${where}: an empty first file, and every file comes back`, async () => {
    const extraction = new SymbolExtraction({ workers });
    try {
      await extraction.submit(1, "empty.c", "");
      await extraction.submit(2, "one.c", "int one(void) { return 1; }\n");
      await extraction.submit(3, "two.py", "def two():\n    return 2\n");
      const done = await extraction.finish();
      assertEquals(
        done.map((file) => [file.blob, file.extraction.symbols.map((symbol) => symbol.name)])
          .sort(),
        [[2, ["one"]], [3, ["two"]]],
      );
      assertEquals(extraction.outcomes.parsed, 3);
    } finally {
      extraction.close();
    }
  });
}

Deno.test("symbol extraction in workers: a language's first text goes to one worker, not the least loaded", async () => {
  const extraction = new SymbolExtraction({ workers: 2 });
  const large = "export const a = 1;\n".repeat(60_000); // 1.1 MiB: past the pinned bytes
  const c = "int one(void) { return 1; }\n";
  try {
    // Sent without waiting between them, so no worker has answered yet.
    const sent = [
      extraction.submit(1, "one.c", c),
      extraction.submit(2, "a.ts", large), // starts the second worker, the least loaded
      extraction.submit(3, "b.ts", large), // the first worker, now the least loaded
      extraction.submit(4, "two.c", c), // the first worker again, though now the more loaded
    ];
    assertEquals(extraction.inFlight, [c.length + large.length + c.length, large.length]);
    await Promise.all(sent);
    const done = await extraction.finish();
    assertEquals(done.map((file) => file.blob).sort(), [1, 2, 3, 4]);
  } finally {
    extraction.close();
  }
});

for (const workers of [undefined, 0]) {
  const where = workers === 0 ? "on the builder's thread" : "in workers";
  Deno.test(`symbol extraction ${where}: a build whose first C file is empty publishes the others' symbols`, async () => {
    const parent = await tempDir("sg-symbols-empty-");
    const extraction = new SymbolExtraction({ workers });
    try {
      const repo = await createRepo({
        "a_empty.c": "",
        "b.c": "struct point { int x; };\nint area(struct point p) { return p.x; }\n",
      }, { parent, name: "source" });
      const commit = await repo.git("rev-parse", "HEAD");
      const index = new IndexDatabase(join(parent, "index.sqlite3"));
      const stats = await buildCommitIndex(index, {
        mirror: join(repo.path, ".git"),
        commit,
        collector: new TrigramCollector(),
        symbols: extraction,
      });
      assertEquals(stats?.files, 2);
      const names = index.db.prepare(
        "SELECT n.name AS name FROM symbols s JOIN symbol_names n ON n.id = s.name ORDER BY name",
      ).all().map((row) => row.name);
      assertEquals(names, ["area", "point", "x"]);
      index.close();
    } finally {
      extraction.close();
      await removeDir(parent);
    }
  });
}

// An extraction that notes what the index holds when the build waits for it.
class WatchedExtraction extends SymbolExtraction {
  index: IndexDatabase | null = null;
  heldWhenWaited: { blobs: number; segments: number; staged: string | null } | null = null;

  override finish(): ReturnType<SymbolExtraction["finish"]> {
    const db = this.index?.db;
    if (db && this.heldWhenWaited === null) {
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      const staged = db.prepare("SELECT value FROM meta WHERE key = 'staged_segments'").get() as
        | { value: string }
        | undefined;
      this.heldWhenWaited = {
        blobs: count("SELECT COUNT(*) AS n FROM blobs"),
        segments: count("SELECT COUNT(*) AS n FROM segments"),
        staged: staged?.value ?? null,
      };
    }
    return super.finish();
  }
}

Deno.test("symbol extraction: a build with workers writes its rows and postings before it waits for them, and publishes the same index", async () => {
  const parent = await tempDir("sg-symbols-early-");
  const inWorkers = new WatchedExtraction({ workers: 2 });
  const onThread = new WatchedExtraction({ workers: 0 });
  try {
    const repo = await createRepo({
      "a.c": "struct point { int x; };\nint area(struct point p) { return p.x; }\n",
      "b.py": "def two():\n    return 2\n",
      "notes.txt": "plain words\n",
    }, { parent, name: "source" });
    const commit = await repo.git("rev-parse", "HEAD");
    const built = async (file: string, symbols: SymbolExtraction) => {
      const index = new IndexDatabase(join(parent, file));
      if (symbols instanceof WatchedExtraction) symbols.index = index;
      await buildCommitIndex(index, {
        mirror: join(repo.path, ".git"),
        commit,
        collector: new TrigramCollector(),
        symbols,
      });
      const rows = (sql: string) => JSON.stringify(index.db.prepare(sql).all());
      const content = [
        rows("SELECT trigram, segment, count, hex(ids) FROM postings ORDER BY trigram, segment"),
        rows("SELECT id, bytes FROM segments"),
        rows("SELECT id, oid, indexed FROM blobs ORDER BY id"),
        rows(
          "SELECT n.name, s.blob, s.start_line FROM symbols s JOIN symbol_names n ON n.id = s.name " +
            "ORDER BY 1, 2",
        ),
        rows("SELECT key FROM meta WHERE key = 'staged_segments'"),
      ];
      index.close();
      return content;
    };
    const early = await built("workers.sqlite3", inWorkers);
    assertEquals(inWorkers.heldWhenWaited, { blobs: 3, segments: 1, staged: "[1]" });
    assertEquals(early, await built("thread.sqlite3", onThread));
    assertEquals(onThread.heldWhenWaited, { blobs: 0, segments: 0, staged: null });
    assertEquals(early[4], "[]", "publishing took the staged segment in");
  } finally {
    inWorkers.close();
    onThread.close();
    await removeDir(parent);
  }
});
