/**
 * The MCP surface: exactly `git.changes` (no arguments) and
 * `git.acknowledge` ({token}), in that order. Failures are tool results with
 * `isError`, the text `"<tool> failed: <code>"`, and a second block saying
 * what failed and how to recover (`failure_text.ts`).
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { GitSourceError } from "./errors.ts";
import { failureResult } from "./failure_text.ts";
import { answerToolCalls, type OfferedTool } from "../shared/mcp_tool_calls.ts";
import type { GitKnowledgeSource } from "./feed.ts";

/** The server name and version clients see. */
export const SERVER_INFO = { name: "git-knowledge-source", version: "0.1.0" };

/**
 * Creates the MCP server over a feed. `log` hears why a call was
 * `unavailable` (with an unexpected failure's stack, which the client never
 * sees), once each time the reason changes, so a polling client does not
 * flood it.
 */
export function createGitSourceServer(
  source: GitKnowledgeSource,
  options: { log?: (line: string) => void } = {},
): McpServer {
  const server = new McpServer(SERVER_INFO);
  let lastReason: string | null = null;
  const failure = (tool: string, error: unknown): CallToolResult => {
    const code = error instanceof GitSourceError ? error.code : "unavailable";
    if (code === "unavailable") {
      const reason = error instanceof GitSourceError
        ? error.message
        : `unexpected: ${(error as Error)?.stack ?? String(error)}`;
      if (reason !== lastReason) options.log?.(`${tool} failed: unavailable (${reason})`);
      lastReason = reason;
    } else {
      lastReason = null;
    }
    return failureResult(tool, error);
  };
  const changes = async (): Promise<CallToolResult> => {
    try {
      const result = source.result(await source.changes()) as unknown as CallToolResult;
      lastReason = null;
      return result;
    } catch (error) {
      return failure("git.changes", error);
    }
  };
  const acknowledge = async ({ token }: { token: string }): Promise<CallToolResult> => {
    try {
      await source.acknowledge(token);
      return { content: [{ type: "text", text: "Acknowledged" }] };
    } catch (error) {
      return failure("git.acknowledge", error);
    }
  };
  const acknowledgeInput = {
    token: z.string().min(1).max(256).describe(
      "The token of the page git.changes returned, e.g. `5b0c1e0e-…:0` (1 to 256 characters).",
    ),
  };
  server.registerTool("git.changes", {
    description:
      "Returns the pending page of committed file updates (UTF-8 committed files only, never the working tree). The same page comes back until its token is acknowledged.",
    inputSchema: {},
    annotations: {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  }, changes);
  server.registerTool("git.acknowledge", {
    description:
      "Acknowledges a page token from git.changes. It only moves the delivery checkpoint; acknowledging the same token again succeeds.",
    inputSchema: acknowledgeInput,
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  }, acknowledge);
  // Unknown tools and bad arguments answered in one line each, not the SDK's JSON dump.
  answerToolCalls(server, {
    tools: new Map<string, OfferedTool>([
      ["git.changes", { schema: z.object({}), run: () => changes() }],
      [
        "git.acknowledge",
        {
          schema: z.object(acknowledgeInput),
          run: (args) => acknowledge(args as { token: string }),
        },
      ],
    ]),
    unknownTool: (name, tools) =>
      textError(`unknown tool ${JSON.stringify(name.slice(0, 64))}; tools: ${tools.join(", ")}`),
    invalidArguments: (name, problems) =>
      textError(`${name}: invalid arguments: ${problems.join("; ")}`),
  });
  return server;
}

function textError(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}
