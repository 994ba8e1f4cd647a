/**
 * The symbol fan-out's own logic, in process with stand-ins for the store,
 * visibility and the single-repository lookup: repositories whose index is
 * not built are named as skipped, other failures stay failures, an
 * injected clock's deadline stops the lookup and names the repositories it
 * did not reach, and a repository with more definitions than it may add
 * marks the answer truncated, and first lines are read for the page shown
 * only.
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
    resolveRecord: (_caller: Caller, repo: { name: string }) => ({
      commit: repo.name.length.toString(16).padStart(40, "0"),
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
      signature: null,
    })),
    total: count,
    nextOffset: more ? count : null,
    truncated: false,
    partial: null,
    misses: null,
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

Deno.test("symbol fan-out: first lines are read for the shown page only, as each repository's run of it", async () => {
  const asked: string[] = [];
  // Each repository defines `f` in 3 files; a lookup honours first and after, and signs when asked.
  const lookUp: LookUpOne = (_caller, request) => {
    const from = request.after?.offset ?? 0;
    asked.push(
      `${request.repo} first=${request.first} from=${from} signed=${request.signatures !== false}`,
    );
    const all = page(request.repo, 3).symbols.map((symbol) => ({
      ...symbol,
      signature: request.signatures === false ? null : `int f(void) /* ${symbol.path} */`,
    }));
    const shown = all.slice(from, from + (request.first ?? 20));
    return Promise.resolve({ ...page(request.repo, 0), symbols: shown, total: 3 });
  };
  const found = await fanout(lookUp).symbols(CALLER, {
    repos: null,
    query: "f",
    first: 4,
    after: {
      pins: NAMES.map((repo) => ({ repo, commit: repo.length.toString(16).padStart(40, "0") })),
      offset: 2,
    },
  });
  // In the cursor's repository order, three each: positions 2..5 are a/one's last and a/two's three.
  assertEquals(
    found.symbols.map((s) => [s.repo, s.symbol.path, s.symbol.signature]),
    [
      ["a/one", "a/one/f2.c", "int f(void) /* a/one/f2.c */"],
      ["a/two", "a/two/f0.c", "int f(void) /* a/two/f0.c */"],
      ["a/two", "a/two/f1.c", "int f(void) /* a/two/f1.c */"],
      ["a/two", "a/two/f2.c", "int f(void) /* a/two/f2.c */"],
    ],
  );
  // Every repository unsigned (its best 500), then the two runs of the page, signed.
  assertEquals(asked.filter((line) => line.endsWith("signed=true")).sort(), [
    "a/one first=1 from=2 signed=true",
    "a/two first=3 from=0 signed=true",
  ]);
  assertEquals(asked.filter((line) => line.endsWith("signed=false")).length, NAMES.length);
});
