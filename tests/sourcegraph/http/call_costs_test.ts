/** What an anonymous MCP body costs: per call, by tool, a search across repositories the most. */

import { assertEquals } from "../../support/assert.ts";
import { callCost } from "../../../sourcegraph/http/rate_limits.ts";

const call = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name, arguments: args },
});

Deno.test("call costs: one repository's search 5, across repositories 20, symbols 2 (10 across), batches add up", () => {
  assertEquals(callCost(call("search", { repo: "org/a", pattern: "x" })), 5);
  assertEquals(callCost(call("search", { pattern: "x" })), 20);
  assertEquals(callCost(call("search", { repo: "org/*", pattern: "x" })), 20);
  assertEquals(callCost(call("search", { repo: ["org/a"], pattern: "x" })), 20);
  assertEquals(callCost(call("symbols", { repo: "org/a", query: "x" })), 2);
  assertEquals(callCost(call("symbols", { query: "x" })), 10);
  assertEquals(callCost(call("symbols", { repo: ["org/a", "org/b"], query: "x" })), 10);
  assertEquals(callCost(call("read", { repo: "org/a", path: "a" })), 1);
  assertEquals(
    callCost([call("search", { pattern: "x" }), call("symbols", { repo: "a/b", query: "x" })]),
    22,
  );
  assertEquals(callCost({ jsonrpc: "2.0", method: "tools/list", id: 2 }), 1);
});
