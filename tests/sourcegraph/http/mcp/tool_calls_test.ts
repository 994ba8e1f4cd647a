/**
 * Each MCP tool is handed the calls it declares (`uses`) and no others: on
 * the real MCP server, every tool's handler sees exactly its declared calls and
 * reaches each of them; the offered calls pass their arguments to the service
 * (looked up at each call, so a router installed later is used); and a call
 * a tool did not declare does not type-check.
 */

import type { Caller } from "../../../../sourcegraph/access/caller.ts";
import { SourcegraphError } from "../../../../sourcegraph/errors.ts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Metrics } from "../../../../sourcegraph/http/metrics.ts";
import {
  createMcpServer,
  type McpRequestContext,
  TOOLS,
} from "../../../../sourcegraph/http/mcp/server.ts";
import {
  ADMIN_CALLS,
  defineTool,
  SERVICE_CALLS,
  type Tool,
  toolCalls,
} from "../../../../sourcegraph/http/mcp/tool.ts";
import type { AdminService } from "../../../../sourcegraph/service/admin_service.ts";
import type { RepositoryService } from "../../../../sourcegraph/service/repository_service.ts";
import { assert, assertEquals } from "../../../support/assert.ts";

const SHA = "a".repeat(40);

// Valid arguments for every way each tool goes (one repository, or several).
const CALLS: [string, Record<string, unknown>][] = [
  ["repositories", {}],
  ["availability", { repo: "org/app" }],
  ["resolve", { repo: "org/app" }],
  ["search", { repo: "org/app", pattern: "x" }],
  ["search", { pattern: "x" }],
  ["symbols", { repo: "org/app", query: "x" }],
  ["symbols", { query: "x" }],
  ["definition", { repo: "org/app", path: "a.ts", line: 1, column: 1 }],
  ["references", { repo: "org/app", path: "a.ts", line: 1, column: 1 }],
  ["read", { repo: "org/app", path: "a.ts" }],
  ["read_many", { repo: "org/app", files: [{ path: "a.ts" }] }],
  ["list", { repo: "org/app", first: 1 }],
  ["diff", { repo: "org/app", base: "main", head: SHA, first: 1 }],
  ["locate", { repo: "org/app", commit: SHA, path: "a.ts", start_line: 1, end_line: 1 }],
  ["blame", { repo: "org/app", path: "a.ts" }],
  ["history", { repo: "org/app", path: "a.ts" }],
  ["commits", { repo: "org/app", message: "x" }],
  ["commits", { message: "x" }],
  ["prepare", { repo: "org/app", idempotency_key: "key-0001" }],
];

// A service and an admin whose every call fails with a known error naming the call.
function reachingServices(): { service: RepositoryService; admin: AdminService } {
  const reached = (name: string) => () => {
    throw new SourcegraphError("REPOSITORY_NOT_FOUND", `reached ${name}`);
  };
  const service = {
    calls: new Proxy({}, { get: (_, name) => reached(String(name)) }),
    ...Object.fromEntries(SERVICE_CALLS.map((name) => [name, reached(name)])),
  } as unknown as RepositoryService;
  const admin = Object.fromEntries(ADMIN_CALLS.map((name) => [name, reached(name)]));
  return { service, admin: admin as unknown as AdminService };
}

// Calls `tool` on `server` with the service token's caller, as the MCP endpoint does.
async function callOn(
  server: McpServer,
  call: { tool: string; args: Record<string, unknown> },
): Promise<CallToolResult> {
  const [client, served] = InMemoryTransport.createLinkedPair();
  await server.connect(served);
  try {
    const answered = new Promise<JSONRPCMessage>((resolve) => (client.onmessage = resolve));
    const context: McpRequestContext = {
      caller: { kind: "service" },
      fanoutCharge: {},
      urlPlugins: null,
      requestId: "req-1",
      pageOrigin: null,
    };
    await client.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: call.tool, arguments: call.args },
    }, { authInfo: { token: "", clientId: "service", scopes: [], extra: { context } } });
    return ((await answered) as { result: CallToolResult }).result;
  } finally {
    await server.close();
  }
}

Deno.test("MCP tools: on the server, each handler's context holds exactly its declared calls, and it reaches each of them", async () => {
  const { service, admin } = reachingServices();
  const build = () =>
    createMcpServer(service, {
      admin,
      metrics: new Metrics(),
      log: (line) => {
        throw new Error(`nothing is logged for a known error: ${line}`);
      },
      serviceTools: true,
    });
  // Each handler is wrapped (and restored) to see the context the server hands it.
  const handed = new Map<string, string[]>();
  const originals = new Map<Tool, Tool["run"]>();
  for (const tool of TOOLS) {
    const run = tool.run;
    originals.set(tool, run);
    (tool as { run: Tool["run"] }).run = (args, context) => {
      handed.set(tool.name, Object.keys(context.calls).sort());
      return run(args, context);
    };
  }
  const reached = new Map<string, Set<string>>();
  try {
    for (const [name, args] of CALLS) {
      const answer = await callOn(build(), { tool: name, args });
      assertEquals(answer.isError, true, JSON.stringify(answer));
      const error = JSON.parse((answer.content[0] as { text: string }).text);
      assertEquals(error.code, "REPOSITORY_NOT_FOUND", `${name}: ${error.message}`);
      const calls = reached.get(name) ?? new Set();
      calls.add(error.message.replace(/^reached /, ""));
      reached.set(name, calls);
    }
  } finally {
    for (const [tool, run] of originals) (tool as { run: Tool["run"] }).run = run;
  }
  for (const tool of TOOLS) {
    const declared = [...tool.uses].sort();
    assert(declared.length > 0, `${tool.name} declares the calls it uses`);
    assertEquals(new Set(declared).size, declared.length, `${tool.name} declares each call once`);
    assertEquals(handed.get(tool.name), declared, `the calls handed to ${tool.name}`);
    assertEquals([...reached.get(tool.name) ?? []].sort(), declared, `what ${tool.name} reached`);
  }
});

Deno.test("MCP tools: an offered call passes its arguments to the service's current calls, the read side or the operator's side", async () => {
  const seen: unknown[][] = [];
  const recording = (name: string) => (...args: unknown[]) => {
    seen.push([name, ...args]);
    return Promise.resolve(name);
  };
  const service = {
    calls: { list: recording("first list") },
    searchRepositories: recording("searchRepositories"),
  } as unknown as RepositoryService & { calls: unknown };
  const admin = { prepare: recording("prepare") } as unknown as AdminService;
  const calls = toolCalls(["list", "searchRepositories", "prepare"], { service, admin });
  assertEquals(Object.keys(calls).sort(), ["list", "prepare", "searchRepositories"]);
  const caller: Caller = { kind: "service" };
  const request = { repo: "org/app", first: 1 };
  assertEquals(await calls.list(caller, request), "first list");
  // A router installed after the server was built replaces the routed calls: they are used.
  (service as { calls: unknown }).calls = { list: recording("routed list") };
  assertEquals(await calls.list(caller, request), "routed list");
  await calls.searchRepositories(caller, { pattern: "x", repos: null }, {});
  await calls.prepare(caller, { repo: "org/app", idempotencyKey: "key-0001" });
  assertEquals(seen, [
    ["first list", caller, request],
    ["routed list", caller, request],
    ["searchRepositories", caller, { pattern: "x", repos: null }, {}],
    ["prepare", caller, { repo: "org/app", idempotencyKey: "key-0001" }],
  ]);
});

// Never run: it proves at type-check time that a handler sees only the calls it declared.
const _undeclaredCall: Tool = defineTool({
  name: "undeclared",
  description: "Lists, then reads: `read` is not declared.",
  input: {},
  output: {},
  uses: ["list"],
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (_args, { calls, caller }) => {
    await calls.list(caller, { repo: "org/app", first: 1 });
    // @ts-expect-error: `read` is not one of the calls this tool declared
    await calls.read(caller, { repo: "org/app", path: "a.ts" });
    return { text: [], structured: {} };
  },
});
