import { fileURLToPath } from "node:url";
import { parse as parseToml } from "smol-toml";
import { providerEntry } from "../../project_knowledge/runner_entry.ts";
import { assert, assertEquals, assertIncludes } from "../support/assert.ts";
import {
  checkOutput,
  FakeRunner,
  PROGRAM_ROOT,
  ProtocolViolation,
  providerArgs,
} from "../support/fake_runner.ts";
import { withProject, withProvider } from "../support/knowledge_project.ts";

const FILES = { "src/app.ts": "export function parseHTTPRequest() {}\n" };
const INIT = { protocolVersion: "webcodex-plugin-v1" };

Deno.test("admission: initialize echoes the version and the catalog passes the Runner's checks", () =>
  withProvider(FILES, async (runner) => {
    assertEquals(runner.tools.map((tool) => tool.name), ["index", "read", "search", "status"]);
    for (const tool of runner.tools) {
      assertEquals(tool.projectBound, true);
      const schema = tool.inputSchema as Record<string, unknown>;
      assertEquals(schema.additionalProperties, false);
      const hints = tool.annotations as Record<string, boolean>;
      assertEquals(hints.readOnlyHint, tool.name !== "index", `${tool.name} readOnlyHint`);
      assertEquals(hints.destructiveHint, false);
    }
    const closed = await runner.close();
    assertEquals(closed.code, 0);
    assertEquals(closed.extraStdout, "");
  }));

async function outputSchemas(runner: FakeRunner): Promise<void> {
  for (const tool of runner.tools) {
    const schema = tool.outputSchema as Record<string, unknown>;
    assertEquals(schema.type, "object", String(tool.name));
    assertEquals(schema.required, undefined, `${String(tool.name)}: an error has only error`);
  }
  // The fake Runner checks each result against the schema, as the Runner does.
  const indexed = await runner.ok("index");
  assertEquals(indexed.indexed, true);
  assertEquals((await runner.ok("status")).indexed, true);
  const search = await runner.ok("search", { query: "parseHTTPRequest" });
  const hit = (search.hits as Record<string, unknown>[])[0];
  const read = await runner.ok("read", { path: hit.path, source_hash: hit.source_hash });
  assertEquals(read.path, "src/app.ts");
  assertEquals(
    await runner.errorCode("read", { path: "src/app.ts", source_hash: "0".repeat(64) }),
    "source_changed",
  );
  // A result that breaks its schema is a violation (the check can fail).
  const schema = (name: string) =>
    runner.tools.find((tool) => tool.name === name)!.outputSchema as Record<string, unknown>;
  const broken = (structuredContent: Record<string, unknown>) => {
    try {
      checkOutput(schema("search"), { content: [], structuredContent, isError: false });
      return null;
    } catch (error) {
      return (error as ProtocolViolation).code;
    }
  };
  assertEquals(broken({ hits: [{ ...hit, start_line: "1" }] }), "plugin_output_schema_violation");
  assertEquals(broken({ hits: [{ path: "a" }] }), "plugin_output_schema_violation");
  assertEquals(broken({ error: { message: "no code" } }), "plugin_output_schema_violation");
  assertEquals(broken({ results_truncated: "yes" }), "plugin_output_schema_violation");
  assertEquals(broken(search), null);
}

// The version check is the handler's: its code serves in this process, over the same framing.
Deno.test("admission: another protocol version is a JSON-RPC error", () =>
  withProject(FILES, async (project) => {
    const runner = FakeRunner.spawn(project.launch({ inProcess: true }));
    try {
      const response = await runner.request("initialize", {
        protocolVersion: "webcodex-plugin-v2",
      });
      assert("error" in response);
      assertEquals(response.error.code, -32602);
      assertEquals(response.error.message, "unsupported protocol version");
      const missing = await runner.request("initialize", {});
      assert("error" in missing);
    } finally {
      await runner.kill();
    }
  }));

Deno.test("each response is flushed while stdin stays open (interactive flush before EOF)", () =>
  withProject(FILES, async (project) => {
    const runner = FakeRunner.spawn(project.launch());
    try {
      // stdin is never closed here: a provider that waits for EOF times out.
      await runner.writeLine(
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: INIT }),
      );
      const first = await runner.readLine(15_000);
      assertEquals(JSON.parse(first!).result, INIT);
      await runner.writeLine(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "status", arguments: {} },
        }),
      );
      const second = JSON.parse((await runner.readLine(15_000))!);
      assertEquals(second.id, 2);
      assertEquals(second.result.structuredContent, { indexed: false });
    } finally {
      await runner.kill();
    }
  }));

Deno.test("everything queued before EOF is answered in order, then the provider exits", () =>
  withProject(FILES, async (project) => {
    const runner = FakeRunner.spawn(project.launch());
    const call = (id: number, name: string, args: unknown) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name, arguments: args },
      });
    const lines = [
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: INIT }),
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }),
      call(3, "index", {}),
      call(4, "search", { query: "parse http request" }),
      call(5, "status", {}),
    ];
    const writer = runner.child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(lines.join("\n") + "\n"));
    await writer.close();
    const ids: number[] = [];
    while (true) {
      const line = await runner.readLine(30_000);
      if (line === null) break;
      const message = JSON.parse(line);
      assert(!("error" in message), line);
      ids.push(message.id);
    }
    assertEquals(ids, [1, 2, 3, 4, 5]);
    assertEquals((await runner.child.status).code, 0);
    await runner.kill();
  }));

async function misuse(runner: FakeRunner): Promise<void> {
  const unknownTool = await runner.request("tools/call", { name: "delete", arguments: {} });
  assert("error" in unknownTool);
  assertEquals(unknownTool.error, {
    code: -32602,
    message: 'unknown tool "delete"; tools: index, read, search, status',
  });
  const typo = await runner.request("tools/call", { name: "serch", arguments: {} });
  assert("error" in typo);
  assert(typo.error.message.endsWith("did you mean search?"), typo.error.message);
  const huge = await runner.request("tools/call", { name: "x".repeat(100_000), arguments: {} });
  assert("error" in huge);
  assert(new TextEncoder().encode(huge.error.message).length <= 512, "within the 512 bytes");
  const unknownMethod = await runner.request("resources/list", {});
  assert("error" in unknownMethod);
  assertEquals(unknownMethod.error.code, -32601);
  const badParams = await runner.request("tools/call", [1, 2]);
  assert("error" in badParams);
  assertEquals(badParams.error.code, -32602);
  await runner.writeLine("{not json");
  assertEquals(JSON.parse((await runner.readLine())!).error.code, -32700);
  const status = await runner.ok("status");
  assertEquals(status.indexed, false);
}

async function refusedArguments(runner: FakeRunner): Promise<void> {
  for (
    const [tool, args] of [
      ["search", { query: "x", root: "/" }],
      ["index", { cache: "/tmp/x" }],
      ["status", { command: "sh" }],
      ["read", { path: "a", source_hash: "0".repeat(64), root: "/" }],
      ["index", { mode: "delete" }],
      ["search", { query: "" }],
      ["search", { query: "x", limit: 1.5 }],
      ["search", { query: "x".repeat(16_385) }],
      ["read", { path: "a", source_hash: "abc" }],
    ] as const
  ) {
    const outcome = await runner.call(tool, args);
    assertEquals(
      outcome.dispatch,
      "not_started",
      `${tool} ${JSON.stringify(args).slice(0, 80)}`,
    );
  }
  // Past the Runner (sent raw), the provider refuses them too.
  const raw = await runner.request("tools/call", {
    name: "search",
    arguments: { query: "x", root: "/" },
  });
  assert("result" in raw);
  const result = raw.result as {
    isError: boolean;
    content: { text: string }[];
    structuredContent: { error: { code: string; hint: string } };
  };
  assertEquals(result.isError, true);
  assertEquals(result.structuredContent.error.code, "invalid_arguments");
  // The hint lists what the tool takes, in the text and in the structured error.
  assertEquals(result.structuredContent.error.hint, "search takes: query (required), limit.");
  assertEquals(result.content[0].text.split("\n")[1], "search takes: query (required), limit.");
}

async function searchLimit(runner: FakeRunner): Promise<void> {
  await runner.ok("index");
  assertEquals(
    await runner.errorCode("search", { query: "parse", limit: 0 }),
    "invalid_arguments",
  );
  assertEquals(
    await runner.errorCode("search", { query: "parse", limit: 21 }),
    "invalid_arguments",
  );
  assertEquals(
    await runner.errorCode("search", { query: "parse", limit: -1 }),
    "invalid_arguments",
  );
  assertEquals(
    ((await runner.ok("search", { query: "parse", limit: 1 })).hits as unknown[]).length,
    1,
  );
  assertEquals(
    ((await runner.ok("search", { query: "parse", limit: 20 })).hits as unknown[]).length,
    1,
  );
}

// One provider for these: misuse and refused arguments come first, while nothing is indexed.
Deno.test("one provider serves in turn", (t) =>
  withProvider(FILES, async (runner) => {
    await t.step("protocol misuse gets JSON-RPC errors, and the provider keeps serving", () =>
      misuse(runner));
    await t.step(
      "root, cache and command arguments are refused by the schema and by the provider",
      () =>
        refusedArguments(runner),
    );
    await t.step("every tool declares an outputSchema its results, errors included, satisfy", () =>
      outputSchemas(runner));
    await t.step("search limit is checked at and past both edges", () =>
      searchLimit(runner));
  }));

Deno.test("FTS5 failure fails admission with a safe diagnostic and no fallback", () =>
  withProject(FILES, async (project) => {
    const main = fileURLToPath(new URL("../support/fts5_missing_provider.ts", import.meta.url));
    const error = await FakeRunner.admit(project.launch({ main })).then(
      () => null,
      (error) => error,
    );
    assert(error instanceof ProtocolViolation, String(error));
    assertEquals(error.code, "plugin_initialize_invalid");
    assertIncludes(error.message, "engine_unavailable");
    assertIncludes(error.message, "fts5");
    assert(!error.message.includes(project.parent), "no host paths in the diagnostic");
  }));

Deno.test("the README's runner.toml entry is exactly the one the fake Runner and the smoke use", async () => {
  const readme = await Deno.readTextFile(
    new URL("../../project_knowledge/README.md", import.meta.url),
  );
  const block = /```toml\n(\[\[plugins\.providers\]\][\s\S]*?)```/.exec(readme)?.[1];
  assert(block, "runner.toml block");
  const documented = parseToml(block) as { plugins: { providers: unknown[] } };
  assertEquals(documented.plugins.providers.map((entry) => ({ ...entry as object })), [
    providerEntry({
      deno: "/opt/context-sources/tools/deno/node_modules/deno/deno",
      checkout: "/opt/context-sources",
      root: "/home/me/src/app",
      cacheBase: "/home/me/.cache",
    }),
  ]);
  // The fake Runner spawns the same arguments.
  assertEquals(
    providerArgs("/home/me/src/app", "/home/me/.cache").map((arg) =>
      arg.replaceAll(PROGRAM_ROOT, "/opt/context-sources")
    ),
    documented.plugins.providers.map((entry) => (entry as { args: string[] }).args)[0],
  );
});
