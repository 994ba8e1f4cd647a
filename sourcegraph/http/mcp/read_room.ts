/**
 * What the answers of `read` and `read_many` share: the default and the
 * range of `max_bytes`, the room an answer leaves the plugins' attachments
 * and diagnostics within it, and the structured facts of a read file.
 *
 * @module
 */

import { z } from "zod";
import { renderRead, renderReadManyItem, VIEW_CAP_BYTES } from "../../render/read_text.ts";
import { enrichmentRoom } from "../../render/attachment_text.ts";
import { utf8Length } from "../../../shared/text.ts";
import type { PluginRoom } from "../../service/routed_calls.ts";
import type { FileRead } from "../../read/file_read.ts";
import { fileLink, lineNumber, sha, url } from "./answers.ts";
import type { ToolContext } from "./tool.ts";

/** Most bytes of a read's answer by default (under 40,000 characters), plugin blocks apart. */
export const READ_DEFAULT_MAX_BYTES = 32 * 1024;

/** The smallest `max_bytes` of `read`, `read_many` and `blame`. */
export const READ_MIN_MAX_BYTES = 8 * 1024;

/** The `max_bytes` argument of `read`, `read_many` and `blame`. */
export const readMaxBytes = z.number().int().min(READ_MIN_MAX_BYTES).max(VIEW_CAP_BYTES).optional();

/**
 * The room the answers of `read` and `read_many` leave plugin attachments
 * within an explicit `max_bytes` (`compose.ts` hands it to the routed calls,
 * which run the plugins where the read ran).
 */
export const READ_PLUGIN_ROOM: PluginRoom = {
  read: ({ repo, maxBytes }, file) =>
    enrichmentRoom(maxBytes, utf8Length(renderRead(repo, file, { maxBytes }))).attachmentBytes,
  readMany: ({ repo, maxBytes }, items) =>
    enrichmentRoom(
      maxBytes,
      utf8Length(items.map((item) => renderReadManyItem(repo, item)).join("")),
    ).attachmentBytes,
};

/**
 * What plugin output may add to an answer: within an explicit `maxBytes`,
 * what the tool's own blocks (`own`) leave; without one, the plugin budget.
 */
export function pluginRoom(
  maxBytes: number | undefined,
  own: () => string,
): { attachmentBytes?: number; diagnosticsBytes?: number } {
  return maxBytes === undefined ? {} : enrichmentRoom(maxBytes, utf8Length(own()));
}

/** The structured facts of one read file, as its block's header says them. */
export const READ_OUTPUT = {
  commit: sha,
  path: z.string(),
  start_line: lineNumber.optional(),
  end_line: lineNumber.optional(),
  next_start_line: lineNumber.nullable().optional(),
  url,
};

/** The structured facts of `file` (lines only when some were returned), linked to its lines. */
export function fileReadJson(
  repo: string,
  file: FileRead,
  context: Pick<ToolContext, "pageLink">,
): Record<string, unknown> {
  const lines = file.returnedEndLine >= file.returnedStartLine && file.returnedStartLine > 0
    ? { start: file.returnedStartLine, end: file.returnedEndLine }
    : null;
  return {
    commit: file.commit,
    path: file.path,
    ...(lines === null ? {} : { start_line: lines.start, end_line: lines.end }),
    has_more: file.hasMore,
    next_start_line: file.nextStartLine,
    ...fileLink(context, repo, { commit: file.commit, path: file.path, ...lines }),
  };
}
