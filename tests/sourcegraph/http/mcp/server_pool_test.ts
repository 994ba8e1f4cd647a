/**
 * The MCP endpoint's pool of servers, on the real handler in process: one
 * server is built per kind (with or without the service tools) and reused,
 * whatever `plugins` value a request names, so many values keep the heap
 * flat; and a pooled server never answers one caller with another's rights.
 * Its own process: it reads the heap.
 */

import { assert, assertEquals, assertIncludes } from "../../../support/assert.ts";
import { initializeMessage, mcpRequest, toolCall } from "../../../support/mcp_messages.ts";
import {
  inProcessFetch,
  withInProcessService,
  WORLD_TOKEN,
} from "../../../support/in_process_service.ts";

const SECRET_NAME = "vault/hidden-ledger";

// The heap after a full collection (the tests run with --expose-gc), in MiB.
function heapMib(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return Deno.memoryUsage().heapUsed / 1024 / 1024;
}

Deno.test("MCP servers are pooled per kind only: many plugins values keep the heap flat, and a server never serves another caller", () =>
  withInProcessService(async ({ handle }) => {
    const fetchPath = inProcessFetch(handle);
    const post = (body: unknown, options: { token?: string; query?: string } = {}) => {
      const request = mcpRequest("http://127.0.0.1", body, options);
      const url = new URL(request.url);
      return fetchPath(`${url.pathname}${url.search}`, {
        method: "POST",
        headers: request.headers,
        body: JSON.stringify(body),
      });
    };
    const init = initializeMessage();
    const initialize = async (query: string) => {
      const response = await post(init, { query, token: WORLD_TOKEN });
      assertEquals(response.status, 200);
      await response.body?.cancel();
    };
    // The heap grows to its working size first (the servers of both kinds, compiled code).
    for (let i = 0; i < 200; i++) await initialize(`?plugins=warm-${i}`);
    const before = heapMib();
    for (let i = 0; i < 600; i++) await initialize(`?plugins=p-${i}`);
    const grown = heapMib() - before;
    // A server kept per value grows the heap by about 22 MiB over these 600 (measured with the
    // pool made to build and keep one a request); pooled, it grew under 1 MiB.
    assert(grown < 8, `the heap grew ${grown.toFixed(1)} MiB over 600 plugins values`);
    // Alternate callers through the same pool: each sees exactly its own rights.
    for (let i = 0; i < 5; i++) {
      const owner = await (await post(toolCall(1, "repositories", {}), { token: WORLD_TOKEN }))
        .json();
      assertIncludes(JSON.stringify(owner), SECRET_NAME);
      const stranger = await (await post(toolCall(1, "repositories", {}))).json();
      assertIncludes(JSON.stringify(stranger), "local/project");
      assert(!JSON.stringify(stranger).includes(SECRET_NAME), JSON.stringify(stranger));
      const list = await (await post({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/list",
        params: {},
      })).json();
      assertIncludes(JSON.stringify(list), '"search"');
      assert(!JSON.stringify(list).includes('"prepare"'), "anonymous callers see prepare");
    }
  }, {
    repositories: [
      { name: SECRET_NAME, publicRead: false, files: { "ledger.txt": "balance 42\n" } },
      { name: "local/project", publicRead: true, files: { "a.txt": "alpha\nbeta\n" } },
    ],
  }));
