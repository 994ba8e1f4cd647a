/**
 * A search that finds nothing says what its restrictions removed, from the
 * index's own numbers: files at the commit, files the paths and globs keep,
 * files holding the pattern's literals, and (case-sensitive) in any case.
 */

import { assert, assertEquals, waitFor } from "../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { callText } from "../../support/tool_calls.ts";

const FILES = {
  "src/reader.ts": "export class StreamReader {}\nconst reader = new StreamReader();\n",
  "src/writer.ts": "export class StreamWriter {}\n",
  "docs/guide.md": "Readers read; writers write.\n",
  "assets/logo.bin": new Uint8Array([0, 1, 2, 3]),
};

// The two lines after "No matches…", or [] when there are none.
function explanation(text: string): string[] {
  const lines = text.trimEnd().split("\n");
  const at = lines.findIndex((line) => line.startsWith("No matches."));
  assert(at !== -1, text);
  return lines.slice(at + 1);
}

Deno.test("zero results: the answer says whether paths, literals or case removed everything", () =>
  withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle);
    const run = (args: Record<string, unknown>) =>
      callText(client, "search", { repo: "org/zero", ...args });
    try {
      await waitFor(async () => (await run({ pattern: "absent" })).includes('Index: "ready"'));
      assertEquals(explanation(await run({ pattern: "nowhere_to_be_found" })), [
        "FilesAtCommit: 4; InPathsAndGlobs: 3; HoldingLiteralsAnyCase: 0",
        "No file in the paths and globs holds the pattern's literals.",
      ]);
      // A literal with punctuation that finds nothing (its caseless retry is compiled too).
      assertEquals(
        explanation(await run({ pattern: "stream-reader/none", fixed_strings: true }))[0],
        "FilesAtCommit: 4; InPathsAndGlobs: 3; HoldingLiteralsAnyCase: 0",
      );
      assertEquals(explanation(await run({ pattern: "STREAMREADER" })), [
        "FilesAtCommit: 4; InPathsAndGlobs: 3; HoldingLiteralsAnyCase: 1; IgnoreCaseMatches: yes",
        "An ignore-case search matches: try ignore_case: true.",
      ]);
      // With ignore_case there is no other case to try (and the search finds it).
      assert(!(await run({ pattern: "STREAMREADER", ignore_case: true })).includes("No matches"));
      assertEquals(explanation(await run({ pattern: "StreamReader", glob: ["*.md"] })), [
        "FilesAtCommit: 4; InPathsAndGlobs: 1; HoldingLiteralsAnyCase: 0",
        "No file in the paths and globs holds the pattern's literals.",
      ]);
      assertEquals(explanation(await run({ pattern: "StreamReader", paths: ["lib"] })), [
        "FilesAtCommit: 4; InPathsAndGlobs: 0; HoldingLiteralsAnyCase: 0",
        "The paths and globs leave no text file: widen or drop them.",
      ]);
      // The literals are there, the whole pattern is not, in any case.
      assertEquals(explanation(await run({ pattern: "StreamReader\\(\\d" })), [
        "FilesAtCommit: 4; InPathsAndGlobs: 3; HoldingLiteralsAnyCase: 1; IgnoreCaseMatches: no",
        "1 file(s) were read and no line matches the whole pattern: loosen it.",
      ]);
      assertEquals(
        explanation(await run({ pattern: "StreamReader\\(\\d", ignore_case: true })),
        [
          "FilesAtCommit: 4; InPathsAndGlobs: 3; HoldingLiteralsAnyCase: 1",
          "1 file(s) were read and no line matches the whole pattern: loosen it.",
        ],
      );
      // No literal of three characters: only the scope is counted.
      assertEquals(explanation(await run({ pattern: "[0-9]{7}" })), [
        "FilesAtCommit: 4; InPathsAndGlobs: 3",
        "3 file(s) were read and no line matches the whole pattern: loosen it.",
      ]);
    } finally {
      await client.close();
    }
  }, {
    repositories: [{ name: "org/zero", publicRead: true, files: FILES }],
    searchIndex: true,
  }));
