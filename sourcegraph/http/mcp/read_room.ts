/**
 * The bytes of the answers of `read` and `read_many`, shared by both: the
 * default and the range of `max_bytes`, and the room an answer leaves the
 * plugins' attachments and diagnostics within it.
 *
 * @module
 */

import { z } from "zod";
import { renderRead, renderReadManyItem, VIEW_CAP_BYTES } from "../../render/read_text.ts";
import { enrichmentRoom } from "../../render/attachment_text.ts";
import { utf8Length } from "../../../shared/text.ts";
import type { PluginRoom } from "../../service/routed_calls.ts";

/** Most bytes of a read's answer by default (under 40,000 characters), plugin blocks apart. */
export const READ_DEFAULT_MAX_BYTES = 32 * 1024;

/** The `max_bytes` argument of `read` and `read_many`. */
export const readMaxBytes = z.number().int().min(8 * 1024).max(VIEW_CAP_BYTES).optional()
  .describe(
    `Most bytes of the answer (8192 to ${VIEW_CAP_BYTES}; default ${READ_DEFAULT_MAX_BYTES}); ` +
      "a read cut short says Truncated and gives NextStartLine.",
  );

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
