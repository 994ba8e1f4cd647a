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
import type { GitKnowledgeSource } from "./feed.ts";
import { gitBatchResult } from "./protocol.ts";

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
  }, async () => {
    try {
      const result = gitBatchResult(await source.changes()) as unknown as CallToolResult;
      lastReason = null;
      return result;
    } catch (error) {
      return failure("git.changes", error);
    }
  });
  server.registerTool("git.acknowledge", {
    description:
      "Acknowledges a page token from git.changes. It only moves the delivery checkpoint; acknowledging the same token again succeeds.",
    inputSchema: {
      token: z.string().min(1).max(256).describe(
        "The token of the page git.changes returned, e.g. `5b0c1e0e-…:0` (1 to 256 characters).",
      ),
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  }, async ({ token }: { token: string }) => {
    try {
      await source.acknowledge(token);
      return { content: [{ type: "text", text: "Acknowledged" }] };
    } catch (error) {
      return failure("git.acknowledge", error);
    }
  });
  return server;
}
