/**
 * The Git knowledge source feed schemas: what `git.changes` returns and the
 * error codes a client can see. This is the package's `./protocol` export, so
 * consumers validate pages with the same schemas the server produces.
 *
 * @module
 */

import { z } from "zod";
import { utf8Length } from "../shared/text.ts";

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

/** The serialized result a page may take by default: 512 KiB less the 128-byte envelope reserve. */
export const DEFAULT_RESULT_BYTES = 512 * 1024 - 128;

/** The MCP tool result that carries a page: a summary, each update's text, and the page. */
export interface GitBatchResult {
  /**
   * The summary line (the count), then one block per update in
   * page order: its `text` when the whole result fits, otherwise a line
   * naming the update and where its text is (so a client that shows only
   * text still sees every update, and the result stays bounded).
   */
  content: { type: "text"; text: string }[];
  /** The authoritative page. */
  structuredContent: GitBatch;
}

/** The summary line of a page of `count` updates. */
export function gitBatchText(count: number): string {
  return `${count} committed source ${count === 1 ? "update" : "updates"}.`;
}

/**
 * The text block standing for an update whose text does not fit the result
 * twice: it names the update and where its text is, in as few bytes as can
 * say it (a page limit counts them).
 */
export function gitUpdateOmittedText(update: GitUpdate, index: number): string {
  return `${update.id}: text in structuredContent.updates[${index}]`;
}

/**
 * Builds the MCP result for a page (also used to measure page bytes). The
 * text blocks repeat each update's text when the serialized result stays
 * within `maxBytes` (default {@link DEFAULT_RESULT_BYTES}); otherwise each is
 * replaced by {@link gitUpdateOmittedText}.
 */
export function gitBatchResult(
  batch: GitBatch,
  options: { maxBytes?: number } = {},
): GitBatchResult {
  const summary = { type: "text" as const, text: gitBatchText(batch.updates.length) };
  const full: GitBatchResult = {
    content: [summary, ...batch.updates.map((u) => ({ type: "text" as const, text: u.text }))],
    structuredContent: batch,
  };
  if (utf8Length(JSON.stringify(full)) <= (options.maxBytes ?? DEFAULT_RESULT_BYTES)) return full;
  return {
    content: [
      summary,
      ...batch.updates.map((u, i) => ({ type: "text" as const, text: gitUpdateOmittedText(u, i) })),
    ],
    structuredContent: batch,
  };
}
