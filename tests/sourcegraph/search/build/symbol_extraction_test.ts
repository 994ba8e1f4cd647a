/**
 * The build's symbol extraction, in workers and on the calling thread (as on
 * one core): every file submitted comes back, whatever its size, including
 * an empty first file (which once started no worker and left the build
 * waiting for ever), and a build of a repository whose first file of a
 * symbol language is empty publishes its symbols.
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
