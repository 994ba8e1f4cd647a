import { assert, assertEquals } from "../../support/assert.ts";
import { ReferenceParser } from "../../../sourcegraph/service/name_references.ts";

const SILENT_WORKER = new URL("../../fixtures/scan/silent_worker.ts", import.meta.url);
const MISSING_WORKER = new URL("../../fixtures/scan/no_such_worker.ts", import.meta.url);

Deno.test("reference parser: files are parsed in its worker, and the service's thread keeps running meanwhile", async () => {
  const parser = new ReferenceParser();
  try {
    const text = "export function alpha() {}\nalpha();\n// alpha in a comment\n";
    const found = await parser.occurrences("src/a.ts", text, "alpha");
    assertEquals(found.outcome, "parsed");
    assertEquals(found.occurrences.map((occurrence) => occurrence.line), [1, 2]);
    // A large file: while the worker parses it, this thread's timers fire.
    const big = Array.from({ length: 20_000 }, (_, i) => `const v${i} = alpha(${i}, [${i}]);`)
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
  const silent = new ReferenceParser({ workerUrl: SILENT_WORKER, fileMs: 50 });
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
