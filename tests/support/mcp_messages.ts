/**
 * JSON-RPC messages of MCP as raw clients send them (hostile tests and
 * benchmarks that bypass the SDK client), and a raw POST to the service's
 * MCP endpoint.
 *
 * @module
 */

/** The protocol version raw requests announce. */
export const PROTOCOL_VERSION = "2025-06-18";

/** An `initialize` request. */
export function initializeMessage(id = 1): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "raw-test-client", version: "0" },
    },
  };
}

/** A `tools/call` request. */
export function toolCall(
  id: number,
  name: string,
  args: Record<string, unknown>,
): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

/** POSTs `body` (JSON) to `<serviceUrl>/sourcegraph/mcp<query>` as a stateless MCP client would. */
export function postMcp(
  serviceUrl: string,
  body: unknown,
  options: { token?: string; query?: string; client?: Deno.HttpClient } = {},
): Promise<Response> {
  return fetch(`${serviceUrl}/sourcegraph/mcp${options.query ?? ""}`, {
    method: "POST",
    ...(options.client ? { client: options.client } : {}),
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": PROTOCOL_VERSION,
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
