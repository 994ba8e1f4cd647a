import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { compileSearch, globFilter } from "../../../sourcegraph/search/query/compiled_search.ts";
import {
  MAX_LITERALS,
  requiredLiterals,
} from "../../../sourcegraph/search/query/pattern_literals.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import {
  assert,
  assertEquals,
  assertIncludes,
  assertThrows,
  waitFor,
} from "../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { callText } from "../../support/tool_calls.ts";

const FILES: Record<string, string> = {
  "src/http.ts":
    "import x from 'y';\nexport function parseHTTPRequest(raw) {}\nconst a = parseHttpResponse();\n",
  "src/util/strings.ts": "export const dotted = 'a.b(c';\nPARSEHTTPREQUEST\n",
  "vendor/lib.ts": "function parseHTTPRequest() {}\n",
  "docs/notes.md": "parseHTTPRequest is documented here.\n",
  "many.txt": Array.from({ length: 30 }, (_, i) => `needle ${i}`).join("\n") + "\n",
  "redos.txt": "a".repeat(5000) + "!\n",
};

// Every service test runs twice: through the trigram index (the default,
// once it is built) and through git grep candidates (the index turned off).
const MODES: [string, Record<string, string>][] = [
  ["index", {}],
  ["git grep", { SOURCEGRAPH_SEARCH_INDEX: "false" }],
];
let mode: Record<string, string> = {};

async function withSearch(
  fn: (
    client: Client,
    head: string,
    run: (args: Record<string, unknown>) => Promise<string>,
  ) => Promise<void>,
) {
  const name = "local/project";
  const searchIndex = mode.SOURCEGRAPH_SEARCH_INDEX !== "false";
  await withInProcessService(async ({ handle, heads, sources }) => {
    await sources.get(name)!.write({
      "src/http.ts": "working tree edit parseHTTPRequest parseHTTPRequest\n",
    });
    const client = await connectInProcess(handle);
    const run = (args: Record<string, unknown>) =>
      callText(client, "search", { repo: name, ...args });
    try {
      const expected = searchIndex ? "ready" : "not_ready";
      await waitFor(async () =>
        (await run({ pattern: "needle" })).includes(`Index: "${expected}"`)
      );
      await fn(client, heads.get(name)!, run);
    } finally {
      await client.close();
    }
  }, { repositories: [{ name, publicRead: true, files: FILES }], searchIndex });
}

// The files of a search whose hits in `defining` define a matching name: first
// through the index (ranked), in path order with git grep.
function rankedFiles(defining: string[], rest: string[]): string[] {
  return mode.SOURCEGRAPH_SEARCH_INDEX !== "false"
    ? [...defining, ...rest]
    : [...defining, ...rest].sort();
}

function files(text: string): string[] {
  return [...text.matchAll(/^File: "(.*)"$/gm)].map((m) => m[1]);
}

for (const [label, env] of MODES) {
  // One service a mode, its cases as steps: none of them changes what the next one reads.
  Deno.test(`search (${label}): one service, case by case`, (t) => {
    mode = env;
    return withSearch(async (client, head, run) => {
      await t.step(
        `search (${label}): RE2 line matches at the committed tree with the full commit`,
        async () => {
          const text = await run({ pattern: "parseHTTPRequest" });
          assertIncludes(text, `Commit: "${head}"`);
          const defining = ["src/http.ts", "vendor/lib.ts"];
          assertEquals(files(text), rankedFiles(defining, ["docs/notes.md"]));
          const defines = mode.SOURCEGRAPH_SEARCH_INDEX !== "false"
            ? 'Defines: ["parseHTTPRequest"]\n'
            : "";
          assertIncludes(
            text,
            `File: "src/http.ts"\n${defines}2: export function parseHTTPRequest(raw) {}`,
          );
          assert(!text.includes("working tree edit"), "the working tree is never searched");
          assertEquals(
            files(await run({ pattern: "parse\\w+Re(quest|sponse)" })),
            rankedFiles(defining, ["docs/notes.md"]),
          );
          assertEquals(
            files(await run({ pattern: "parsehttprequest", ignore_case: true })),
            rankedFiles(defining, ["docs/notes.md", "src/util/strings.ts"]),
          );
          assertEquals(files(await run({ pattern: "a.b(", fixed_strings: true })), [
            "src/util/strings.ts",
          ]);
        },
      );
      await t.step(
        `search (${label}): globs like rg -g, paths, output files, per-file line cap, zero hits`,
        async () => {
          assertEquals(files(await run({ pattern: "parseHTTPRequest", glob: ["*.ts"] })), [
            "src/http.ts",
            "vendor/lib.ts",
          ]);
          assertEquals(
            files(await run({ pattern: "parseHTTPRequest", glob: ["*.ts", "!vendor/**"] })),
            [
              "src/http.ts",
            ],
          );
          assertEquals(
            files(
              await run({ pattern: "parseHTTPRequest", glob: ["!vendor/**", "vendor/lib.ts"] }),
            ),
            ["vendor/lib.ts"],
          ); // later wins; with an include glob, unmatched files are out
          assertEquals(
            files(await run({ pattern: "parseHTTPRequest", paths: ["src", "docs"] })),
            rankedFiles(["src/http.ts"], ["docs/notes.md"]),
          );
          const listed = await run({ pattern: "needle", output: "files" });
          assertEquals(files(listed), ["many.txt"]);
          assert(!listed.includes("1: needle"), "output files lists no lines");
          const capped = await run({ pattern: "needle", max_lines_per_file: 2 });
          assertIncludes(
            capped,
            "1: needle 0\n2: needle 1\nLinesTruncated: true; MatchingLines: 30; shown: 2",
          );
          const none = await run({ pattern: "zebracorn" });
          assertIncludes(none, "FileCount: 0");
          assertIncludes(none, "Absence is not proven");
        },
      );
      await t.step(
        `search (${label}): invalid patterns, globs and paths are refused; RE2 stays linear`,
        async () => {
          for (const pattern of ["(", "a*", "(?=x)", "x(?!y)", "a\\nb", "^$", "[z-a]"]) {
            assertEquals(await run({ pattern }), "ERROR INVALID_PATTERN", pattern);
          }
          assertEquals(await run({ pattern: "x", glob: ["!"] }), "ERROR INVALID_GLOB");
          assertEquals(await run({ pattern: "x", paths: ["../etc"] }), "ERROR INVALID_PATH");
          assertEquals(await run({ pattern: "x", revision: "HEAD" }), "ERROR INVALID_REVISION");
          const started = performance.now();
          const redos = await run({ pattern: "(a+)+$" });
          // Backtracking on this pattern would take minutes; RE2 answers in milliseconds.
          assert(
            performance.now() - started < 30_000,
            "catastrophic backtracking cannot happen in RE2",
          );
          assertIncludes(redos, "FileCount: 0");
          const tooLong = await client.callTool({
            name: "search",
            arguments: { repo: "local/project", pattern: "x".repeat(8193) },
          });
          assert(tooLong.isError);
        },
      );
    });
  });
}

Deno.test("required literals never narrow a search wrongly", () => {
  const literals = (pattern: string, fixedStrings = false) =>
    requiredLiterals({ pattern, fixedStrings });
  assertEquals(literals("parseHTTPRequest"), ["parseHTTPRequest"]);
  assertEquals(literals("parse\\w+Request"), ["Request"]);
  assertEquals(literals("foo|bar"), ["foo", "bar"]);
  assertEquals(literals("(?i)abc"), null, "a folded literal names nothing");
  assertEquals(literals("ab?cd"), ["cd"]);
  assertEquals(literals("a\\.b"), ["a.b"]);
  assertEquals(literals("[abc]xyz"), ["xyz"]);
  assertEquals(literals("strbuf_add(f|str)\\(&buf"), ["strbuf_add"], "the longest required part");
  assertEquals(literals("(foo|ba)r+"), ["foo", "ba"]);
  assertEquals(literals("x.y", true), ["x.y"]);
  assertEquals(literals("[a-z]+"), null);
  const many = Array.from({ length: 300 }, (_, i) => `q${i * 7919}z`).join("|");
  assert((literals(many)?.length ?? 0) <= MAX_LITERALS, "at most MAX_LITERALS literals");
  assertEquals(
    assertThrows(() => compileSearch({ pattern: "\n" }), SourcegraphError).code,
    "INVALID_PATTERN",
  );
  const keep = globFilter(["*.md", "!docs/private/**"]);
  assertEquals(["a.md", "docs/x.md", "docs/private/y.md", "a.ts"].map(keep), [
    true,
    true,
    false,
    false,
  ]);
});
