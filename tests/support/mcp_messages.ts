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

/** The POST of `body` (JSON) to `<serviceUrl>/sourcegraph/mcp<query>` a stateless MCP client sends. */
export function mcpRequest(
  serviceUrl: string,
  body: unknown,
  options: { token?: string; query?: string; host?: string } = {},
): Request {
  return new Request(`${serviceUrl}/sourcegraph/mcp${options.query ?? ""}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": PROTOCOL_VERSION,
      ...(options.host ? { host: options.host } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** POSTs `body` (JSON) to the service's MCP endpoint as a stateless MCP client would. */
export function postMcp(
  serviceUrl: string,
  body: unknown,
  options: { token?: string; query?: string; client?: Deno.HttpClient } = {},
): Promise<Response> {
  const request = mcpRequest(serviceUrl, body, options);
  return options.client ? fetch(request, { client: options.client }) : fetch(request);
}
