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
import {
  fileReadJson,
  pluginRoom,
  READ_DEFAULT_MAX_BYTES,
  READ_OUTPUT,
  readMaxBytes,
} from "./read_room.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `read`. */
export const readTool = defineTool({
  name: "read",
  description: "Reads up to 500 lines of a file at a commit.",
  input: {
    repo,
    path,
    revision,
    start_line: line,
    end_line: line,
    max_bytes: readMaxBytes,
    plugins,
  },
  output: READ_OUTPUT,
  uses: ["readWithPlugins"],
  annotations: READ_ONLY,
  run: async (args, context) => {
    const { calls, caller, urlPlugins, baseDone } = context;
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
    return {
      text: [
        renderRead(args.repo, file, {
          attachments: enrichment.byItem.get(readItemId(1)),
          maxBytes: budget,
        }),
        ...renderEnrichmentTail(enrichment, room),
      ],
      structured: { repo: args.repo, ...fileReadJson(args.repo, file, context) },
    };
  },
});
