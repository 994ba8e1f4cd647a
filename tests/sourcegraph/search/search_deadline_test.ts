/**
 * A search's time budget: a search given none of it verifies nothing and
 * says it was stopped (partial and capped), budgets are clamped to the
 * search's own limit, and a search across repositories gives each window
 * only what is left of its deadline (an injected clock).
 */

import { assert, assertEquals } from "../../support/assert.ts";
import { withInProcessService } from "../../support/in_process_service.ts";
import { compileSearch, SEARCH_MAX_MS } from "../../../sourcegraph/search/query/compiled_search.ts";
import type { Caller } from "../../../sourcegraph/access/caller.ts";
import type { Visibility } from "../../../sourcegraph/access/visibility.ts";
import type { ControlStore } from "../../../sourcegraph/store/control_store.ts";
import { RepositoryFanout } from "../../../sourcegraph/service/repository_fanout.ts";
import type { RepositorySearchRequest } from "../../../sourcegraph/service/repository_reads.ts";

const ANONYMOUS: Caller = { kind: "anonymous" };

Deno.test("search deadline: budgets are clamped to the search's limit", () => {
  assertEquals(compileSearch({ pattern: "x" }).maxMs, SEARCH_MAX_MS);
  assertEquals(compileSearch({ pattern: "x", maxMs: 10 * SEARCH_MAX_MS }).maxMs, SEARCH_MAX_MS);
  assertEquals(compileSearch({ pattern: "x", maxMs: -5 }).maxMs, 0);
  assertEquals(compileSearch({ pattern: "x", maxMs: 250 }).maxMs, 250);
});

Deno.test("search deadline: a search with no time left stops before its first file and says so", () =>
  withInProcessService(async ({ service }) => {
    const whole = await service.calls.search(ANONYMOUS, { repo: "org/open", pattern: "open" });
    assert(whole.outcome.fileCount > 0 && !whole.outcome.partial);
    const stopped = await service.calls.search(ANONYMOUS, {
      repo: "org/open",
      pattern: "open",
      maxMs: 0,
    });
    assertEquals(
      [stopped.outcome.fileCount, stopped.outcome.partial, stopped.outcome.truncated],
      [0, true, true],
    );
  }));

Deno.test("search deadline: each window across repositories gets what is left of the deadline", async () => {
  const names = ["a/1", "a/2", "a/3", "a/4", "a/5", "a/6", "a/7", "a/8", "a/9"];
  const store = { repositories: () => names.map((name) => ({ name })) } as unknown as ControlStore;
  const visibility = {
    visible: () => true,
    resolve: () => ({ commit: "c".repeat(40) }),
    resolveRecord: () => ({ commit: "c".repeat(40) }),
  } as unknown as Visibility;
  let clock = 0;
  const budgets: number[] = [];
  const fanout = new RepositoryFanout(store, {
    visibility,
    now: () => clock,
    searchOne: (_caller, request: RepositorySearchRequest) => {
      budgets.push(request.maxMs!);
      clock += 3_000; // each repository's search takes 3 s on the injected clock
      return Promise.resolve({
        repo: request.repo,
        commit: request.revision!,
        outcome: {
          files: [],
          fileCount: 0,
          matchCount: 0,
          truncated: false,
          partial: false,
          index: "ready",
        },
        scope: null,
      });
    },
  });
  const found = await fanout.search(ANONYMOUS, { repos: null, pattern: "x" });
  // Windows of four start at 0 s and 12 s; the third would start at 24 s, past the 20 s deadline.
  assertEquals(budgets, [20_000, 17_000, 14_000, 11_000, 8_000, 5_000, 2_000, 0]);
  assertEquals(found.unsearched, ["a/9"]);
  assertEquals(found.partial, true);
});
