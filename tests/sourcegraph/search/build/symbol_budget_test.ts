/**
 * Each commit's symbol extraction has a budget: past it the files not
 * extracted yet are skipped (in workers, the extractions in flight are
 * abandoned), the commit is published and searchable anyway, the index
 * records which files have no symbols (a later commit holding the same
 * blobs says so too, a pruned commit leaves no record), and the `symbols`
 * answers (MCP and HTTP) say the commit's symbols are partial. Budgets are
 * counted on an injected clock, or are zero: nothing depends on the
 * machine's speed.
 */

import { join } from "node:path";
import { SymbolExtraction } from "../../../../sourcegraph/search/build/symbol_extraction.ts";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";
import { indexPath, SearchIndexes } from "../../../../sourcegraph/search/search_indexes.ts";
import { readSettings } from "../../../../sourcegraph/settings.ts";
import { assert, assertEquals, assertIncludes, waitFor } from "../../../support/assert.ts";
import { createRepo, git, removeDir, tempDir } from "../../../support/git_repo.ts";
import {
  connectInProcess,
  inProcessFetch,
  withInProcessService,
} from "../../../support/in_process_service.ts";
import { mirrorFor, testRecord } from "../../../support/index_world.ts";
import { callText } from "../../../support/tool_calls.ts";
import { pageRequest } from "../../../support/page_requests.ts";

const C_FILE = (name: string) => `int ${name}(void) { return 1; }\n`;

Deno.test("symbol budget on the calling thread: files past the budget are skipped, the next commit's budget is whole", async () => {
  let clock = 0;
  // Each extraction reads the clock twice, 10 ms apart.
  const extraction = new SymbolExtraction({ workers: 0, budgetMs: 25, now: () => (clock += 10) });
  try {
    extraction.startCommit();
    for (let blob = 1; blob <= 5; blob++) {
      await extraction.submit(blob, `f${blob}.c`, C_FILE(`f${blob}`));
    }
    const done = await extraction.finish();
    assertEquals(done.map((file) => file.blob).sort(), [1, 2, 3], "30 ms spent after the third");
    assertEquals([...extraction.skipped], [4, 5]);
    extraction.startCommit();
    assertEquals([...extraction.skipped], []);
    await extraction.submit(6, "f6.c", C_FILE("f6"));
    assertEquals((await extraction.finish()).map((file) => file.blob), [6]);
  } finally {
    extraction.close();
  }
});

Deno.test("symbol budget in workers: once it is spent the extractions in flight are abandoned", async () => {
  const extraction = new SymbolExtraction({ workers: 2, budgetMs: 1 });
  try {
    extraction.startCommit();
    // The first file takes its worker well over 1 ms (hundreds of functions); the others
    // queue behind it in the same worker (too little text for a second one). Not thousands:
    // 3,000 took 0.5 processor-seconds, 10-12 s of wall time at a load of 45 on the 2-core AMD
    // EPYC VM, past the per-file parse deadline (5 s), and the file then had no symbols.
    const large = Array.from({ length: 300 }, (_, i) => C_FILE(`large${i}`)).join("");
    await extraction.submit(1, "large.c", large);
    for (let blob = 2; blob <= 5; blob++) {
      await extraction.submit(blob, `f${blob}.c`, C_FILE(`f${blob}`));
    }
    const done = await extraction.finish();
    assertEquals(done.map((file) => file.blob), [1]);
    assertEquals([...extraction.skipped].sort(), [2, 3, 4, 5]);
    await extraction.submit(6, "f6.c", C_FILE("f6"));
    assertEquals([...extraction.skipped].sort(), [2, 3, 4, 5, 6], "still past the budget");
    // The next commit starts a worker again.
    extraction.startCommit();
    await extraction.submit(7, "f7.c", C_FILE("f7"));
    assertEquals((await extraction.finish()).map((file) => file.blob), [7]);
    assertEquals([...extraction.skipped], []);
  } finally {
    extraction.close();
  }
});

Deno.test("symbol budget: SOURCEGRAPH_SYMBOL_BUDGET and SOURCEGRAPH_INDEX_BUILD_SLICE are durations", () => {
  const read = (name: string, value?: string) =>
    readSettings((asked) => asked === name ? value : undefined, "/");
  const fallback = read("SOURCEGRAPH_SYMBOL_BUDGET");
  assert(fallback.ok);
  assertEquals([fallback.settings.symbolBudgetMs, fallback.settings.indexBuildSliceMs], [
    30_000,
    30_000,
  ]);
  const budget = read("SOURCEGRAPH_SYMBOL_BUDGET", "5s");
  assert(budget.ok);
  assertEquals(budget.settings.symbolBudgetMs, 5_000);
  const slice = read("SOURCEGRAPH_INDEX_BUILD_SLICE", "2m");
  assert(slice.ok);
  assertEquals(slice.settings.indexBuildSliceMs, 120_000);
  const refused = read("SOURCEGRAPH_SYMBOL_BUDGET", "soon");
  assert(!refused.ok);
  assert(refused.problems.some((line) => line.startsWith("SOURCEGRAPH_SYMBOL_BUDGET must be")));
});

const REPO = testRecord(7, { name: "org/slow" });
// The shape of TypeScript the parser takes quadratic time over (kept small: the budget is 0).
const SLOW_TS = "x = " + Array.from({ length: 200 }, () => "a < b").join(", ") + ";\n";

Deno.test("symbol budget, real builder: a commit past it is published partial, and later commits with its blobs say so", async () => {
  const parent = await tempDir("sg-symbol-budget-");
  const log: string[] = [];
  try {
    const source = await createRepo({
      "src/alpha.ts": "export function alpha(): number {\n  return 1;\n}\n",
      "src/slow.ts": SLOW_TS,
      "notes.md": "alpha notes\n",
    }, { parent, name: "source" });
    const first = await source.git("rev-parse", "HEAD");
    const data = join(parent, "data");
    const { mirror, mirrors } = await mirrorFor(source.path, { data, repo: REPO });
    const starved = new SearchIndexes(data, {
      enabled: true,
      mirrors,
      log: (line) => log.push(line),
      symbolBudgetMs: 0,
    });
    try {
      await starved.schedule(REPO, [first]);
      const indexed = starved.commit(REPO, first);
      assert(indexed !== null, `published: ${log.join("\n")}`);
      assertEquals(indexed.symbols.partial, { skippedFiles: 2, files: 3 });
      assertEquals(indexed.symbols.names({ exact: "alpha" }, { limit: 10 }), []);
      assert(
        log.some((line) =>
          line.includes(`at ${first.slice(0, 12)}: 3 files`) &&
          line.endsWith(
            "; symbols partial: 2 of 3 files without symbols (the symbol " +
              "extraction budget of 0 ms ran out)",
          )
        ),
        log.join("\n"),
      );
    } finally {
      await starved.close();
    }

    // A later commit keeps the two blobs without symbols and adds one; built with a budget.
    await source.write({ "src/gamma.ts": "export function gamma(): void {}\n" });
    const second = await source.commit("gamma");
    await git(mirror, ["fetch", "-q", source.path, "+refs/heads/*:refs/heads/*"]);
    const indexes = new SearchIndexes(data, {
      enabled: true,
      mirrors,
      log: (line) => log.push(line),
    });
    try {
      await indexes.schedule(REPO, [second]);
      const later = indexes.commit(REPO, second);
      assert(later !== null, log.join("\n"));
      assertEquals(later.symbols.partial, { skippedFiles: 2, files: 4 });
      assertEquals(later.symbols.names({ exact: "gamma" }, { limit: 10 }).length, 1);
      assertEquals(indexes.commit(REPO, first), null, "the first commit was pruned");
    } finally {
      await indexes.close();
    }
    const index = new IndexDatabase(indexPath(data, REPO));
    try {
      assertEquals(
        index.db.prepare("SELECT commit_id, files FROM commit_symbols_skipped").all()
          .map((row) => [row.commit_id, row.files]),
        [[second, 2]],
        "the pruned commit's record went with it",
      );
    } finally {
      index.close();
    }
  } finally {
    await removeDir(parent);
  }
});

// Three registrations under the same path group: hidden files that the budget
// skips (`mono/hidden`), hidden files without symbols to extract (`mono/plain`),
// and only hidden files skipped (`mono/clean`).
const VISIBLE_TS = "export function visibleFn(): number {\n  return 1;\n}\n";
const GROUPED = (name: string, files: Record<string, string>) => ({
  name,
  publicRead: true,
  files: { "docs/public/readme.md": "visible notes\n", ...files },
  pathGroups: [{ name: "public", paths: ["docs/public"] }],
});

// One service of the four registrations, its budget zero: the cases only read.
Deno.test("symbol budget, MCP and HTTP: one service, case by case", (t) =>
  withInProcessService(async ({ handle, heads }) => {
    const client = await connectInProcess(handle);
    try {
      const search = (repo: string, pattern: string) =>
        callText(client, "search", { repo, pattern });
      await waitFor(async () => {
        const texts = await Promise.all([
          search("org/slow", "alpha"),
          ...["mono/hidden", "mono/plain", "mono/clean"].map((repo) => search(repo, "notes")),
        ]);
        return texts.every((text) => text.includes('Index: "ready"'));
      }, { what: "the indexes" });
      await t.step(
        "symbol budget, MCP and HTTP: the symbols answer says the commit's symbols are partial; search finds the text",
        async () => {
          assert(
            (await search("org/slow", "alpha")).includes("src/alpha.ts"),
            "the file's text is searchable",
          );
          const answer = JSON.parse(
            await callText(client, "symbols", { repo: "org/slow", query: "alpha" }),
          );
          assertEquals(answer.symbols, []);
          assertEquals(answer.commit, heads.get("org/slow"));
          assertEquals(
            answer.symbols_partial,
            "symbols at this commit are partial: 2 of 3 files were not searched for definitions " +
              "(the index build's symbol extraction ran out of time); `search` still finds their text",
          );
          // Across every repository: the three whose visible files were skipped.
          const across = JSON.parse(await callText(client, "symbols", { query: "alpha" }));
          assertEquals(across.symbols_partial, ["mono/hidden", "mono/plain", "org/slow"]);
          const http =
            await (await inProcessFetch(handle)("/sourcegraph/v1/repo/symbols?repo=org/slow", {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ Query: "alpha" }),
            })).json();
          assertEquals(http.SymbolsPartial, { SkippedFiles: 2, Files: 3 });
          const tab = await pageRequest(handle, "/sourcegraph/org/slow/-/symbols?q=alpha");
          assertIncludes(tab.body, "symbols at this commit are partial: 2 of 3 files");
        },
      );
      await t.step(
        "symbol budget under path groups: partial counts visible files only, whatever the hidden files hold (MCP, HTTP, across repositories, the Symbols page)",
        async () => {
          // The answer with its repository's name and commit replaced, to compare registrations.
          const neutral = (repo: string, text: string) =>
            text.replaceAll(heads.get(repo)!, "<sha>").replaceAll(repo, "<repo>");
          const http = async (repo: string, body: unknown) =>
            await (await inProcessFetch(handle)(`/sourcegraph/v1/repo/symbols?repo=${repo}`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(body),
            })).text();
          for (const query of [{ Query: "hiddenFn", Match: "prefix" }, { Query: "visibleFn" }]) {
            const hidden = await http("mono/hidden", query);
            assertEquals(JSON.parse(hidden).SymbolsPartial, { SkippedFiles: 1, Files: 2 });
            assertEquals(
              neutral("mono/hidden", hidden),
              neutral("mono/plain", await http("mono/plain", query)),
            );
            const clean = JSON.parse(await http("mono/clean", query));
            assertEquals([clean.SymbolsPartial, clean.Symbols], [null, []]);
          }
          const mcp = (repo: string) =>
            callText(client, "symbols", { repo, query: "hiddenFn", match: "prefix" });
          const hiddenText = await mcp("mono/hidden");
          assertIncludes(hiddenText, "1 of 2 files");
          assertEquals(
            neutral("mono/hidden", hiddenText),
            neutral("mono/plain", await mcp("mono/plain")),
          );
          assertEquals(JSON.parse(await mcp("mono/clean")).symbols_partial, undefined);
          // Not mono/clean, whose hidden files alone were skipped.
          const across = JSON.parse(await callText(client, "symbols", { query: "hiddenFn" }));
          assertEquals(across.symbols_partial, ["mono/hidden", "mono/plain", "org/slow"]);
          const tab = (repo: string) =>
            pageRequest(handle, `/sourcegraph/${repo}/-/symbols?q=hiddenFn`);
          assertIncludes((await tab("mono/hidden")).body, "partial: 1 of 2 files");
          assert(
            !(await tab("mono/clean")).body.includes("partial"),
            "every visible file was extracted",
          );
        },
      );
    } finally {
      await client.close();
    }
  }, {
    repositories: [
      {
        name: "org/slow",
        publicRead: true,
        files: {
          "src/alpha.ts": "export function alpha(): number {\n  return 1;\n}\n",
          "src/slow.ts": SLOW_TS,
          "notes.md": "alpha notes\n",
        },
      },
      GROUPED("mono/hidden", {
        "docs/public/visible.ts": VISIBLE_TS,
        "docs/private/a.ts": "export function hiddenFnA(): void {}\n",
        "docs/private/b.ts": "export function hiddenFnB(): void {}\n",
        "docs/private/slow.ts": SLOW_TS,
      }),
      GROUPED("mono/plain", {
        "docs/public/visible.ts": VISIBLE_TS,
        "docs/private/notes.md": "hidden notes\n",
      }),
      GROUPED("mono/clean", { "docs/private/slow.ts": SLOW_TS }),
    ],
    searchIndex: true,
    symbolBudgetMs: 0,
  }));
