/**
 * `history`: the commits of a revision, a path (a file followed across
 * renames, a folder) or a line range of a file, newest first, paged by an
 * opaque cursor that names the history it continues.
 *
 * @module
 */

import { z } from "zod";
import { historyPage } from "../../render/history_text.ts";
import { decodeHistoryCursor } from "../../render/search_cursor.ts";
import { HISTORY_DEFAULT_FIRST, HISTORY_MAX_FIRST } from "../../read/file_history.ts";
import { after, line, PAGE_DEFAULT_MAX_BYTES, repo, revision } from "./arguments.ts";
import { commitEntry, commitEntryOf, nextCursor } from "./answers.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `history`. */
export const historyTool = defineTool({
  name: "history",
  description: "git log of a revision, file, folder or lines.",
  input: {
    repo,
    revision,
    path: z.string().min(1).max(4096).optional().describe("File or folder."),
    start_line: line.describe("With path: a range."),
    end_line: line,
    first: z.number().int().min(1).max(HISTORY_MAX_FIRST).optional(),
    after,
  },
  output: { commits: z.array(commitEntry), next_cursor: nextCursor },
  uses: ["history"],
  annotations: READ_ONLY,
  run: async (args, context) => {
    const ranged = args.start_line !== undefined || args.end_line !== undefined;
    const request = {
      path: args.path ?? null,
      lines: ranged ? { start: args.start_line ?? 0, end: args.end_line ?? 0 } : null,
    };
    const position = args.after === undefined
      ? undefined
      : decodeHistoryCursor(args.after, { repo: args.repo, ...request });
    const history = await context.calls.history(context.caller, {
      repo: args.repo,
      revision: args.revision,
      path: args.path,
      startLine: args.start_line,
      endLine: args.end_line,
      first: args.first ?? HISTORY_DEFAULT_FIRST,
      after: position,
    });
    const page = historyPage(args.repo, history, { maxBytes: PAGE_DEFAULT_MAX_BYTES, request });
    return {
      text: [page.text],
      structured: {
        commit: history.commit,
        commits: page.commits.map((entry) => commitEntryOf(context, args.repo, entry)),
        ...(page.next === null ? {} : { next_cursor: page.next }),
      },
    };
  },
});
