/**
 * The Git knowledge source feed schemas: what `git.changes` returns and the
 * error codes a client can see. This is the package's `./protocol` export, so
 * consumers validate pages with the same schemas the server produces.
 *
 * @module
 */

import { z } from "zod";

/** A full commit id: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits. */
export const RevisionSchema: z.ZodString = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/);

/** One committed file update: active content or a withdrawal. */
export const GitUpdateSchema = z.strictObject({
  id: z.string().min(1).max(1024),
  revision: RevisionSchema,
  previous: RevisionSchema.nullable(),
  kind: z.literal("source"),
  state: z.enum(["active", "withdrawn"]),
  text: z.string(),
});

/** One page of updates and the token that acknowledges it. */
export const GitBatchSchema = z.strictObject({
  token: z.string().min(1).max(256),
  updates: z.array(GitUpdateSchema).max(200),
});

/** A committed file update. */
export type GitUpdate = z.infer<typeof GitUpdateSchema>;
/** A page of updates. */
export type GitBatch = z.infer<typeof GitBatchSchema>;

/** Every code a tool error can carry, as `"<tool> failed: <code>"`. */
export const GIT_SOURCE_ERROR_CODES = [
  "invalid_config",
  "invalid_path",
  "state_corrupt",
  "configuration_changed",
  "reconciliation_required",
  "unsupported_file",
  "file_too_large",
  "batch_too_large",
  "unknown_ack",
  "writer_locked",
  "unavailable",
] as const;

/** A stable error code of the feed. */
export type GitSourceErrorCode = typeof GIT_SOURCE_ERROR_CODES[number];

/** The MCP tool result that carries a page: a short count plus the page. */
export interface GitBatchResult {
  /** A one-line summary; the page itself is only in `structuredContent`. */
  content: { type: "text"; text: string }[];
  /** The authoritative page. */
  structuredContent: GitBatch;
}

/** The summary line of a page of `count` updates. */
export function gitBatchText(count: number): string {
  return `${count} committed source ${count === 1 ? "update" : "updates"}.`;
}

/** Builds the MCP result for a page (also used to measure page bytes). */
export function gitBatchResult(batch: GitBatch): GitBatchResult {
  return {
    content: [{ type: "text", text: gitBatchText(batch.updates.length) }],
    structuredContent: batch,
  };
}
