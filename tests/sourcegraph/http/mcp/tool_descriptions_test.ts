import { assert } from "../../../support/assert.ts";
import {
  connectInProcess,
  withInProcessService,
  WORLD_TOKEN,
} from "../../../support/in_process_service.ts";

interface Tool {
  name: string;
  description?: string;
  inputSchema: unknown;
}

interface Schema {
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
}

// Every property's path without a description, nested objects and arrays included.
function undescribed(schema: Schema, at: string): string[] {
  const missing: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const path = `${at}.${name}`;
    if (!property.description?.trim()) missing.push(path);
    const inner = property.items ?? property;
    if (inner.properties) missing.push(...undescribed(inner, `${path}[]`));
  }
  return missing;
}

Deno.test("MCP tools: every parameter of every tool has a description, and the listing stays small", () =>
  withInProcessService(async ({ handle }) => {
    const client = await connectInProcess(handle, { token: WORLD_TOKEN });
    try {
      const { tools } = await client.listTools();
      const missing = tools.flatMap((tool: Tool) => [
        ...(tool.description?.trim() ? [] : [`${tool.name} (the tool)`]),
        ...undescribed(tool.inputSchema as Schema, tool.name),
      ]);
      assert(missing.length === 0, `undescribed: ${missing.join(", ")}`);
      const bytes = new TextEncoder().encode(JSON.stringify(tools)).length;
      console.log(`tools/list: ${tools.length} tools, ${bytes} bytes`);
      // 16 tools with prepare; history, references, definition and commits each add about 1.0 to
      // 1.7 KB of argument schemas.
      assert(bytes < 24_500, `tools/list is ${bytes} bytes`);
    } finally {
      await client.close();
    }
  }));
