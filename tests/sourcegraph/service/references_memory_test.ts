/**
 * A name with 100,000 occurrences (50,000 lines of 400 bytes, two calls
 * each, in 100 files): every page of its references is walked, and what
 * the service keeps afterwards (the heap after a collection) stays far below
 * the lines themselves: a page holds at most the search's match cap, the
 * parser keeps at most `REFERENCES_CACHE` occurrences, each page within
 * its `max_bytes`.
 */

import { assert, assertEquals, waitFor } from "../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { callTool } from "../../support/tool_calls.ts";

const LINE = `hotName(); hotName(); // ${"x".repeat(375)}\n`;
const FILES: Record<string, string> = Object.fromEntries(
  Array.from({ length: 100 }, (_, i) => [
    `src/f${String(i).padStart(3, "0")}.ts`,
    (i === 0 ? "export function hotName(): void {}\n" : "") + LINE.repeat(500),
  ]),
);

// The heap in MiB after a collection (the test runs with --expose-gc).
function retained(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return Deno.memoryUsage().heapUsed / 1024 / 1024;
}

Deno.test("references: every page of a name with 100,000 occurrences is answered, and what the service keeps stays bounded", () =>
  withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle);
    try {
      const args = { repo: "org/hot", path: "src/f001.ts", line: 1, symbol: "hotName" };
      await waitFor(
        async () =>
          (await callTool(client, "references", args)).texts[0].includes('Index: "ready"'),
        { what: "the index of org/hot" },
      );
      const before = retained();
      let rows = 0;
      let after: string | undefined;
      let pages = 0;
      do {
        const page = await callTool(client, "references", {
          ...args,
          max_bytes: 262_144,
          ...(after === undefined ? {} : { after }),
        });
        assertEquals(page.code, "OK", page.texts.join());
        assert(new TextEncoder().encode(page.texts[0]).length <= 262_144);
        rows += page.texts[0].split("\n").filter((line) => /^\d+ \[/.test(line)).length;
        const next = /^NextCursor: (".*")$/m.exec(page.texts[0])?.[1];
        after = next === undefined ? undefined : JSON.parse(next);
        pages++;
      } while (after !== undefined && pages < 200);
      // Every line once (a row is a line, whatever its occurrences), the definition's too.
      assertEquals(rows, 50_001);
      const grown = retained() - before;
      // The 50,000 lines alone are 20 MB of UTF-8 (40 MB as JavaScript strings); the parser's
      // answers kept (at most 200,000 occurrences) about 10 MiB.
      assert(grown < 20, `the heap grew by ${grown.toFixed(1)} MiB`);
    } finally {
      await client.close();
    }
  }, {
    repositories: [{ name: "org/hot", publicRead: true, files: FILES }],
    searchIndex: true,
  }));
