/**
 * The one way tests call an MCP tool and look at what came back, whether
 * through the SDK's `Client` against a running service or through the HTTP
 * handler in process. Every call yields a `ToolOutcome`: `code` is "OK", the
 * tool's error code, `MCP <n>` for an error the SDK answers itself (schema,
 * unknown tool) or `RPC <n>` for a JSON-RPC error; `texts` are the blocks.
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { mcpRequest, toolCall } from "./mcp_messages.ts";

/** What one tool call returned. */
export interface ToolOutcome {
  code: string;
  texts: string[];
}

/** The text blocks of a tool result. */
export function texts(result: { content?: unknown }): string[] {
  return ((result.content ?? []) as { type: string; text: string }[]).map((block) => block.text);
}

/** The outcome of a `tools/call` result. */
export function toolOutcome(result: { content?: unknown; isError?: unknown }): ToolOutcome {
  const blocks = texts(result);
  if (result.isError !== true) return { code: "OK", texts: blocks };
  const sdk = /^MCP error (-?\d+)/.exec(blocks[0] ?? "");
  return { code: sdk ? `MCP ${sdk[1]}` : JSON.parse(blocks[0]).code, texts: blocks };
}

/** Calls `name` with `args` through an SDK client. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolOutcome> {
  return toolOutcome(await client.callTool({ name, arguments: args }));
}

/** The first block of a successful call, else `ERROR <code>`: one string to compare. */
export function textOrError(outcome: ToolOutcome): string {
  return outcome.code === "OK" ? outcome.texts[0] : `ERROR ${outcome.code}`;
}

/** Calls `name` through an SDK client; its first block, or `ERROR <code>`. */
export async function callText(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  return textOrError(await callTool(client, name, args));
}

/** A `Request → Response` function (the HTTP handler in process). */
export type Handle = (request: Request) => Promise<Response>;

/** Calls `name` with `args` by sending the handler the request a stateless MCP client sends. */
export async function callHandler(
  handle: Handle,
  name: string,
  options: { args?: Record<string, unknown>; token?: string } = {},
): Promise<ToolOutcome> {
  const response = await handle(
    mcpRequest("http://127.0.0.1", toolCall(1, name, options.args ?? {}), {
      token: options.token,
      host: "127.0.0.1",
    }),
  );
  const body = await response.json();
  if (body.error) return { code: `RPC ${body.error.code}`, texts: [body.error.message] };
  // The edge's own answer (a 401 challenge, a 429): no JSON-RPC body.
  if (body.code) return { code: `HTTP ${response.status} ${body.code}`, texts: [body.message] };
  return toolOutcome(body.result);
}
