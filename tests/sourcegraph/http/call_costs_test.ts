/**
 * What an anonymous MCP body costs up front: per call, by tool; a call across
 * repositories pays its base here and a unit per repository it searches as it
 * searches them (`service/fanout_cost_test.ts`).
 */

import { assertEquals } from "../../support/assert.ts";
import { callCost } from "../../../sourcegraph/http/rate_limits.ts";

const call = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name, arguments: args },
});

Deno.test("call costs: a search 5 (its base across repositories), symbols 2, read_many by files, batches add up", () => {
  assertEquals(callCost(call("search", { repo: "org/a", pattern: "x" })), 5);
  assertEquals(callCost(call("search", { pattern: "x" })), 5);
  assertEquals(callCost(call("search", { repo: "org/*", pattern: "x" })), 5);
  assertEquals(callCost(call("search", { repo: ["org/a"], pattern: "x" })), 5);
  assertEquals(callCost(call("symbols", { repo: "org/a", query: "x" })), 2);
  assertEquals(callCost(call("symbols", { query: "x" })), 2);
  assertEquals(callCost(call("symbols", { repo: ["org/a", "org/b"], query: "x" })), 2);
  assertEquals(callCost(call("read_many", { files: [{}, {}, {}] })), 3);
  assertEquals(callCost(call("read", { repo: "org/a", path: "a" })), 1);
  assertEquals(callCost(call("blame", { repo: "org/a", path: "a" })), 5);
  assertEquals(callCost(call("history", { repo: "org/a" })), 5);
  assertEquals(callCost(call("commits", { repo: "org/a", message: "x" })), 5);
  assertEquals(callCost(call("commits", { message: "x" })), 5);
  assertEquals(callCost(call("references", { repo: "org/a", path: "a", line: 1 })), 5);
  assertEquals(callCost(call("definition", { repo: "org/a", path: "a", line: 1 })), 2);
  assertEquals(
    callCost([call("search", { pattern: "x" }), call("symbols", { repo: "a/b", query: "x" })]),
    7,
  );
  assertEquals(callCost({ jsonrpc: "2.0", method: "tools/list", id: 2 }), 1);
});
