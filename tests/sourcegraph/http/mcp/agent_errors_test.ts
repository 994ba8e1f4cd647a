/**
 * Errors an agent can act on: every tool error is `{"code","message"}` with a
 * `hint` where one helps, and the hint names what does exist (repositories,
 * paths, branches and versions, tools, arguments) without ever naming what
 * the caller may not see.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assert, assertEquals, assertIncludes } from "../../../support/assert.ts";
import {
  connectInProcess,
  type InProcessWorld,
  withInProcessService,
  WORLD_KEY,
  WORLD_TOKEN as TOKEN,
  type WorldRepository,
} from "../../../support/in_process_service.ts";
import { texts } from "../../../support/tool_calls.ts";

interface ToolError {
  code: string;
  message: string;
  hint?: string;
}

async function toolError(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolError> {
  const result = await client.callTool({ name, arguments: args });
  assertEquals(result.isError, true, `${name} ${JSON.stringify(args)}: ${texts(result)[0]}`);
  const [text] = texts(result);
  assert(text.length <= 4_000, `error answer of ${text.length} characters`);
  const parsed = JSON.parse(text) as ToolError;
  assert(!parsed.message.includes("\n"), "one-line message");
  return parsed;
}

const REPOSITORIES: WorldRepository[] = [
  { name: "org/open", publicRead: true, files: { "a.txt": "open\n" } },
  { name: "org/opener", publicRead: true, files: { "a.txt": "opener\n" } },
  { name: "org/secret", publicRead: false, files: { "a.txt": "secret\n" } },
  {
    name: "org/tree",
    publicRead: true,
    files: {
      "src/main.ts": "export const main = 1;\n",
      "src/lib/reader.ts": "export const reader = 2;\n",
      "docs/guide.md": "# Guide\n",
      "README.md": "tree\n",
    },
  },
];

// The cases run as steps of one world, in this order (the last removes org/secret).
const CASES: [string, (world: InProcessWorld) => Promise<void>][] = [];
function errorsCase(name: string, fn: (world: InProcessWorld) => Promise<void>): void {
  CASES.push([name, fn]);
}

Deno.test("agent errors over one world of four repositories", (t) =>
  withInProcessService(async (world) => {
    for (const [name, fn] of CASES) await t.step(name, () => fn(world));
  }, { repositories: REPOSITORIES }));

errorsCase(
  "agent errors: a missing path names the nearest paths at that commit; a bad revision lists branches and retained versions",
  async ({ handle, heads }) => {
    const client = await connectInProcess(handle);
    try {
      const missing = await toolError(client, "read", { repo: "org/tree", path: "src/mian.ts" });
      assertEquals(missing.code, "FILE_NOT_FOUND");
      assertIncludes(missing.hint!, 'Nearest paths at this commit: "src/main.ts"');
      assertIncludes(missing.hint!, "`list`");
      // In read_many the failed item says the same on a Hint line; the others read as usual.
      const many = await client.callTool({
        name: "read_many",
        arguments: { repo: "org/tree", files: [{ path: "README.md" }, { path: "src/mian.ts" }] },
      });
      const [, failed] = texts(many);
      assertIncludes(failed, 'Error: "FILE_NOT_FOUND" — "Item 2: no such file at this commit"');
      assertIncludes(failed, 'Hint: "Nearest paths at this commit: \\"src/main.ts\\"');
      assertIncludes(texts(many)[0], "1: tree");

      const head = heads.get("org/tree")!;
      for (
        const [revision, code] of [
          ["mian", "BRANCH_NOT_MONITORED"],
          [head.slice(0, 7), "SHORT_SHA_UNSUPPORTED"],
          ["f".repeat(40), "REVISION_NOT_ELIGIBLE"],
          ["HEAD~1", "INVALID_REVISION"],
        ]
      ) {
        const error = await toolError(client, "read", {
          repo: "org/tree",
          path: "README.md",
          revision,
        });
        assertEquals(error.code, code, revision);
        assertIncludes(error.hint!, 'Monitored branches: "main"');
        assertIncludes(error.hint!, `${head} (main)`);
      }
      const short = await toolError(client, "resolve", {
        repo: "org/tree",
        revision: head.slice(0, 7),
      });
      assertIncludes(short.hint!, `Retained versions starting so: ${head} (main)`);
    } finally {
      await client.close();
    }
  },
);

errorsCase(
  "agent errors: an invalid RE2 pattern gives RE2's reason and position and suggests fixed_strings",
  async ({ handle }) => {
    const client = await connectInProcess(handle);
    try {
      const error = await toolError(client, "search", { repo: "org/tree", pattern: "main(bar" });
      assertEquals(error.code, "INVALID_PATTERN");
      assertEquals(
        error.message,
        "the pattern is not valid RE2 syntax: missing closing ) at character 1 (`main(bar`)",
      );
      assertIncludes(error.hint!, "fixed_strings: true");
      const bracket = await toolError(client, "search", { repo: "org/tree", pattern: "a[b" });
      assertIncludes(bracket.message, "missing closing ] at character 2 (`[b`)");
      // The literal text the agent meant is found with fixed_strings.
      const literal = await client.callTool({
        name: "search",
        arguments: { repo: "org/tree", pattern: "main(bar", fixed_strings: true },
      });
      assertEquals(literal.isError, undefined);
    } finally {
      await client.close();
    }
  },
);

errorsCase(
  "agent errors: bad arguments are named one field at a time with the tool's arguments; an unknown tool lists the tools",
  async ({ handle }) => {
    const client = await connectInProcess(handle);
    try {
      const bad = await toolError(client, "read", {
        repo: "org/tree",
        start_line: 0,
        bogus: true,
      });
      assertEquals(bad.code, "INVALID_ARGUMENTS");
      assertEquals(
        bad.message,
        "invalid arguments for read: path: required; " +
          "start_line: too small: expected number to be >=1; bogus: not an argument",
      );
      assertEquals(
        bad.hint,
        "read takes: repo (required), path (required), revision, start_line, end_line, max_bytes, plugins.",
      );
      const nested = await toolError(client, "read_many", {
        repo: "org/tree",
        files: [{ path: "a" }, { path: 7 }],
      });
      assertEquals(
        nested.message,
        "invalid arguments for read_many: files[1].path: invalid input: expected string, received number",
      );
      const many = await toolError(
        client,
        "read",
        Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`x${i}`, i])),
      );
      assertIncludes(many.message, "and 44 more");

      const typo = await toolError(client, "raed", { repo: "org/tree", path: "README.md" });
      assertEquals(typo, {
        code: "UNKNOWN_TOOL",
        message: 'no tool named "raed"',
        hint:
          "Tools: repositories, availability, resolve, search, symbols, definition, references, read, read_many, list, diff, locate, blame, history, commits. Did you mean read?",
      });
      // A tool a signed-in caller may not call is unknown to it, like one that does not exist
      // (an anonymous caller is asked to sign in: tests/sourcegraph/http/oauth_http_test.ts).
      const reader = await connectInProcess(handle, { token: WORLD_KEY });
      const prepare = await toolError(reader, "prepare", {
        repo: "org/tree",
        idempotency_key: "prep-0001",
      }).finally(() => reader.close());
      assertEquals(prepare.code, "UNKNOWN_TOOL");
      assert(!prepare.hint!.includes("prepare"), prepare.hint);
      const huge = await toolError(client, "x".repeat(10_000), {});
      assert(huge.message.length < 100, huge.message);
    } finally {
      await client.close();
    }
  },
);

errorsCase(
  "agent errors: a missing repository names the nearest visible ones only, the same whether a private one of that name exists",
  async ({ handle, store }) => {
    const anonymous = await connectInProcess(handle);
    const token = await connectInProcess(handle, { token: TOKEN });
    try {
      const typo = await toolError(anonymous, "read", { repo: "org/opne", path: "a.txt" });
      assertEquals(typo.code, "REPOSITORY_NOT_FOUND");
      assertEquals(typo.message, "no such repository");
      assertIncludes(typo.hint!, 'Nearest visible: "org/open", "org/opener"');
      assertIncludes(typo.hint!, "call `repositories`");
      assert(!typo.hint!.includes("secret"), typo.hint);

      // The private name, asked anonymously: the answer is the one a missing name gets,
      // byte for byte, before and after the private repository is removed.
      const privateAnswer = await anonymous.callTool({
        name: "read",
        arguments: { repo: "org/secret", path: "a.txt" },
      });
      assert(!texts(privateAnswer)[0].includes('"org/secret"'), texts(privateAnswer)[0]);
      const seen = await toolError(token, "read", { repo: "org/secrte", path: "a.txt" });
      assertIncludes(seen.hint!, '"org/secret"');
      await store.remove(store.repository("org/secret")!.id);
      const missingAnswer = await anonymous.callTool({
        name: "read",
        arguments: { repo: "org/secret", path: "a.txt" },
      });
      assertEquals(texts(privateAnswer), texts(missingAnswer));
    } finally {
      await anonymous.close();
      await token.close();
    }
  },
);
