/**
 * What a `symbols` answer tells without a second call, through an SDK
 * client on symbols the real build extracted (the builder process's build,
 * run in the test process): each definition's first line (several languages, indentation and CRLF trimmed, a long line
 * cut with a marker, never inside a character, also on a line longer than
 * an index chunk, and deep in a file of many chunks), no link an agent could not open, and a lookup that finds
 * nothing saying what it may have meant (a case-only miss, a prefix, the
 * nearest names, filters that left nothing), in one repository and across
 * several.
 */

import { assert, assertEquals, waitFor } from "../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { callText, callTool } from "../../support/tool_calls.ts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SIGNATURE_MAX_CHARS } from "../../../sourcegraph/search/symbol_search.ts";

const LONG_PARAMETERS = Array.from({ length: 40 }, (_, i) => `argument${i}: number`).join(", ");
// 25 + 100 + 100 + 2 code points: the cut at 200 falls among the astral characters.
const WIDE_LINE = `export const wideName = "${"é".repeat(100)}${"😀".repeat(100)}";`;
// One line far longer than an index chunk (4 KiB): a chunk of its own. Its bulk is one string
// literal: as 6,000 statements it cost the parser 0.6 processor-seconds, which a loaded machine
// stretched past the per-file parse deadline (5 s), and the line patterns the file then fell
// back to find no definition on it (the lookup found nothing).
const MINIFIED = `function minifiedEntry(a){return a}var s="${"x=1;".repeat(12_000)}";`;

// Definitions past the first chunks of a file, the last on a line with no newline after it.
const BIG = [
  ...Array.from({ length: 400 }, (_, i) => `// padding line ${i} of a file many chunks long`),
  "export function deepDefinition(): void {}",
  ...Array.from({ length: 400 }, (_, i) => `// more padding ${i} after the deep definition`),
  "export function lastLineDefinition(): void {}",
].join("\n");

const FILES = {
  "src/config.ts": [
    "export function parseConfig(text: string): string {",
    "  return text;",
    "}",
    "export function parseConfigFile(path: string): string {",
    "  return path;",
    "}",
    "export class ConfigLoader {",
    "    load(): void {}",
    "}",
    `export function longSignature(${LONG_PARAMETERS}): void {}`,
    WIDE_LINE,
    "",
  ].join("\n"),
  "pkg/server.go": "package pkg\n\ntype Server struct {\n\tAddr string\n}\n\n" +
    "func (s *Server) Serve(addr string) error {\n\treturn nil\n}\n",
  "lib/parse.py": "class Parser:\n    def parse_line(self, text):\n        return text\n",
  "src/frame.rs": "pub fn render_frame(width: u32) -> String {\n    String::new()\n}\n",
  "src/crlf.c": "int crlf_function(void)\r\n{\r\n  return 0;\r\n}\r\n",
  "dist/bundle.js": `${MINIFIED}\n`,
  "src/big.ts": BIG,
};

interface Answer {
  commit?: string;
  symbols: { name: string; path: string; start_line: number; signature?: string }[];
  total: number;
  ignore_case_names?: string[];
  prefix_names?: string[];
  nearest_names?: string[];
  hint?: string;
}

function withLanguages(
  fn: (client: Client, run: (args: Record<string, unknown>) => Promise<Answer>) => Promise<void>,
): Promise<void> {
  return withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle);
    const run = async (args: Record<string, unknown>) =>
      JSON.parse(await callText(client, "symbols", { repo: "org/lang", ...args })) as Answer;
    try {
      for (const repo of ["org/lang", "org/other"]) {
        await waitFor(async () =>
          (await callTool(client, "symbols", { repo, query: "x" })).code === "OK"
        );
      }
      await fn(client, run);
    } finally {
      await client.close();
    }
  }, {
    repositories: [
      { name: "org/lang", publicRead: true, files: FILES },
      { name: "org/other", publicRead: true, files: { "a.py": "def unrelated():\n    pass\n" } },
    ],
    searchIndex: true,
  });
}

const signatureOf = async (
  run: (args: Record<string, unknown>) => Promise<Answer>,
  query: string,
) => (await run({ query })).symbols.map((s) => s.signature);

// One service for every case: none changes what another reads.
Deno.test("symbols: one service of its repositories, case by case", (t) =>
  withLanguages(async (client, run) => {
    await t.step(
      "symbols: each definition carries its first line, trimmed and cut whole",
      async () => {
        const sign = (query: string) => signatureOf(run, query);
        assertEquals(await sign("parseConfig"), [
          "export function parseConfig(text: string): string {",
        ]);
        assertEquals(await sign("load"), ["load(): void {}"]); // leading white space trimmed
        assertEquals(await sign("Serve"), ["func (s *Server) Serve(addr string) error {"]);
        assertEquals(await sign("Server"), ["type Server struct {"]);
        assertEquals(await sign("parse_line"), ["def parse_line(self, text):"]);
        assertEquals(await sign("render_frame"), ["pub fn render_frame(width: u32) -> String {"]);
        assertEquals(await sign("crlf_function"), ["int crlf_function(void)"]); // no trailing CR
        // A long line: its first SIGNATURE_MAX_CHARS characters and the cut marker.
        const line = `export function longSignature(${LONG_PARAMETERS}): void {}`;
        assertEquals(await sign("longSignature"), [`${line.slice(0, SIGNATURE_MAX_CHARS)}…`]);
        // Cut among astral characters: 200 code points, never half of a surrogate pair.
        const [wide] = await sign("wideName");
        assertEquals(wide, `export const wideName = "${"é".repeat(100)}${"😀".repeat(75)}…`);
        assertEquals([...wide!].length, SIGNATURE_MAX_CHARS + 1);
        assert(wide!.isWellFormed());
        // A line longer than an index chunk is read from its start.
        const [minified] = await sign("minifiedEntry");
        assertEquals(minified, `${MINIFIED.slice(0, SIGNATURE_MAX_CHARS)}…`);
        // Lines deep in a file of many chunks, the last one without a newline after it.
        assertEquals(
          (await run({ query: "deepDefinition" })).symbols.map((s) => [s.start_line, s.signature]),
          [[401, "export function deepDefinition(): void {}"]],
        );
        assertEquals(
          (await run({ query: "lastLineDefinition" })).symbols.map((
            s,
          ) => [s.start_line, s.signature]),
          [[802, "export function lastLineDefinition(): void {}"]],
        );
        // No relative link rides along: nothing in the answer an agent could not open.
        const answer = JSON.stringify(await run({ query: "parseConfig" }));
        assert(!answer.includes('"url"') && !answer.includes("/sourcegraph/"), answer);
      },
    );
    await t.step("symbols: a lookup that finds nothing says what it may have meant", async () => {
      const hint = "`search` finds text (uses, comments, strings) and names the index has no " +
        "definition of.";
      // A near miss: the nearest defined name, and the whole answer as an agent gets it.
      const near = await run({ query: "parseConfg" });
      assertEquals(
        await callText(client, "symbols", { repo: "org/lang", query: "parseConfg" }),
        JSON.stringify({
          repo: "org/lang",
          commit: near.commit,
          symbols: [],
          total: 0,
          has_more: false,
          nearest_names: ["parseConfig"],
          hint:
            `No definition matches at this commit. nearest_names are the nearest defined names. ${hint}`,
        }),
      );
      // A case-only miss names what ignore_case finds, which finds it.
      const caseless = await run({ query: "PARSECONFIG" });
      assertEquals([caseless.ignore_case_names, caseless.prefix_names], [
        ["parseConfig"],
        undefined,
      ]);
      assertEquals((await run({ query: "PARSECONFIG", ignore_case: true })).total, 1);
      // A prefix names the names it starts, which match: "prefix" finds.
      const prefix = await run({ query: "parseConf" });
      assertEquals(prefix.prefix_names, ["parseConfig", "parseConfigFile"]);
      assert(prefix.hint!.includes('try match: "prefix"'), prefix.hint);
      assertEquals((await run({ query: "parseConf", match: "prefix" })).total, 2);
      // A prefix lookup that misses only by case.
      assertEquals((await run({ query: "PARSECONF", match: "prefix" })).ignore_case_names, [
        "parseConfig",
        "parseConfigFile",
      ]);
      // Filters that leave nothing of a defined name say so.
      const filtered = await run({ query: "parseConfig", kinds: ["class"] });
      assert(filtered.hint!.includes("The name is defined, but not in these kinds"), filtered.hint);
      // Near nothing: only the advice.
      const nothing = await run({ query: "zqxwvy" });
      assertEquals(
        [nothing.ignore_case_names, nothing.prefix_names, nothing.nearest_names],
        [undefined, undefined, undefined],
      );
      assertEquals(nothing.hint, `No definition matches at this commit. ${hint}`);
      // A page with definitions has no hint.
      assertEquals((await run({ query: "parseConfig" })).hint, undefined);
      // Across repositories: the names of every repository searched, merged.
      const across = JSON.parse(
        await callText(client, "symbols", { query: "unrelatd", repo: "org/*" }),
      ) as Answer;
      assertEquals([across.total, across.nearest_names], [0, ["unrelated"]]);
      const acrossCase = JSON.parse(
        await callText(client, "symbols", { query: "ParseConfig", repo: "org/*" }),
      ) as Answer;
      assertEquals(acrossCase.ignore_case_names, ["parseConfig"]);
    });
  }));
