/**
 * What a search that finds nothing costs for its explanation: the files in
 * its scope are counted from the commit's file list once per scope (no
 * chunk list is built, hidden files are never walked), the files holding its
 * literals are its own candidates, and the ignore-case check stops at the
 * first file that confirms it instead of verifying every candidate again.
 */

import { join } from "node:path";
import { buildCommitIndex } from "../../../sourcegraph/search/build/index_builder.ts";
import { IndexDatabase } from "../../../sourcegraph/search/index/index_database.ts";
import { CHUNK_BATCH, IndexedCommit } from "../../../sourcegraph/search/index/index_reader.ts";
import { TrigramCollector } from "../../../sourcegraph/search/index/trigrams.ts";
import {
  compileSearch,
  type SearchRequest,
} from "../../../sourcegraph/search/query/compiled_search.ts";
import { searchCommit } from "../../../sourcegraph/search/code_search.ts";
import { MirrorObjects } from "../../../sourcegraph/git/mirror_objects.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";

async function indexed(
  parent: string,
  name: string,
  files: Record<string, string | Uint8Array>,
): Promise<{ commit: IndexedCommit; head: string; mirror: string }> {
  const repo = await createRepo(files, { parent, name });
  const head = await repo.git("rev-parse", "HEAD");
  const index = new IndexDatabase(join(parent, `${name}.sqlite3`));
  await buildCommitIndex(index, {
    mirror: repo.path,
    commit: head,
    collector: new TrigramCollector(),
    chunkUnits: 256,
  });
  return { commit: IndexedCommit.open(index, head)!, head, mirror: repo.path };
}

// Text files under src/ and docs/, one binary file, and `hidden` files under private/.
function tree(hidden: string): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = {
    "assets/logo.bin": new Uint8Array([0, 1, 2, 3]),
    "docs/public/guide.md": "The public guide.\n",
    "docs/public/notes.md": "Notes.\n",
  };
  for (let f = 0; f < 12; f++) files[`src/part${f}.ts`] = `export const part${f} = ${f};\n`;
  for (let f = 0; f < 30; f++) files[`private/f${f}.txt`] = `${hidden} in private file ${f}\n`;
  return files;
}

// The scope a search hands the reader, keyed as the search keys it.
function scopeOf(request: SearchRequest) {
  const search = compileSearch(request);
  return {
    paths: search.pathTrigrams,
    keep: search.keep,
    groups: search.groups,
    key: JSON.stringify([search.paths, search.globs, search.groups]),
  };
}

Deno.test("zero results: files in scope are those of every-file candidates, counted once per scope", async () => {
  const parent = await tempDir("sg-zero-cost-");
  try {
    const { commit } = await indexed(parent, "repo", tree("secretvalue"));
    const requests: SearchRequest[] = [
      { pattern: "absent" },
      { pattern: "absent", glob: ["*.md"] },
      { pattern: "absent", paths: ["src"] },
      { pattern: "absent", paths: ["lib"] },
      { pattern: "absent", groups: ["docs/public"] },
      { pattern: "absent", groups: ["docs/public"], glob: ["guide*"] },
    ];
    for (const request of requests) {
      const scope = scopeOf(request);
      const expected = commit.candidates({ op: "all" }, scope).length;
      const first = { postings: 0, files: 0, chunks: 0 };
      assertEquals(commit.filesInScope({ ...scope, visits: first }), expected, scope.key);
      assertEquals(first.chunks, 0, "no chunk list is built");
      assertEquals(
        first.files,
        request.groups ? commit.filesWithin(request.groups) : commit.fileCount,
        `${scope.key}: only the visible files are walked`,
      );
      const again = { postings: 0, files: 0, chunks: 0 };
      assertEquals(commit.filesInScope({ ...scope, visits: again }), expected);
      assertEquals(again, { postings: 0, files: 0, chunks: 0 }, `${scope.key}: counted once`);
    }
    // 30 text files in private/, 12 in src/, 2 in docs/public (the binary is not text).
    assertEquals(commit.filesInScope(scopeOf({ pattern: "x" })), 44);
    assertEquals(commit.filesInScope(scopeOf({ pattern: "x", paths: ["src"] })), 12);
    assertEquals(commit.filesInScope(scopeOf({ pattern: "x", groups: ["docs/public"] })), 2);
  } finally {
    await removeDir(parent);
  }
});

Deno.test("zero results: under path groups the explanation costs the same whatever hidden files hold", async () => {
  const parent = await tempDir("sg-zero-cost-");
  try {
    const big = await indexed(parent, "big", tree("NEEDLEXYZ secretvalue"));
    const clean = await indexed(parent, "clean", tree("NEEDLEXYZ othervalue1"));
    const answers = [];
    for (const { commit, head, mirror } of [big, clean]) {
      const visits = { postings: 0, files: 0, chunks: 0 };
      const search = compileSearch({ pattern: "secretvalue", groups: ["docs/public"] });
      const count = commit.filesInScope({ ...scopeOf(search.request), visits });
      const outcome = await searchCommit(new MirrorObjects(mirror), {
        search,
        commit: head,
        index: commit,
      });
      answers.push({ count, visits, narrowing: outcome.narrowing });
    }
    assertEquals(answers[0], answers[1]);
    assertEquals(answers[0].narrowing, {
      filesAtCommit: 2,
      inScope: 2,
      holdingTrigrams: 0,
      ignoreCaseMatches: null,
    });
  } finally {
    await removeDir(parent);
  }
});

Deno.test("zero results: the ignore-case check stops at the first file that confirms it", async () => {
  const parent = await tempDir("sg-zero-cost-");
  try {
    const files: Record<string, string> = {};
    const count = 4 * CHUNK_BATCH;
    for (let f = 0; f < count; f++) {
      files[`src/f${String(f).padStart(3, "0")}.ts`] =
        `const reader${f} = new StreamReader(${f});\n`;
    }
    const { commit, head, mirror } = await indexed(parent, "repo", files);
    let read = 0;
    const chunkTexts = commit.chunkTexts.bind(commit);
    commit.chunkTexts = (ids) => {
      read += ids.length;
      return chunkTexts(ids);
    };
    const outcome = await searchCommit(new MirrorObjects(mirror), {
      search: compileSearch({ pattern: "STREAMREADER" }),
      commit: head,
      index: commit,
    });
    // The search itself reads every candidate's chunk once; the check a batch or two more.
    assert(read >= count, `${read} chunks read`);
    assert(read <= count + 2 * CHUNK_BATCH, `${read} chunks read for ${count} candidates`);
    assertEquals(outcome.fileCount, 0);
    assertEquals(outcome.narrowing, {
      filesAtCommit: count,
      inScope: count,
      holdingTrigrams: count,
      ignoreCaseMatches: true,
    });
  } finally {
    await removeDir(parent);
  }
});
