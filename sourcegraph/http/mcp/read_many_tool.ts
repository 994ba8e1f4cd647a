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
import {
  fileReadJson,
  pluginRoom,
  READ_DEFAULT_MAX_BYTES,
  READ_OUTPUT,
  readMaxBytes,
} from "./read_room.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `read_many`. */
export const readManyTool = defineTool({
  name: "read_many",
  description: "Reads up to 10 files at one commit (1000 lines in all).",
  input: {
    repo,
    revision,
    files: z.array(z.strictObject({
      path,
      start_line: line,
      end_line: line,
    })).min(1).max(10).describe("Files and line ranges."),
    max_bytes: readMaxBytes,
    plugins,
  },
  output: {
    items: z.array(z.object({
      commit: READ_OUTPUT.commit,
      path: READ_OUTPUT.path,
      start_line: READ_OUTPUT.start_line,
      end_line: READ_OUTPUT.end_line,
      url: READ_OUTPUT.url,
      error: z.string().optional(),
    })),
  },
  uses: ["readManyWithPlugins"],
  annotations: READ_ONLY,
  run: async (args, context) => {
    const { calls, caller, urlPlugins, baseDone } = context;
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
    return {
      text: [
        ...items.map((item) =>
          renderReadManyItem(args.repo, item, {
            attachments: enrichment.byItem.get(readItemId(item.index)),
          })
        ),
        ...renderEnrichmentTail(enrichment, room),
      ],
      structured: {
        repo: args.repo,
        items: items.map((item) => ({
          ...(item.file
            ? fileReadJson(args.repo, item.file, context)
            : { commit: item.commit, path: item.path }),
          ...(item.error ? { error: item.error.code } : {}),
        })),
      },
    };
  },
});
