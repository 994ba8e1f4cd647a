/**
 * `read`: line-exact reads of one file at one resolved commit, then the
 * selected plugins' attachments, both in one routed call (the plugins' time
 * is not part of the tool's latency metrics).
 *
 * @module
 */

import { validatePluginArgument } from "../../plugins/selection_parameters.ts";
import { renderRead } from "../../render/read_text.ts";
import { renderEnrichmentTail } from "../../render/attachment_text.ts";
import { readItemId } from "../../service/routed_calls.ts";
import { line, path, plugins, repo, revision } from "./arguments.ts";
import { pluginRoom, READ_DEFAULT_MAX_BYTES, readMaxBytes } from "./read_room.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

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
    max_bytes: readMaxBytes,
    plugins,
  },
  uses: ["readWithPlugins"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller, urlPlugins, baseDone }) => {
    validatePluginArgument(args.plugins);
    const budget = args.max_bytes ?? READ_DEFAULT_MAX_BYTES;
    const { file, enrichment, pluginMs } = await calls.readWithPlugins(caller, {
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
