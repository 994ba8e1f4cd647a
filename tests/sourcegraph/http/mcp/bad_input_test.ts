import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assert, assertEquals } from "../../../support/assert.ts";
import { connectInProcess, withInProcessService } from "../../../support/in_process_service.ts";
import { texts } from "../../../support/tool_calls.ts";

const NAME = "local/project";

// Each case: tool, arguments, and the expected error code (null: refused by the schema,
// INVALID_ARGUMENTS).
const CASES: [string, Record<string, unknown>, string | null][] = [
  ["read", { repo: NAME }, null],
  ["read", { repo: NAME, path: 7 }, null],
  ["read", { repo: NAME, path: "a.txt", start_line: "1" }, null],
  ["read", { repo: NAME, path: "a.txt", start_line: 1.5 }, null],
  ["read", { repo: NAME, path: "a.txt", end_line: -3 }, null],
  ["read", { repo: NAME, path: "x".repeat(4097) }, null],
  ["read", { repo: NAME, path: "a.txt", revision: "" }, null],
  ["read", { repo: "", path: "a.txt" }, null],
  ["read", { repo: NAME, path: "a\u0000b" }, "INVALID_PATH"],
  ["read", { repo: NAME, path: "a\nb" }, "INVALID_PATH"],
  ["read", { repo: NAME, path: "dir/../a.txt" }, "INVALID_PATH"],
  ["read", { repo: NAME, path: "a.txt", plugins: [{ name: "Bad Name" }] }, "INVALID_PLUGINS"],
  [
    "read",
    { repo: NAME, path: "a.txt", plugins: [{ name: "p" }, { name: "p" }] },
    "INVALID_PLUGINS",
  ],
  ["read", {
    repo: NAME,
    path: "a.txt",
    plugins: Array.from({ length: 17 }, (_, i) => ({ name: `p${i}` })),
  }, null],
  ["read_many", { repo: NAME, files: [{ path: "a.txt", extra: 1 }] }, null],
  ["read_many", { repo: NAME, files: "a.txt" }, null],
  ["search", { repo: NAME, pattern: "" }, null],
  ["search", { repo: NAME, pattern: "x", glob: Array.from({ length: 65 }, () => "*.ts") }, null],
  ["search", { repo: NAME, pattern: "x", paths: ["a\u0001b"] }, "INVALID_PATH"],
  ["search", { repo: NAME, pattern: "x", output: "json" }, null],
  ["search", { repo: NAME, pattern: "x", max_lines_per_file: 0 }, null],
  ["search", { repo: NAME, pattern: "x", max_lines_per_file: 1001 }, null],
  ["search", { repo: NAME, pattern: "(".repeat(5000) }, "INVALID_PATTERN"],
  ["list", { repo: NAME, first: 0 }, null],
  ["list", { repo: NAME, first: 1001 }, null],
  ["list", { repo: NAME, first: 5, path: "../x" }, "INVALID_PATH"],
  ["diff", { repo: NAME, base: "main", head: "main", first: 101 }, null],
  ["diff", { repo: NAME, base: "abc123", head: "main", first: 5 }, "SHORT_SHA_UNSUPPORTED"],
  ["resolve", { repo: NAME, revision: "x".repeat(257) }, null],
  ["resolve", { repo: NAME, revision: "main\u0000" }, "INVALID_REVISION"],
  ["repositories", { after: 5 }, null],
  ["repositories", { max_bytes: 10 }, null],
  ["search", { repo: NAME, pattern: "a", after: "" }, null],
  ["search", { repo: NAME, pattern: "a", after: "x".repeat(16_385) }, null],
  ["search", { repo: NAME, pattern: "a", after: "!!not base64!!" }, "INVALID_CURSOR"],
  ["search", { repo: NAME, pattern: "a", after: cursor("[".repeat(12_000)) }, "INVALID_CURSOR"],
  ["search", { repo: NAME, pattern: "a", after: cursor('["g",".",1]') }, "INVALID_CURSOR"],
  [
    "search",
    { repo: NAME, pattern: "a", after: cursor(`["${"a".repeat(40)}","a.txt",-1]`) },
    "INVALID_CURSOR",
  ],
  [
    "search",
    { repo: NAME, pattern: "a", after: cursor(`["${"a".repeat(40)}","a.txt",1]`) },
    "REVISION_NOT_ELIGIBLE",
  ],
  ["search", { repo: NAME, pattern: "a", max_bytes: 100 }, null],
  ["search", { repo: NAME, pattern: "a", context: -1 }, null],
  ["read", { repo: NAME, path: "a.txt", max_bytes: 1 << 30 }, null],
  ["blame", { repo: NAME, path: "a.txt", max_bytes: 1 << 30 }, null],
  ["blame", { repo: NAME, path: "a.txt", start_line: 0 }, null],
  ["history", { repo: NAME, first: 101 }, null],
  ["history", { repo: NAME, path: "a.txt", after: cursor('["history"]') }, "INVALID_CURSOR"],
  ["commits", { repo: NAME, first: 101 }, null],
  ["commits", { repo: NAME, paths: [] }, null],
  ["commits", { repo: NAME, message: "x".repeat(8193) }, null],
  ["commits", { repo: NAME, after: cursor('["commits"]') }, "INVALID_CURSOR"],
  ["commits", { repo: NAME, message: "(" }, "INVALID_PATTERN"],
  ["commits", { repo: NAME, until: "yesterday" }, "INVALID_ARGUMENTS"],
  ["commits", { repo: NAME, paths: ["a/../b"] }, "INVALID_PATH"],
  ["references", { repo: NAME, path: "a.txt", line: 0, column: 1 }, null],
  ["references", { repo: NAME, path: "a.txt", line: 1, max_bytes: 1 << 30 }, null],
  ["definition", { repo: NAME, path: "a.txt", line: 0, column: 1 }, null],
  ["definition", { repo: NAME, path: "a.txt", line: 1, column: 0 }, null],
  ["definition", { repo: NAME, path: "a.txt", line: 1, symbol: "a".repeat(201) }, null],
  [
    "locate",
    { repo: NAME, commit: "g".repeat(40), path: "a.txt", start_line: 1, end_line: 1 },
    "BRANCH_NOT_MONITORED",
  ],
  [
    "locate",
    { repo: NAME, commit: "a".repeat(39), path: "a.txt", start_line: 1, end_line: 1 },
    null,
  ],
  [
    "locate",
    { repo: NAME, commit: "a".repeat(40), path: "../a.txt", start_line: 1, end_line: 1 },
    "INVALID_PATH",
  ],
  ["list", { repo: NAME, first: 5, max_bytes: 0 }, null],
  ["search", { pattern: "a", after: cursor('["repos",[],0,null]') }, "INVALID_CURSOR"],
  ["search", { pattern: "a", after: cursor('["repos",[["a","zz"]],0,null]') }, "INVALID_CURSOR"],
  [
    "search",
    { pattern: "a", after: cursor(`["repos",[["${NAME}","${"a".repeat(40)}"]],5,null]`) },
    "INVALID_CURSOR",
  ],
  [
    "search",
    { pattern: "a", after: cursor(`["repos",[["${NAME}","${"a".repeat(40)}"]],0,["a.txt",-3]]`) },
    "INVALID_CURSOR",
  ],
  [
    "search",
    { pattern: "a", after: cursor(`["repos",[["${NAME}","${"a".repeat(40)}"]],0,null]`) },
    "INVALID_CURSOR",
  ],
  ["search", { repo: [], pattern: "a" }, null],
  ["search", { repo: Array.from({ length: 201 }, (_, i) => `org/r${i}`), pattern: "a" }, null],
  ["search", { repo: ["org/*", "nope/missing"], pattern: "a" }, "REPOSITORY_NOT_FOUND"],
  ["symbols", { repo: NAME, query: "" }, null],
  ["symbols", { repo: NAME, query: "a".repeat(2000) }, null],
  ["symbols", { repo: NAME, query: "a", first: 501 }, null],
  [
    "symbols",
    { repo: NAME, query: "a", after: cursor('["symbols","' + "a".repeat(40) + '",-1]') },
    "INVALID_CURSOR",
  ],
  ["symbols", { repo: NAME, query: "a", paths: ["../x"] }, "INVALID_PATH"],
  ["symbols", { repo: NAME, query: "a(", match: "regex" }, "INVALID_PATTERN"],
];

// A cursor token holding `json`.
function cursor(json: string): string {
  return new TextEncoder().encode(json).toBase64({ alphabet: "base64url", omitPadding: true });
}

Deno.test("every tool refuses bad arguments: types, sizes, traversal, control characters, huge patterns", () =>
  withInProcessService(async ({ handle }) => {
    const client: Client = await connectInProcess(handle);
    try {
      for (const [tool, args, code] of CASES) {
        const label = `${tool} ${JSON.stringify(args).slice(0, 100)}`;
        const result = await client.callTool({ name: tool, arguments: args }).catch((
          error: unknown,
        ) => ({
          isError: true,
          content: [{ type: "text", text: String(error) }],
        }));
        assert(result.isError, label);
        assertEquals(JSON.parse(texts(result)[0]).code, code ?? "INVALID_ARGUMENTS", label);
      }
      // In read_many a bad path fails only its item.
      const many = await client.callTool({
        name: "read_many",
        arguments: { repo: NAME, files: [{ path: "../a.txt" }, { path: "a.txt" }] },
      });
      assert(!many.isError);
      assert(texts(many)[0].includes(`Error: "INVALID_PATH"`));
      assert(texts(many)[1].includes("1: a"));
      // The service keeps answering normally afterwards.
      const ok = await client.callTool({ name: "read", arguments: { repo: NAME, path: "a.txt" } });
      assert(!ok.isError);
    } finally {
      await client.close();
    }
  }, { repositories: [{ name: NAME, publicRead: true, files: { "a.txt": "a\n" } }] }));
