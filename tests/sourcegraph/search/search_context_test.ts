/**
 * Context around search hits, as `rg -n -B/-A/-C` prints it: `N: line` for a
 * match, `N- line` for context, `--` between ranges that do not touch, and
 * ranges merged where they touch.
 */

import { assertEquals } from "../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { callTool } from "../../support/tool_calls.ts";

const SOURCE = [
  "// header", //  1
  "export function alpha(x: number): number {", //  2
  "  return x + 1;", //  3
  "}", //  4
  "", //  5
  "const unrelated = 0;", //  6
  "", //  7
  "export function beta(y: number): number {", //  8
  "  return alpha(y) * 2;", //  9
  "}", // 10
].join("\n") + "\n";

// The rows of the one file of a search answer (after its `File:` line).
function rows(text: string): string[] {
  const lines = text.trimEnd().split("\n");
  return lines.slice(lines.findIndex((line) => line.startsWith("File: ")) + 1);
}

Deno.test("search context: lines before and after each match, merged where they touch, split by -- where they do not", () =>
  withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle);
    try {
      const search = async (args: Record<string, unknown>) => {
        const outcome = await callTool(client, "search", {
          repo: "org/code",
          pattern: "export function",
          ...args,
        });
        assertEquals(outcome.code, "OK", outcome.texts[0]);
        return outcome.texts[0];
      };
      assertEquals(rows(await search({})), [
        "2: export function alpha(x: number): number {",
        "8: export function beta(y: number): number {",
      ]);
      assertEquals(rows(await search({ after_context: 2 })), [
        "2: export function alpha(x: number): number {",
        "3-   return x + 1;",
        "4- }",
        "--",
        "8: export function beta(y: number): number {",
        "9-   return alpha(y) * 2;",
        "10- }",
      ]);
      // -C 3: the two ranges (1..5 and 5..10) touch at line 5 and merge.
      assertEquals(rows(await search({ context: 3 })), [
        "1- // header",
        "2: export function alpha(x: number): number {",
        "3-   return x + 1;",
        "4- }",
        "5- ",
        "6- const unrelated = 0;",
        "7- ",
        "8: export function beta(y: number): number {",
        "9-   return alpha(y) * 2;",
        "10- }",
      ]);
      // before_context overrides context on its side; the file's edges bound both.
      assertEquals(rows(await search({ context: 1, before_context: 0 })), [
        "2: export function alpha(x: number): number {",
        "3-   return x + 1;",
        "--",
        "8: export function beta(y: number): number {",
        "9-   return alpha(y) * 2;",
      ]);
      // A line that is a match is never repeated as context.
      const both = await callTool(client, "search", {
        repo: "org/code",
        pattern: "alpha",
        context: 1,
      });
      assertEquals(rows(both.texts[0]), [
        "1- // header",
        "2: export function alpha(x: number): number {",
        "3-   return x + 1;",
        "--",
        "8- export function beta(y: number): number {",
        "9:   return alpha(y) * 2;",
        "10- }",
      ]);
      // Paths only: no context; more than 20 lines is refused by the schema.
      assertEquals(rows(await search({ output: "files", context: 2 })), []);
      const tooMany = await callTool(client, "search", {
        repo: "org/code",
        pattern: "alpha",
        context: 21,
      });
      assertEquals(tooMany.code, "INVALID_ARGUMENTS");
    } finally {
      await client.close();
    }
  }, {
    repositories: [{ name: "org/code", publicRead: true, files: { "src/code.ts": SOURCE } }],
  }));
