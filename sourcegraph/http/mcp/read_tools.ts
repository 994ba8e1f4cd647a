/**
 * `read` and `read_many`: line-exact reads at one resolved commit, then the
 * selected plugins' attachments, both in one routed call (the plugins' time
 * is not part of the tools' latency metrics).
 *
 * @module
 */

import { z } from "zod";
import { validatePluginArgument } from "../../plugins/selection_parameters.ts";
import { renderRead, renderReadManyItem, VIEW_CAP_BYTES } from "../../render/read_text.ts";
import { enrichmentRoom, renderEnrichmentTail } from "../../render/attachment_text.ts";
import { utf8Length } from "../../../shared/text.ts";
import { line, path, plugins, repo, revision } from "./arguments.ts";
import { defineTool } from "./tool.ts";
import { type PluginRoom, readItemId } from "../../service/routed_calls.ts";

/** Most bytes of a read's answer by default (under 40,000 characters), plugin blocks apart. */
const READ_DEFAULT_MAX_BYTES = 32 * 1024;
const maxBytes = z.number().int().min(8 * 1024).max(VIEW_CAP_BYTES).optional().describe(
  `Most bytes of the answer (8192 to ${VIEW_CAP_BYTES}; default ${READ_DEFAULT_MAX_BYTES}); ` +
    "a read cut short says Truncated and gives NextStartLine.",
);

/** `read`. */
export const readTool = defineTool({
  name: "read",
  description:
    "Reads lines of one file at a pinned commit. Defaults: lines 1-500; start_line S alone reads S..S+499; end_line E alone reads 1..E. At most 500 lines and max_bytes (default 32 KiB); continue from NextStartLine.",
  input: {
    repo,
    path,
    revision,
    start_line: line.describe("First line to read (1-based); default 1."),
    end_line: line.describe("Last line to read; default start_line + 499."),
    max_bytes: maxBytes,
    plugins,
  },
  // Reads the service's own mirrors and indexes only: no effect, nothing outside the service.
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (args, { service, caller, urlPlugins, baseDone }) => {
    validatePluginArgument(args.plugins);
    const budget = args.max_bytes ?? READ_DEFAULT_MAX_BYTES;
    const { file, enrichment, pluginMs } = await service.calls.readWithPlugins(caller, {
      repo: args.repo,
      path: args.path,
      revision: args.revision,
      startLine: args.start_line,
      endLine: args.end_line,
      maxBytes: budget,
      plugins: { url: urlPlugins, argument: args.plugins, maxBytes: args.max_bytes },
    });
    baseDone(pluginMs);
    const room = pluginRoom(
      args.max_bytes,
      () => renderRead(args.repo, file, { maxBytes: budget }),
    );
    return [
      renderRead(args.repo, file, {
        attachments: enrichment.byItem.get(readItemId(1)),
        maxBytes: budget,
      }),
      ...renderEnrichmentTail(enrichment, room),
    ];
  },
});

/** `read_many`. */
export const readManyTool = defineTool({
  name: "read_many",
  description:
    "Reads 1 to 10 files at one commit (resolved once), sharing a 1000-line, max_bytes (default 32 KiB), 30 s budget. One block per item, in request order; failed items say why.",
  input: {
    repo,
    revision,
    files: z.array(z.strictObject({
      path,
      start_line: line.describe("First line (default 1)."),
      end_line: line.describe("Last line (default start_line + 499)."),
    })).min(1).max(10).describe("1 to 10 files, each with its own line range; read in order."),
    max_bytes: maxBytes,
    plugins,
  },
  // Reads the service's own mirrors and indexes only: no effect, nothing outside the service.
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (args, { service, caller, urlPlugins, baseDone }) => {
    validatePluginArgument(args.plugins);
    const budget = args.max_bytes ?? READ_DEFAULT_MAX_BYTES;
    const { items, enrichment, pluginMs } = await service.calls.readManyWithPlugins(caller, {
      repo: args.repo,
      revision: args.revision,
      maxBytes: budget,
      files: args.files.map((file) => ({
        path: file.path,
        startLine: file.start_line,
        endLine: file.end_line,
      })),
      plugins: { url: urlPlugins, argument: args.plugins, maxBytes: args.max_bytes },
    });
    baseDone(pluginMs);
    const room = pluginRoom(
      args.max_bytes,
      () => items.map((item) => renderReadManyItem(args.repo, item)).join(""),
    );
    return [
      ...items.map((item) =>
        renderReadManyItem(args.repo, item, {
          attachments: enrichment.byItem.get(readItemId(item.index)),
        })
      ),
      ...renderEnrichmentTail(enrichment, room),
    ];
  },
});

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

// What plugin output may add to an answer: within an explicit max_bytes, what
// the tool's own blocks (`own`) leave; without one, the plugin budget.
function pluginRoom(
  maxBytes: number | undefined,
  own: () => string,
): { attachmentBytes?: number; diagnosticsBytes?: number } {
  return maxBytes === undefined ? {} : enrichmentRoom(maxBytes, utf8Length(own()));
}
