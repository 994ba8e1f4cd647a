import { assert, assertEquals } from "../../support/assert.ts";
import {
  ReferenceParser,
  REFERENCES_PARSE_MS,
  referencesOf,
} from "../../../sourcegraph/service/name_references.ts";
import { resolveAt } from "../../../sourcegraph/service/name_resolution.ts";
import { resolverOver } from "../../support/resolved_references.ts";

const SILENT_WORKER = new URL("../../fixtures/scan/silent_worker.ts", import.meta.url);
const MISSING_WORKER = new URL("../../fixtures/scan/no_such_worker.ts", import.meta.url);

Deno.test("reference parser: files are parsed in its worker, and the service's thread keeps running meanwhile", async () => {
  // Not a test of the file deadline: a generous one, as a busy machine can make a fresh worker's
  // first parse (its grammar loaded) outlast the service's; and as generous a wait before the
  // parse begins, which the grammar's load counts toward (at a load of 60 on the 2-core AMD EPYC
  // VM it outlasted the service's 20 s, and the first file came back "failed").
  const parser = new ReferenceParser({ fileMs: 60_000, queuedMs: 60_000 });
  try {
    const text = "export function alpha() {}\nalpha();\n// alpha in a comment\n";
    const found = await parser.occurrences("src/a.ts", text, "alpha");
    assertEquals(found.outcome, "parsed");
    assertEquals(found.occurrences.map((occurrence) => occurrence.line), [1, 2]);
    // A large file: while the worker parses it, this thread's timers fire. 2,000 lines keep
    // the 1 ms timer firing hundreds of times; 20,000 took 1.8 processor-seconds, 47 s at a load
    // of 40 on the 2-core AMD EPYC VM, and past the deadline the pool's guard (2 s after it) could
    // end the worker before its own "timed out" arrived: the file came back "failed".
    const big = Array.from({ length: 2_000 }, (_, i) => `const v${i} = alpha(${i}, [${i}]);`)
      .join("\n");
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const parsing = parser.occurrences("src/big.ts", big, "alpha");
    let ticksWhileParsing = 0;
    let settled = false;
    parsing.finally(() => settled = true);
    while (!settled) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (!settled) ticksWhileParsing = ticks;
    }
    clearInterval(timer);
    const parsed = await parsing;
    assert(parsed.outcome === "parsed" || parsed.outcome === "timed_out", parsed.outcome);
    assert(ticksWhileParsing > 0, "no timer fired while the file was parsed");
  } finally {
    parser.close();
  }
});

Deno.test("reference parser: a worker that never answers is ended at its deadline and the file stays unparsed; one that cannot load is said once", async () => {
  // It never says it began the file either: ended once the file waited `queuedMs`.
  const silent = new ReferenceParser({ workerUrl: SILENT_WORKER, fileMs: 50, queuedMs: 50 });
  try {
    const found = await silent.occurrences("src/a.ts", "alpha();\n", "alpha");
    assertEquals(found, { language: null, outcome: "failed", occurrences: [] });
  } finally {
    silent.close();
  }
  const log: string[] = [];
  const missing = new ReferenceParser({ workerUrl: MISSING_WORKER, log: (line) => log.push(line) });
  try {
    for (let i = 0; i < 2; i++) {
      const found = await missing.occurrences("src/a.ts", "alpha();\n", "alpha");
      assertEquals(found.outcome, "failed");
    }
    assertEquals(log.length, 1, log.join("\n"));
    assert(
      log[0].startsWith("references are text matches only: the parsing worker failed"),
      log[0],
    );
  } finally {
    missing.close();
  }
});

Deno.test("reference parser: a page whose parse budget is spent ends before its next file, which the next page parses", async () => {
  let clock = 0;
  // The page's budget runs on the injected clock; each file's deadline is not tested here.
  const parser = new ReferenceParser({
    now: () => clock,
    workers: 1,
    fileMs: 60_000,
    queuedMs: 60_000,
  });
  try {
    const texts: Record<string, string> = {
      "src/a.ts": "export function alpha() {}\n",
      "src/b.ts": 'import { alpha } from "./a";\nalpha(); // alpha\n',
      "src/c.ts": 'import { alpha } from "./a";\nconst s = "alpha"; alpha();\n',
    };
    const matches = (paths: string[]) =>
      paths.map((path) => ({
        path,
        matchCount: 1,
        lines: texts[path].split("\n").flatMap((text, i) =>
          text.includes("alpha") ? [{ number: i + 1, text }] : []
        ),
      }));
    const options = {
      name: "alpha",
      includeDeclaration: true,
      // Reading the first file takes the page past its budget (the injected clock).
      text: (path: string) => {
        if (path === "src/a.ts") clock += REFERENCES_PARSE_MS + 1;
        return Promise.resolve(texts[path]);
      },
    };
    const first = await referencesOf(
      parser,
      matches(["src/a.ts", "src/b.ts", "src/c.ts"]),
      options,
    );
    assertEquals(first.full, true);
    assertEquals(first.files.map((file) => [file.path, file.parse]), [["src/a.ts", "parsed"]]);
    // The next page, from the file after, parses its files: no whole-word text rows.
    const next = await referencesOf(parser, matches(["src/b.ts", "src/c.ts"]), options);
    assertEquals(next.full, false);
    assertEquals(next.files.map((file) => [file.path, file.parse]), [
      ["src/b.ts", "parsed"],
      ["src/c.ts", "parsed"],
    ]);
    assertEquals(next.files.map((file) => file.lines.map((line) => line.roles)), [
      [["import"], ["call"]],
      [["import"], ["call"]],
    ]);
  } finally {
    parser.close();
  }
});

Deno.test("reference parser: a resolved name imported under another name is also found where the file uses that name", async () => {
  const parser = new ReferenceParser({ fileMs: 60_000, queuedMs: 60_000 });
  try {
    const texts: Record<string, string> = {
      "src/preact.ts": "export const render = () => 'page';\n",
      "src/bench.ts": [
        "import { render as renderPreact } from './preact';",
        "import { render as renderOther } from './other';",
        "[renderPreact].forEach((render) => render());",
        "renderPreact();",
        "renderOther();",
      ].join("\n"),
      "src/other.ts": "export const render = () => 'other';\n",
    };
    const resolver = resolverOver(parser, texts);
    const target = await resolveAt(resolver, {
      path: "src/preact.ts",
      name: "render",
      line: 1,
      column: 13,
    });
    assertEquals(target?.path, "src/preact.ts");
    // The search's matches of the whole word `render`: not line 4, which only the alias spells.
    const lines = texts["src/bench.ts"].split("\n").flatMap((text, i) =>
      /\brender\b/.test(text) ? [{ number: i + 1, text }] : []
    );
    const page = await referencesOf(parser, [{ path: "src/bench.ts", matchCount: 3, lines }], {
      name: "render",
      includeDeclaration: true,
      text: (path) => Promise.resolve(texts[path] ?? null),
      resolved: { resolver, target: target! },
    });
    // Line 3's own `render` is a parameter, but it uses `renderPreact` too; not `renderOther`.
    assertEquals(page.files[0].lines.map((line) => [line.number, line.roles]), [
      [1, ["import"]],
      [3, ["read"]],
      [4, ["call"]],
    ]);
  } finally {
    parser.close();
  }
});
