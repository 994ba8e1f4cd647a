/**
 * The `symbols` tool through an SDK client, on symbols the real build
 * extracted (the builder process's build, run in the test process): exact,
 * prefix and regex lookups, filters, ranking (the definition before
 * same-named members, code before tests), a read of
 * a returned range gives the definition, pages by cursor and by max_bytes,
 * names as data, and the errors an agent can recover from.
 */

import { assert, assertEquals, waitFor } from "../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { callText, callTool } from "../../support/tool_calls.ts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

const FILES = {
  "src/config.ts": [
    "export interface ConfigOptions {",
    "  path: string;",
    "}",
    "",
    "export class ConfigLoader {",
    "  load(options: ConfigOptions): string {",
    "    return parseConfig(options.path);",
    "  }",
    "}",
    "",
    "export function parseConfig(text: string): string {",
    "  return text.trim();",
    "}",
    "",
  ].join("\n"),
  "src/parser.py": "class Parser:\n    def parse_config(self, text):\n        return text\n",
  "lib/store.c":
    "#define MAX_ITEMS 64\nstruct store { int count; };\nint parseConfig(const char *p)\n{\n  return 0;\n}\n",
  "tests/config_test.ts": "function parseConfig() {}\n",
  "docs/notes.md": "parseConfig is documented here.\n",
  "src/hostile.js": "const $__proto__$ = 1;\n",
};

interface SymbolsAnswer {
  repo: string;
  commit: string;
  symbols: {
    name: string;
    kind: string;
    container?: string;
    language: string;
    path: string;
    start_line: number;
    end_line: number;
    signature?: string;
  }[];
  total: number;
  has_more: boolean;
  next_cursor?: string;
}

// A service whose org/sym is indexed; `run` looks symbols up there.
function withSymbols(
  fn: (client: Client, run: (args: Record<string, unknown>) => Promise<SymbolsAnswer>) => Promise<
    void
  >,
): Promise<void> {
  return withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle);
    const run = async (args: Record<string, unknown>) =>
      JSON.parse(await callText(client, "symbols", { repo: "org/sym", ...args })) as SymbolsAnswer;
    try {
      await waitFor(async () =>
        (await callTool(client, "symbols", { repo: "org/sym", query: "x" })).code === "OK"
      );
      await fn(client, run);
    } finally {
      await client.close();
    }
  }, {
    repositories: [{ name: "org/sym", publicRead: true, files: FILES }],
    searchIndex: true,
  });
}

// One service for every case: none changes what another reads.
Deno.test("symbols: one service of org/sym, case by case", (t) =>
  withSymbols(async (client, run) => {
    await t.step(
      "symbols: lookups by name, prefix and regex on the builder's symbols",
      async () => {
        const exact = await run({ query: "parseConfig" });
        // The definition in code first, the test's after it; never the Markdown mention.
        assertEquals(
          exact.symbols.map((s) =>
            `${s.path}:${s.start_line}-${s.end_line} ${s.kind} ${s.language}`
          ),
          [
            "lib/store.c:3-6 function c",
            "src/config.ts:11-13 function typescript",
            "tests/config_test.ts:1-1 function typescript",
          ],
        );
        assertEquals(exact.total, 3);
        assertEquals(exact.has_more, false);
        assert(/^[0-9a-f]{40}$/.test(exact.commit));
        // Each carries its first line (no relative link an agent could not open).
        assertEquals(exact.symbols.map((s) => [s.signature, "url" in s]), [
          ["int parseConfig(const char *p)", false],
          ["export function parseConfig(text: string): string {", false],
          ["function parseConfig() {}", false],
        ]);
        // A read of the returned range is the definition.
        const read = await callText(client, "read", {
          repo: "org/sym",
          path: "src/config.ts",
          revision: exact.commit,
          start_line: 11,
          end_line: 13,
        });
        assert(read.includes("11: export function parseConfig(text: string): string {"), read);
        assert(read.includes("13: }"), read);

        const members = await run({ query: "load" });
        assertEquals(members.symbols.map((s) => [s.kind, s.container, s.signature]), [
          ["method", "ConfigLoader", "load(options: ConfigOptions): string {"],
        ]);
        const fields = await run({ query: "count" });
        assertEquals(fields.symbols.map((s) => [s.kind, s.container, s.path]), [
          ["field", "store", "lib/store.c"],
        ]);
        const prefix = await run({ query: "Config", match: "prefix" });
        // Same rank and file: in line order.
        assertEquals(prefix.symbols.map((s) => `${s.kind} ${s.name}`), [
          "interface ConfigOptions",
          "class ConfigLoader",
        ]);
        const regex = await run({ query: "(?i)^parse_?config$", match: "regex" });
        assertEquals(regex.total, 4);
        const python = await run({ query: "parse_config", languages: ["python"] });
        assertEquals(python.symbols.map((s) => [s.kind, s.container]), [["method", "Parser"]]);
        const constants = await run({ query: "MAX_ITEMS", kinds: ["constant"] });
        assertEquals(constants.symbols.length, 1);
        const noTests = await run({ query: "parseConfig", glob: ["!tests/**"], paths: ["src"] });
        assertEquals(noTests.symbols.map((s) => s.path), ["src/config.ts"]);
        const caseless = await run({ query: "PARSECONFIG", ignore_case: true });
        assertEquals(caseless.total, 3);
      },
    );
    await t.step(
      "symbols: pages continue by cursor and by max_bytes, names stay data, errors recover",
      async () => {
        const all = await run({ query: ".", match: "regex", first: 500 });
        assert(all.total >= 10, JSON.stringify(all));
        const seen: string[] = [];
        let page = await run({ query: ".", match: "regex", first: 3 });
        for (let guard = 0; guard < 50; guard++) {
          seen.push(...page.symbols.map((s) => `${s.path}:${s.start_line}:${s.name}`));
          if (!page.has_more) break;
          page = await run({ query: ".", match: "regex", first: 3, after: page.next_cursor });
        }
        assertEquals(seen, all.symbols.map((s) => `${s.path}:${s.start_line}:${s.name}`));
        // A byte budget cuts the page early; its cursor continues right after the last shown.
        const small = await callText(client, "symbols", {
          repo: "org/sym",
          query: ".",
          match: "regex",
          first: 500,
          max_bytes: 1024,
        });
        assert(new TextEncoder().encode(small).length <= 1024);
        const cut = JSON.parse(small) as SymbolsAnswer;
        assert(cut.has_more && cut.symbols.length < all.symbols.length);
        const rest = await run({ query: ".", match: "regex", first: 500, after: cut.next_cursor });
        assertEquals(
          [...cut.symbols, ...rest.symbols].map((s) => s.name),
          all.symbols.map((s) => s.name),
        );
        // A name that means something to JavaScript objects is only a string here.
        const proto = await run({ query: "$__proto__$" });
        assertEquals(proto.symbols.map((s) => [s.name, s.kind]), [["$__proto__$", "variable"]]);
        const errors = await Promise.all([
          callTool(client, "symbols", { repo: "org/sym", query: "x", after: "not-a-cursor" }),
          callTool(client, "symbols", { repo: "org/sym", query: "(", match: "regex" }),
          callTool(client, "symbols", { repo: "org/sym", query: "x", kinds: ["struct"] }),
          callTool(client, "symbols", { repo: "org/nope", query: "x" }),
        ]);
        assertEquals(errors.map((e) => e.code), [
          "INVALID_CURSOR",
          "INVALID_PATTERN",
          "INVALID_ARGUMENTS",
          "REPOSITORY_NOT_FOUND",
        ]);
        assert(errors[2].texts[0].includes("class"), errors[2].texts[0]); // the hint lists the kinds
      },
    );
  }));
