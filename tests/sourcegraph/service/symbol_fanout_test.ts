/**
 * The symbol fan-out's own logic, in process with stand-ins for the store,
 * visibility and the single-repository lookup: repositories whose index is
 * not built are named as skipped, other failures stay failures, an
 * injected clock's deadline stops the lookup and names the repositories it
 * did not reach, and a repository with more definitions than it may add
 * marks the answer truncated.
 */

import { assertEquals, assertRejects } from "../../support/assert.ts";
import type { Caller } from "../../../sourcegraph/access/caller.ts";
import type { Visibility } from "../../../sourcegraph/access/visibility.ts";
import type { ControlStore } from "../../../sourcegraph/store/control_store.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import { type LookUpOne, SymbolFanout } from "../../../sourcegraph/service/symbol_fanout.ts";
import type { SymbolsPage } from "../../../sourcegraph/service/repository_symbols.ts";

const NAMES = ["a/one", "a/two", "a/three", "a/four", "a/five", "a/six"];
const CALLER = { kind: "anonymous" } as unknown as Caller;

function fanout(lookUpOne: LookUpOne, now?: () => number): SymbolFanout {
  const store = {
    repositories: () => NAMES.map((name) => ({ name })),
  } as unknown as ControlStore;
  const visibility = {
    visible: () => true,
    repository: (_caller: Caller, name: string) => ({ name }),
    resolve: (_caller: Caller, request: { repo: string }) => ({
      commit: request.repo.length.toString(16).padStart(40, "0"),
    }),
  } as unknown as Visibility;
  return new SymbolFanout(store, { visibility, lookUpOne, now });
}

function page(repo: string, count: number, more = false): SymbolsPage {
  return {
    repo,
    commit: "0".repeat(40),
    symbols: Array.from({ length: count }, (_, i) => ({
      name: "f",
      kind: "function" as const,
      container: null,
      language: "c",
      path: `${repo}/f${i}.c`,
      startLine: 1,
      endLine: 2,
    })),
    total: count,
    nextOffset: more ? count : null,
    truncated: false,
    partial: null,
  };
}

Deno.test("symbol fan-out: an index not built yet is named as skipped; other failures fail", async () => {
  const lookUp: LookUpOne = (_caller, request) => {
    if (request.repo === "a/two") {
      return Promise.reject(new SourcegraphError("INDEX_NOT_READY", "not built yet"));
    }
    return Promise.resolve(page(request.repo, 1));
  };
  const found = await fanout(lookUp).symbols(CALLER, { repos: null, query: "f" });
  assertEquals(found.skipped, [{
    repo: "a/two",
    code: "INDEX_NOT_READY",
    message: "not built yet",
  }]);
  assertEquals(found.total, 5);
  assertEquals(found.unsearched, []);
  const broken: LookUpOne = () => Promise.reject(new Error("disk on fire"));
  const error = await assertRejects(
    () => fanout(broken).symbols(CALLER, { repos: null, query: "f" }),
    Error,
  );
  assertEquals(error.message, "disk on fire");
});

Deno.test("symbol fan-out: the deadline stops between windows and names the rest", async () => {
  let clock = 0;
  const lookUp: LookUpOne = (_caller, request) => {
    clock += 30_000; // each window takes past the deadline on the injected clock
    return Promise.resolve(page(request.repo, 1));
  };
  const found = await fanout(lookUp, () => clock).symbols(CALLER, { repos: null, query: "f" });
  // The first window (four repositories, in name order) ran; the other two were not reached.
  assertEquals(found.unsearched, ["a/three", "a/two"]);
  assertEquals(found.symbols.map((s) => s.repo), ["a/five", "a/four", "a/one", "a/six"]);
});

Deno.test("symbol fan-out: a repository with more than it may add marks the answer truncated", async () => {
  const lookUp: LookUpOne = (_caller, request) =>
    Promise.resolve(page(request.repo, 2, request.repo === "a/six"));
  const found = await fanout(lookUp).symbols(CALLER, { repos: null, query: "f", first: 5 });
  assertEquals(found.truncated, true);
  assertEquals(found.total, 12);
  assertEquals(found.nextOffset, 5);
  const rest = await fanout(lookUp).symbols(CALLER, {
    repos: null,
    query: "f",
    first: 5,
    after: { pins: found.pins, offset: 10 },
  });
  assertEquals(rest.symbols.map((s) => s.symbol.path), ["a/two/f0.c", "a/two/f1.c"]);
  assertEquals(rest.nextOffset, null);
});
