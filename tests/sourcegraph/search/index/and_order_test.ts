/**
 * An AND of trigrams reads its shortest list first and decodes each longer
 * one only within what is left, stopping once nothing is: a rare literal
 * made of common trigrams keeps few postings, a literal with a trigram no
 * file holds keeps none, and both find exactly the files they found when
 * every list was decoded whole.
 */

import { join } from "node:path";
import { buildCommitIndex } from "../../../../sourcegraph/search/build/index_builder.ts";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";
import {
  IndexedCommit,
  type ReaderVisits,
} from "../../../../sourcegraph/search/index/index_reader.ts";
import { TrigramCollector } from "../../../../sourcegraph/search/index/trigrams.ts";
import {
  compileSearch,
  type SearchRequest,
} from "../../../../sourcegraph/search/query/compiled_search.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";

// 120 files holding `common words` (each its own line), one also holding `commonx`.
function tree(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let f = 0; f < 120; f++) files[`src/f${f}.txt`] = `common words in file ${f}\n`;
  files["src/f7.txt"] += "a commonx here\n";
  return files;
}

function query(
  commit: IndexedCommit,
  request: SearchRequest,
): { paths: string[]; visits: ReaderVisits } {
  const search = compileSearch(request);
  const visits = { postings: 0, files: 0, chunks: 0, statements: 0 };
  const candidates = commit.candidates(search.trigrams, {
    paths: search.pathTrigrams,
    keep: search.keep,
    visits,
  });
  return { paths: candidates.map((candidate) => candidate.path), visits };
}

Deno.test("AND of trigrams: the shortest list first, the others decoded within it, none past an empty one", async () => {
  const parent = await tempDir("sg-and-order-");
  try {
    const repo = await createRepo(tree(), { parent, name: "repo" });
    const head = await repo.git("rev-parse", "HEAD");
    const index = new IndexDatabase(join(parent, "index.sqlite3"));
    await buildCommitIndex(index, {
      mirror: repo.path,
      commit: head,
      collector: new TrigramCollector(),
      chunkUnits: 256,
    });
    const commit = IndexedCommit.open(index, head)!;
    // `com`, `omm`, `mmo`, `mon` are in every file, `onx` in one: read first, it leaves one
    // chunk, and each common list keeps only that one (whole, they are 120 postings each).
    const rare = query(commit, { pattern: "commonx", fixedStrings: true });
    assertEquals(rare.paths, ["src/f7.txt"]);
    assertEquals(rare.visits.postings, 5);
    // `nzq` is in no file: nothing past it is read, whatever its place in the literal.
    const absent = query(commit, { pattern: "common words nzq", fixedStrings: true });
    assertEquals(absent.paths, []);
    assertEquals(absent.visits.postings, 0);
    // Every count of a query in one statement, and no list read for a trigram no list holds:
    // an absent literal costs one statement however many trigrams it has; `commonx` reads its
    // counts, then the five lists.
    assertEquals(absent.visits.statements, 1);
    assertEquals(rare.visits.statements, 1 + 5);
    // A common literal still finds every file holding it.
    const common = query(commit, { pattern: "common words", fixedStrings: true });
    assertEquals(common.paths.length, 120);
    assert(common.visits.postings >= 120, JSON.stringify(common.visits));
    index.close();
  } finally {
    await removeDir(parent);
  }
});
