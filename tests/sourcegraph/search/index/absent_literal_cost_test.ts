/**
 * A literal whose first trigram (the query's parts are in trigram order) no
 * chunk holds costs the index nothing of
 * its other trigrams' posting lists, however long those are: an AND stops
 * reading lists at the first part that leaves no candidate (a search across
 * many repositories asks each one, and most hold none of a rare literal).
 * The candidates are those of reading every list.
 */

import { join } from "node:path";
import { buildCommitIndex } from "../../../../sourcegraph/search/build/index_builder.ts";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";
import { IndexedCommit } from "../../../../sourcegraph/search/index/index_reader.ts";
import { TrigramCollector } from "../../../../sourcegraph/search/index/trigrams.ts";
import { compileSearch } from "../../../../sourcegraph/search/query/compiled_search.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";

// Forty files whose every line holds "common_value_of_the_tree".
const FILES = Object.fromEntries(
  Array.from({ length: 40 }, (_, f) => [
    `src/f${f}.ts`,
    Array.from({ length: 60 }, (_, l) => `const x${l} = common_value_of_the_tree; // ${f}`)
      .join("\n") + "\n",
  ]),
);

function candidates(commit: IndexedCommit, pattern: string): { paths: string[]; postings: number } {
  const search = compileSearch({ pattern, fixedStrings: true });
  const visits = { postings: 0, files: 0, chunks: 0 };
  const found = commit.candidates(search.trigrams, {
    paths: search.pathTrigrams,
    keep: search.keep,
    visits,
  });
  return { paths: found.map((candidate) => candidate.path), postings: visits.postings };
}

Deno.test("index: a literal no chunk holds reads no posting list past the part that leaves nothing", async () => {
  const parent = await tempDir("sg-absent-");
  try {
    const repo = await createRepo({ ...FILES, "src/rare.ts": "0zx_value_of_the_tree\n" }, {
      parent,
      name: "tree",
    });
    const commit = await repo.git("rev-parse", "HEAD");
    const index = new IndexDatabase(join(parent, "index.sqlite3"));
    await buildCommitIndex(index, {
      mirror: repo.path,
      commit,
      collector: new TrigramCollector(),
      chunkUnits: 256,
    });
    const indexed = IndexedCommit.open(index, commit)!;
    // Its trigrams ("_va", "val", ...) are in every chunk.
    const common = candidates(indexed, "common_value_of_the_tree");
    assertEquals(common.paths.length, 40);
    assert(common.postings > 100, `${common.postings} postings for the common literal`);
    // "0zy", its first trigram (a digit sorts first), is nowhere: no other list is read.
    const absent = candidates(indexed, "0zy_value_of_the_tree");
    assertEquals(absent, { paths: [], postings: 0 });
    // Held by one file: that file, its lists all read.
    const rare = candidates(indexed, "0zx_value_of_the_tree");
    assertEquals(rare.paths, ["src/rare.ts"]);
    index.close();
  } finally {
    await removeDir(parent);
  }
});
