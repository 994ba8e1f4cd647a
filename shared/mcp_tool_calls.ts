/**
 * A server's own answer to `tools/call`, in place of the MCP SDK's: the
 * SDK answers an unknown tool with "Tool x not found" and arguments that
 * fail the schema with a JSON dump of the validator's issues. Here the
 * server is handed the name that was asked for and the tools it offers, or
 * the failing fields one at a time, and answers in its own error format.
 * The tools stay registered with the SDK for `tools/list`.
 *
 * @module
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { argumentProblems } from "./argument_problems.ts";

/** What the SDK hands a request handler beside the request. */
export type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** One offered tool: its argument schema and what runs with valid arguments. */
export interface OfferedTool {
  schema: z.ZodType;
  run(args: unknown, extra: ToolCallExtra): Promise<CallToolResult> | CallToolResult;
}

/**
 * Answers `tools/call` on `server` for `tools` (by name); `unknownTool` and
 * `invalidArguments` build the answers to the two failures.
 */
export function answerToolCalls(
  server: McpServer,
  options: {
    tools: ReadonlyMap<string, OfferedTool>;
    unknownTool: (name: string, offered: string[]) => CallToolResult;
    invalidArguments: (name: string, problems: string[]) => CallToolResult;
  },
): void {
  server.server.setRequestHandler(
    CallToolRequestSchema,
    (request: CallToolRequest, extra: ToolCallExtra) => {
      const name = request.params.name;
      const tool = options.tools.get(name);
      if (!tool) return options.unknownTool(name, [...options.tools.keys()]);
      const parsed = tool.schema.safeParse(request.params.arguments ?? {});
      if (!parsed.success) return options.invalidArguments(name, argumentProblems(parsed.error));
      return tool.run(parsed.data, extra);
    },
  );
}
