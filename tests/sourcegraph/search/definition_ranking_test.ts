/**
 * Search through the index ranks files that define a matching name above
 * the files whose name matches, and those above the files that only use it,
 * the whole name before longer ones in each of the first two groups;
 * pages continue across the groups by cursor without losing or repeating a
 * match, and a cursor of an unranked page continues unranked.
 */

import { assert, assertEquals, waitFor } from "../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { callText } from "../../support/tool_calls.ts";

const USERS = Object.fromEntries(
  Array.from({ length: 60 }, (_, i) => [
    `app/use_${String(i).padStart(2, "0")}.ts`,
    `import { drawFrame } from "../zlib/frame.ts";\nexport const frame${i} = drawFrame(${i}); // ${
      "x".repeat(80)
    }\n`,
  ]),
);

const FILES = {
  ...USERS,
  "zlib/frame.ts": "export function drawFrame(n: number): string {\n  return String(n);\n}\n",
  "zlib/legacy.py": "def drawFrame(n):\n    return n\n",
  "notes.md": "drawFrame draws a frame.\n",
  "a/docs.md": "the parser reads\n",
  "b/notes.md": "parser notes\n",
  "z/parser.go": "package z // parser\n",
  // A longer name holding the one searched for: after the files defining the name itself.
  "m/draw.ts": "export function drawFrameLater(): void {} // calls drawFrame\n",
  // A file name holding the word: after the file named by it exactly.
  "y/parser_util.go": "package y // parser helpers\n",
};

function files(text: string): string[] {
  return [...text.matchAll(/^File: "(.*)"$/gm)].map((m) => m[1]);
}

function nextCursor(text: string): string | null {
  const found = /^NextCursor: (".*")$/m.exec(text);
  return found ? JSON.parse(found[1]) : null;
}

Deno.test("search ranking: defining files first, pages continue across the groups", () =>
  withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle);
    const run = (args: Record<string, unknown>) =>
      callText(client, "search", { repo: "org/rank", ...args });
    try {
      await waitFor(async () => (await run({ pattern: "drawFrame" })).includes("Ranking: "));
      const whole = await run({ pattern: "drawFrame", max_bytes: 256 * 1024 });
      const expected = [
        "zlib/frame.ts",
        "zlib/legacy.py",
        "m/draw.ts",
        ...Object.keys(USERS),
        "notes.md",
      ];
      assertEquals(files(whole), expected);
      assert(whole.includes('File: "zlib/frame.ts"\nDefines: ["drawFrame"]\n1: export function'));
      assert(!whole.includes('File: "notes.md"\nDefines'), "a mention defines nothing");
      // Small pages: every file once, in the same order, across the two groups.
      const seen: string[] = [];
      let after: string | null = null;
      for (let page = 0; page < 40; page++) {
        const text: string = await run({
          pattern: "drawFrame",
          max_bytes: 4096,
          ...(after === null ? {} : { after }),
        });
        for (const path of files(text)) if (seen.at(-1) !== path) seen.push(path);
        after = nextCursor(text);
        if (after === null) break;
      }
      assertEquals(seen, expected);
      // A pattern that names no definition and no file is not ranked.
      assert(!(await run({ pattern: "draws a frame" })).includes("Ranking: "));
      // Files whose name the pattern matches come before the others.
      const named = await run({ pattern: "parser" });
      assertEquals(files(named), ["z/parser.go", "y/parser_util.go", "a/docs.md", "b/notes.md"]);
      assert(named.includes("Ranking: "));
      // A cursor of an unranked page (the shape before ranking) continues in path order.
      const commit = /^Commit: "(.*)"$/m.exec(whole)![1];
      const unranked = new TextEncoder().encode(JSON.stringify([commit, "app/use_58.ts", null]))
        .toBase64({ alphabet: "base64url", omitPadding: true });
      const rest = await run({ pattern: "drawFrame", after: unranked });
      assertEquals(files(rest), [
        "app/use_59.ts",
        "m/draw.ts",
        "notes.md",
        "zlib/frame.ts",
        "zlib/legacy.py",
      ]);
      assert(!rest.includes("Ranking: "));
    } finally {
      await client.close();
    }
  }, {
    repositories: [{ name: "org/rank", publicRead: true, files: FILES }],
    searchIndex: true,
  }));
