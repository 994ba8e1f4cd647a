/**
 * The cache of Git's blames, histories and commits' listings: a repeated
 * blame or history of the same commit, path and range, or listing of the
 * same commit and pathspecs, answers as the first did without running Git
 * (the repository moved away, the answer still comes); another range,
 * pathspec or commit runs Git again; the cache stays within its byte bound, dropping the
 * least recently used answers first and never keeping an outsized one; a
 * failure is not kept.
 */

import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { GitAnswerCache } from "../../../sourcegraph/git/answer_cache.ts";
import { blameLines } from "../../../sourcegraph/git/file_blame.ts";
import { commitPaths } from "../../../sourcegraph/git/commit_paths.ts";
import { pathHistory } from "../../../sourcegraph/git/path_history.ts";

Deno.test("answer cache: a repeated blame or history runs no Git, another one does", async () => {
  const parent = await tempDir("sg-answers-");
  try {
    const repo = await createRepo({ "a.txt": "one\ntwo\nthree\n" }, { parent });
    await repo.write({ "a.txt": "one\n2\nthree\n" });
    const head = await repo.commit("second");
    const cache = new GitAnswerCache();
    const blame = (at: string, start: number, end: number) =>
      blameLines(at, { commit: head, path: "a.txt", start, end, ignoreRevs: [], cache });
    const history = (at: string, count: number) =>
      pathHistory(at, {
        commit: head,
        target: { kind: "lines", path: "a.txt", start: 2, end: 2 },
        skip: 0,
        count,
        cache,
      });
    const blamed = await blame(repo.path, 1, 3);
    const listed = await history(repo.path, 5);
    assertEquals(blamed.lines.length, 3);
    assertEquals(listed.length, 2);
    assertEquals(cache.counts, { hits: 0, misses: 2 });
    // The repository is gone: the same questions are answered from the cache alone.
    const moved = join(parent, "moved");
    await Deno.rename(repo.path, moved);
    assertEquals(await blame(repo.path, 1, 3), blamed);
    assertEquals(await history(repo.path, 5), listed);
    assertEquals(cache.counts, { hits: 2, misses: 2 });
    // A kept answer is a copy: changing what was returned changes nothing kept.
    (await blame(repo.path, 1, 3)).lines.pop();
    assertEquals((await blame(repo.path, 1, 3)).lines.length, 3);
    // Another range or count asks Git, which fails here, and the failure is not kept.
    await assertRejects(() => blame(repo.path, 1, 2), Error);
    await assertRejects(() => history(repo.path, 6), Error);
    await Deno.rename(moved, repo.path);
    assertEquals((await blame(repo.path, 1, 2)).lines.length, 2);
    assertEquals((await history(repo.path, 6)).length, 2);
  } finally {
    await removeDir(parent);
  }
});

Deno.test("answer cache: a repeated listing of a commit runs no Git, another pathspec does", async () => {
  const parent = await tempDir("sg-answers-");
  try {
    const repo = await createRepo({ "a.txt": "a\n", "d/b.txt": "b\n", "e/c.txt": "c\n" }, {
      parent,
    });
    const head = await repo.commit("files");
    const cache = new GitAnswerCache();
    const list = (at: string, pathspecs?: string[]) =>
      commitPaths(at, { commit: head, pathspecs, cache });
    assertEquals(await list(repo.path), ["a.txt", "d/b.txt", "e/c.txt"]);
    assertEquals(await list(repo.path, ["d"]), ["d/b.txt"]);
    assertEquals(cache.counts, { hits: 0, misses: 2 });
    const moved = join(parent, "moved");
    await Deno.rename(repo.path, moved);
    assertEquals(await list(repo.path), ["a.txt", "d/b.txt", "e/c.txt"]);
    assertEquals(await list(repo.path, ["d"]), ["d/b.txt"]);
    assertEquals(cache.counts, { hits: 2, misses: 2 });
    // A kept listing is a copy; another pathspec asks Git, which fails here.
    (await list(repo.path)).pop();
    assertEquals((await list(repo.path)).length, 3);
    await assertRejects(() => list(repo.path, ["e"]), Error);
  } finally {
    await removeDir(parent);
  }
});

Deno.test("answer cache: within its byte bound, least recently used dropped first", () => {
  const cache = new GitAnswerCache(64 * 1024);
  const value = (i: number) => ({ text: String(i).padEnd(1000, "x") });
  for (let i = 0; i < 100; i++) {
    cache.set(`k${i}`, value(i));
    if (i === 10) assertEquals(cache.get(`k0`), value(0)); // k0 is now recent
    assert(cache.bytes <= 64 * 1024, `${cache.bytes} bytes held`);
  }
  assertEquals(cache.get("k99"), value(99));
  assertEquals(cache.get("k1"), undefined);
  // An answer over an eighth of the bound is never kept.
  cache.set("huge", { text: "y".repeat(8 * 1024) });
  assertEquals(cache.get("huge"), undefined);
  // Replacing a key keeps one copy's bytes.
  const before = cache.bytes;
  cache.set("k99", value(99));
  assertEquals(cache.bytes, before);
});
