/**
 * What `tools/list` and `initialize` tell an agent is enough to call each
 * tool right, and small: every tool is described; every argument is
 * described in its schema or, once for every tool, in the server's
 * instructions (which say in a few lines which tool to start with); every
 * tool lists the shape of its structured answer; and the whole listing,
 * argument and answer shapes included, is at most 12,000 characters.
 */

import { assert, assertEquals } from "../../../support/assert.ts";
import {
  connectInProcess,
  withInProcessService,
  WORLD_TOKEN,
} from "../../../support/in_process_service.ts";

interface Tool {
  name: string;
  description?: string;
  inputSchema: Schema;
  outputSchema?: Schema;
}

interface Schema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
}

// Every argument's path the schema does not describe, nested objects and arrays included.
function undescribed(schema: Schema, at: string): { path: string; name: string }[] {
  const missing: { path: string; name: string }[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const path = `${at}.${name}`;
    if (!property.description?.trim()) missing.push({ path, name });
    const inner = property.items ?? property;
    if (inner.properties) missing.push(...undescribed(inner, `${path}[]`));
  }
  return missing;
}

Deno.test("MCP tools: every argument is described once, every answer's shape is listed, and the listing is at most 12,000 characters", () =>
  withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle, { token: WORLD_TOKEN });
    try {
      const instructions = client.getInstructions() ?? "";
      assert(instructions.startsWith("Start with `search`"), instructions);
      assert(instructions.split("\n").length <= 4, "the instructions are a few lines");
      const { tools } = await client.listTools() as { tools: Tool[] };
      assertEquals(
        tools.length,
        16,
        "the listing holds every tool (prepare with the service token)",
      );
      for (const tool of tools) {
        assert(tool.description?.trim(), `${tool.name} is described`);
        assertEquals(tool.outputSchema?.type, "object", `${tool.name} lists its answer's shape`);
        assert(
          Object.keys(tool.outputSchema?.properties ?? {}).length > 0,
          `${tool.name}'s answer names its fields`,
        );
      }
      // An argument without a description of its own is explained, by name, in the instructions.
      const unexplained = tools.flatMap((tool) =>
        undescribed(tool.inputSchema, tool.name)
          .filter(({ name }) => !instructions.includes(`\`${name}\``))
          .map(({ path }) => path)
      );
      assertEquals(unexplained, [], "undescribed arguments the instructions do not explain");
      const characters = JSON.stringify(tools).length;
      console.log(`tools/list: ${tools.length} tools, ${characters} characters`);
      assert(characters <= 12_000, `tools/list is ${characters} characters`);
    } finally {
      await client.close();
    }
  }, { repositories: [] })); // the listing is the same whatever is registered
