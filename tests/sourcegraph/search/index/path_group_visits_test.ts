/**
 * Under path groups the index is queried over the visible files only: the
 * postings kept, the files walked and the chunks tested for a text held
 * only by hidden files are exactly those for the same text held nowhere (two
 * repositories with the same visible files, one whose hidden files hold the
 * text and one whose hidden files do not), so the time a search takes says
 * nothing about hidden files. The candidates themselves are those of the
 * whole commit that the groups keep.
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
  type CompiledSearch,
  compileSearch,
  type SearchRequest,
} from "../../../../sourcegraph/search/query/compiled_search.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";

const VISIBLE = {
  "docs/public/guide.md": "The public guide: set the value here.\nSecrets live elsewhere.\n",
  "docs/public/notes.md": "Notes with a retval and a secret word.\n".repeat(40),
};

// Hidden files whose every line holds `word` (each line its own, so no chunk is shared).
function hidden(word: string): Record<string, string> {
  return Object.fromEntries(
    Array.from({ length: 40 }, (_, f) => [
      `docs/private/f${f}.txt`,
      Array.from({ length: 60 }, (_, l) => `NEEDLEXYZ ${word} in file ${f} line ${l}`).join("\n") +
      "\n",
    ]),
  );
}

async function indexed(parent: string, name: string, word: string): Promise<IndexedCommit> {
  const repo = await createRepo({ ...VISIBLE, ...hidden(word) }, { parent, name });
  const commit = await repo.git("rev-parse", "HEAD");
  const index = new IndexDatabase(join(parent, `${name}.sqlite3`));
  await buildCommitIndex(index, {
    mirror: repo.path,
    commit,
    collector: new TrigramCollector(),
    chunkUnits: 256,
  });
  return IndexedCommit.open(index, commit)!;
}

// A search's candidates under the groups, as a search hands them to the reader, with its visits.
function query(
  commit: IndexedCommit,
  request: SearchRequest,
): { paths: string[]; visits: ReaderVisits } {
  const search: CompiledSearch = compileSearch({ groups: ["docs/public"], ...request });
  const visits = { postings: 0, files: 0, chunks: 0 };
  const candidates = commit.candidates(search.trigrams, {
    paths: search.pathTrigrams,
    keep: search.keep,
    groups: search.groups,
    visits,
  });
  return { paths: candidates.map((candidate) => candidate.path), visits };
}

Deno.test("path groups: a text held only by hidden files costs the index what a text held nowhere costs", async () => {
  const parent = await tempDir("sg-visits-");
  try {
    const big = await indexed(parent, "big", "secretvalue");
    const clean = await indexed(parent, "clean", "othervalue1");
    // Every scope a search hands the reader: the paths narrowed to the groups
    // as the service does, or not narrowed (only the groups keep), with and
    // without case, as a literal and as a pattern, content or files.
    const requests: SearchRequest[] = [
      { pattern: "secretvalue", paths: ["docs/public"] },
      { pattern: "secretvalue" },
      { pattern: "SECRETVALUE", ignoreCase: true, paths: ["docs/public"] },
      { pattern: "secretvalue", ignoreCase: true },
      { pattern: "NEEDLEXYZ secret", fixedStrings: true, paths: ["docs/public"] },
      { pattern: "secret(value|word)", output: "files", paths: ["docs/public"] },
    ];
    for (const request of requests) {
      const inBig = query(big, request);
      const inClean = query(clean, request);
      // The same visible candidates (a visible chunk may hold the trigrams), the same work.
      assertEquals(inBig, inClean, JSON.stringify(request));
    }
    // A text held nowhere at all: the same work again in both.
    assertEquals(
      query(big, { pattern: "zqxjkwvbnmp" }).visits,
      query(clean, { pattern: "zqxjkwvbnmp" }).visits,
    );
    // The counts are real: a visible text is found and its work counted.
    const visible = query(big, { pattern: "retval", paths: ["docs/public"] });
    assertEquals(visible.paths, ["docs/public/notes.md"]);
    assert(visible.visits.postings > 0 && visible.visits.files === 1, JSON.stringify(visible));
    assert(visible.visits.chunks > 1, JSON.stringify(visible));
  } finally {
    await removeDir(parent);
  }
});

Deno.test("path groups: the visible files' candidates are those of the whole commit that the groups keep", async () => {
  const parent = await tempDir("sg-visits-");
  try {
    const big = await indexed(parent, "big", "secretvalue");
    for (
      const pattern of ["secret", "value", "NEEDLEXYZ", "e", "[sv]e[a-z]+", "line 1\\d", "Notes"]
    ) {
      for (const paths of [undefined, ["docs/public"], ["docs"]]) {
        const search = compileSearch({ pattern, paths, groups: ["docs/public"] });
        const whole = big.candidates(search.trigrams, {
          paths: search.pathTrigrams,
          keep: search.keep,
        });
        const scoped = big.candidates(search.trigrams, {
          paths: search.pathTrigrams,
          keep: search.keep,
          groups: search.groups,
        });
        assertEquals(scoped, whole, `${pattern} ${JSON.stringify(paths)}`);
      }
    }
    // The commit's files under the groups: the visible ones only.
    assertEquals(big.filesWithin(["docs/public"]), 2);
    assertEquals(big.filesWithin([]), 42);
  } finally {
    await removeDir(parent);
  }
});
