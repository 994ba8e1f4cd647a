/**
 * Test helper program: a line-delimited JSON-RPC server built on
 * shared/jsonrpc_lines.ts, run without any permissions.
 *
 * @module
 */

import {
  routeConsoleToStderr,
  RPC_METHOD_NOT_FOUND,
  RpcError,
  serveJsonRpcLines,
} from "../../shared/jsonrpc_lines.ts";

routeConsoleToStderr();
let handled = 0;
await serveJsonRpcLines(async (request) => {
  handled++;
  switch (request.method) {
    case "echo":
      return request.params;
    case "count":
      return handled;
    case "log":
      console.log("log line from a handler");
      console.info("info line from a handler");
      return "logged";
    case "slow":
      await new Promise((resolve) => setTimeout(resolve, 300));
      return "slow done";
    case "big":
      return "b".repeat((request.params as { size: number }).size);
    case "fail":
      throw new RpcError(-32001, "x".repeat(2000));
    case "crash":
      throw new Error("boom at /secret/host/path");
    default:
      throw new RpcError(RPC_METHOD_NOT_FOUND, "method not found");
  }
}, { onDiagnostic: (message) => console.error(message) });
console.error("served until eof");
