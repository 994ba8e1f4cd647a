/**
 * What `tools/list` tells a client about each tool is true: the tools that
 * read say they are read-only, idempotent and closed-world; `prepare`, which
 * fetches from the repository's source and may prune versions, says it is
 * not read-only, open-world and destructive, and it lists (and takes) only
 * the arguments it honours.
 */

import { assertEquals } from "../../../support/assert.ts";
import {
  connectInProcess,
  type InProcessWorld,
  withInProcessService,
  WORLD_TOKEN,
} from "../../../support/in_process_service.ts";
import { callTool } from "../../../support/tool_calls.ts";

const READS = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

interface ListedTool {
  name: string;
  annotations?: Record<string, unknown>;
  inputSchema: { properties?: Record<string, unknown> };
}

// The cases run as steps of one world, in this order.
const CASES: [string, (world: InProcessWorld) => Promise<void>][] = [];
function annotationsCase(name: string, fn: (world: InProcessWorld) => Promise<void>): void {
  CASES.push([name, fn]);
}

Deno.test("MCP tools over one world", (t) =>
  withInProcessService(async (world) => {
    for (const [name, fn] of CASES) await t.step(name, () => fn(world));
  }));

annotationsCase("MCP tools: each tool's annotations say what it does", async ({ handle }) => {
  const client = await connectInProcess(handle, { token: WORLD_TOKEN });
  try {
    const tools = (await client.listTools()).tools as ListedTool[];
    assertEquals(
      Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations])),
      {
        repositories: READS,
        availability: READS,
        resolve: READS,
        search: READS,
        symbols: READS,
        definition: READS,
        references: READS,
        read: READS,
        read_many: READS,
        list: READS,
        diff: READS,
        locate: READS,
        blame: READS,
        history: READS,
        commits: READS,
        prepare: {
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: true,
          openWorldHint: true,
        },
      },
    );
  } finally {
    await client.close();
  }
});

annotationsCase(
  "MCP tools: prepare lists and takes only repo and idempotency_key",
  async ({ handle }) => {
    const client = await connectInProcess(handle, { token: WORLD_TOKEN });
    try {
      const tools = (await client.listTools()).tools as ListedTool[];
      const prepare = tools.find((tool) => tool.name === "prepare")!;
      assertEquals(Object.keys(prepare.inputSchema.properties ?? {}), ["repo", "idempotency_key"]);
      // An argument prepare would not honour is refused, not silently ignored.
      for (const extra of [{ revision: "main" }, { group: "docs" }]) {
        const outcome = await callTool(client, "prepare", {
          repo: "org/open",
          idempotency_key: "annotations-1",
          ...extra,
        });
        assertEquals(outcome.code, "INVALID_ARGUMENTS", JSON.stringify(outcome));
      }
      assertEquals(
        (await callTool(client, "prepare", { repo: "org/open", idempotency_key: "annotations-1" }))
          .code,
        "OK",
      );
    } finally {
      await client.close();
    }
  },
);
