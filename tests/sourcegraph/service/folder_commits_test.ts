/**
 * The cache of the listings' latest commits: an answer asked again is
 * answered from it, the newest kept, and it holds no more entries than its
 * bound (the oldest answers dropped first).
 */

import { assertEquals } from "../../support/assert.ts";
import {
  type FolderCommits,
  FolderCommitsCache,
} from "../../../sourcegraph/service/folder_commits.ts";

function answer(entries: number): FolderCommits {
  const commit = { commit: "a".repeat(40), authorDate: "2026-01-01T00:00:00Z", subject: "s" };
  return {
    commit: "a".repeat(40),
    path: "",
    commits: Object.fromEntries(Array.from({ length: entries }, (_, i) => [`f${i}`, commit])),
    cut: null,
  };
}

Deno.test("folder commits cache: bounded by entries, the least recently asked dropped first", () => {
  const cache = new FolderCommitsCache(25);
  cache.set("one", answer(9));
  cache.set("two", answer(9));
  assertEquals(cache.get("one")?.commits.f0.subject, "s"); // "one" is now the newest
  cache.set("three", answer(9));
  assertEquals(cache.get("two"), undefined);
  assertEquals(Object.keys(cache.get("one")!.commits).length, 9);
  assertEquals(Object.keys(cache.get("three")!.commits).length, 9);
  cache.set("huge", answer(30)); // over the whole bound: not kept, nothing dropped for it
  assertEquals(cache.get("huge"), undefined);
  assertEquals(cache.get("one") !== undefined, true);
  assertEquals(cache.counts.hits, 4);
});
