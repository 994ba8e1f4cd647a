/**
 * `history`: the commits of a revision, a path (a file followed across
 * renames, a folder) or a line range of a file, newest first, paged by an
 * opaque cursor that names the history it continues.
 *
 * @module
 */

import { z } from "zod";
import { renderHistory } from "../../render/history_text.ts";
import { decodeHistoryCursor } from "../../render/search_cursor.ts";
import { HISTORY_DEFAULT_FIRST, HISTORY_MAX_FIRST } from "../../read/file_history.ts";
import { after, line, repo, revision } from "./arguments.ts";
import { PAGE_DEFAULT_MAX_BYTES } from "./arguments.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `history`. */
export const historyTool = defineTool({
  name: "history",
  description:
    "Commits newest first (git log) of a revision, a file (renames followed), a folder, or lines with their hunks.",
  input: {
    repo,
    revision,
    path: z.string().min(1).max(4096).optional().describe(
      "File or folder; default: the whole revision.",
    ),
    start_line: line.describe("A range of path: its first line."),
    end_line: line.describe("Last line; default start_line + 499."),
    first: z.number().int().min(1).max(HISTORY_MAX_FIRST).optional().describe(
      `Commits (1 to ${HISTORY_MAX_FIRST}; default ${HISTORY_DEFAULT_FIRST}).`,
    ),
    after,
  },
  uses: ["history"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller }) => {
    const ranged = args.start_line !== undefined || args.end_line !== undefined;
    const request = {
      path: args.path ?? null,
      lines: ranged ? { start: args.start_line ?? 0, end: args.end_line ?? 0 } : null,
    };
    const position = args.after === undefined
      ? undefined
      : decodeHistoryCursor(args.after, { repo: args.repo, ...request });
    const history = await calls.history(caller, {
      repo: args.repo,
      revision: args.revision,
      path: args.path,
      startLine: args.start_line,
      endLine: args.end_line,
      first: args.first ?? HISTORY_DEFAULT_FIRST,
      after: position,
    });
    return [renderHistory(args.repo, history, { maxBytes: PAGE_DEFAULT_MAX_BYTES, request })];
  },
});
