/**
 * The first page of a search across repositories ranks them by their best
 * file: past the global caps a repository is searched for its first file
 * only, a repository ranked ahead of the answers already found is searched
 * whole then, and later pages keep the ranked pins.
 */

import { assertEquals } from "../../support/assert.ts";
import type { Caller } from "../../../sourcegraph/access/caller.ts";
import type { Visibility } from "../../../sourcegraph/access/visibility.ts";
import type { ControlStore } from "../../../sourcegraph/store/control_store.ts";
import { RepositoryFanout } from "../../../sourcegraph/service/repository_fanout.ts";
import type {
  RepositorySearchRequest,
  SearchResult,
} from "../../../sourcegraph/service/repository_reads.ts";
import type { SearchTier } from "../../../sourcegraph/search/query/compiled_search.ts";

const ANONYMOUS: Caller = { kind: "anonymous" };
const COMMIT = "c".repeat(40);

// A fan-out over `names` whose repositories each hold 300 matching files;
// `best` gives a repository's ranked first group (unranked when absent).
function fanoutOf(names: string[], best: Record<string, SearchTier>) {
  const store = { repositories: () => names.map((name) => ({ name })) } as unknown as ControlStore;
  const visibility = {
    visible: () => true,
    resolve: () => ({ commit: COMMIT }),
    resolveRecord: () => ({ commit: COMMIT }),
  } as unknown as Visibility;
  const asked: string[] = [];
  const searchOne = (_caller: Caller, request: RepositorySearchRequest): Promise<SearchResult> => {
    asked.push(`${request.repo} ${request.maxFiles}`);
    const tier = best[request.repo];
    const shown = Math.min(request.maxFiles!, 300);
    return Promise.resolve({
      repo: request.repo,
      commit: request.revision!,
      outcome: {
        files: Array.from({ length: shown }, (_, i) => ({
          path: `f${String(i).padStart(3, "0")}`,
          lines: [{ number: 1, text: "x" }],
          matchCount: 1,
          ...(tier === undefined ? {} : { tier: i === 0 ? tier : 2 as SearchTier }),
        })),
        fileCount: shown,
        matchCount: shown,
        truncated: shown < 300,
        partial: false,
        index: "ready",
        ...(tier === undefined ? {} : { ranked: true }),
      },
      scope: null,
    });
  };
  return { fanout: new RepositoryFanout(store, { visibility, searchOne }), asked };
}

Deno.test("fan-out ranking: repositories past the caps are searched for their first file and can lead", async () => {
  const names = Array.from({ length: 12 }, (_, i) => `a/${String(i + 1).padStart(2, "0")}`);
  const { fanout, asked } = fanoutOf(names, { "a/11": 0, "a/03": 1 });
  const found = await fanout.search(ANONYMOUS, { repos: null, pattern: "x" });
  // Two windows whole (1,600 files, past the 1,000-file cap), the third for its first file,
  // then the definition's repository whole, as the page's first.
  assertEquals(asked, [
    ...names.slice(0, 8).map((name) => `${name} 200`),
    ...names.slice(8).map((name) => `${name} 1`),
    "a/11 200",
  ]);
  assertEquals(found.pins.map((pin) => pin.repo), [
    "a/11",
    "a/03",
    ...names.filter((name) => name !== "a/11" && name !== "a/03"),
  ]);
  // a/11 is capped at its 200 files: the page ends there and the next continues inside it.
  assertEquals(found.results.map((result) => result.repo), ["a/11"]);
  assertEquals(found.unsearched.length, 11);
  // The next page keeps the ranked pins and reuses nothing from a first page's survey.
  asked.length = 0;
  const next = await fanout.search(ANONYMOUS, {
    repos: null,
    pattern: "x",
    after: { pins: found.pins, index: 1, position: null },
  });
  assertEquals(next.results.map((result) => result.repo), ["a/03"]);
  assertEquals(asked, ["a/03 200", "a/01 200", "a/02 200", "a/04 200"]);
});

Deno.test("fan-out ranking: answers the survey found whole are shown without searching again", async () => {
  const names = ["b/1", "b/2", "b/3"];
  const { fanout, asked } = fanoutOf(names, { "b/3": 0 });
  // One file per repository fits the caps: each is searched once, whole.
  const found = await fanout.search(ANONYMOUS, { repos: null, pattern: "x" });
  assertEquals(asked, ["b/1 200", "b/2 200", "b/3 200"]);
  assertEquals(found.pins.map((pin) => pin.repo), ["b/3", "b/1", "b/2"]);
  assertEquals(found.results.map((result) => result.repo), ["b/3"]);
});
