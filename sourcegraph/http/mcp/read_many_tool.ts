/**
 * `read_many`: line-exact reads of up to 10 files at one resolved commit,
 * sharing one budget, then the selected plugins' attachments, both in one
 * routed call (the plugins' time is not part of the tool's latency metrics).
 *
 * @module
 */

import { z } from "zod";
import { validatePluginArgument } from "../../plugins/selection_parameters.ts";
import { renderReadManyItem } from "../../render/read_text.ts";
import { renderEnrichmentTail } from "../../render/attachment_text.ts";
import { readItemId } from "../../service/routed_calls.ts";
import { line, path, plugins, repo, revision } from "./arguments.ts";
import { pluginRoom, READ_DEFAULT_MAX_BYTES, readMaxBytes } from "./read_room.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

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
    max_bytes: readMaxBytes,
    plugins,
  },
  uses: ["readManyWithPlugins"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller, urlPlugins, baseDone }) => {
    validatePluginArgument(args.plugins);
    const budget = args.max_bytes ?? READ_DEFAULT_MAX_BYTES;
    const { items, enrichment, pluginMs } = await calls.readManyWithPlugins(caller, {
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
