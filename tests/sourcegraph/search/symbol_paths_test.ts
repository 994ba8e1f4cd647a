/**
 * A `symbols` lookup limited to paths reaches the names defined there even
 * when the pattern matches more names than one lookup looks at: a file's
 * own names are listed with a pattern that matches every name (`.`), where
 * the names of other files would otherwise fill the cap first.
 */

import { assert, assertEquals, waitFor } from "../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { callText, callTool } from "../../support/tool_calls.ts";
import { SYMBOL_MAX_NAMES } from "../../../sourcegraph/search/symbol_search.ts";

const FILES = {
  // More names than a lookup looks at, each sorting before the late file's names.
  "a/many.ts": Array.from(
    { length: SYMBOL_MAX_NAMES + 1 },
    (_, i) => `export function aaaName${i}(): void {}\n`,
  ).join(""),
  "z/late.ts": "export function zzzLate(): void {}\nexport class ZzzHolder {}\n",
};

interface Answer {
  symbols: { name: string; path: string }[];
  truncated?: boolean;
}

Deno.test("symbols: a pattern matching every name, limited to one file, lists that file's names", () =>
  withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle);
    try {
      await waitFor(async () =>
        (await callTool(client, "symbols", { repo: "org/names", query: "zzzLate" })).code === "OK"
      );
      const run = async (args: Record<string, unknown>) =>
        JSON.parse(
          await callText(client, "symbols", {
            repo: "org/names",
            query: ".",
            match: "regex",
            ...args,
          }),
        ) as Answer;
      const late = await run({ paths: ["z/late.ts"] });
      assertEquals(late.symbols.map((s) => [s.name, s.path]).sort(), [
        ["ZzzHolder", "z/late.ts"],
        ["zzzLate", "z/late.ts"],
      ]);
      assertEquals(late.truncated ?? false, false);
      // The same with the folder, and with kinds: only its function.
      const folder = await run({ paths: ["z/"], kinds: ["function"] });
      assertEquals(folder.symbols.map((s) => s.name), ["zzzLate"]);
      // Without paths the lookup still stops at its cap and says so.
      const all = await run({});
      assert(all.truncated, JSON.stringify(all).slice(0, 200));
    } finally {
      await client.close();
    }
  }, {
    repositories: [{ name: "org/names", publicRead: true, files: FILES }],
    searchIndex: true,
  }));
