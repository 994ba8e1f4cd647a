/**
 * `blame`: who last changed each line of one file at a pinned commit, as
 * `git blame` says (renames followed, the repository's
 * `.git-blame-ignore-revs` honoured), paged like `read`.
 *
 * @module
 */

import { z } from "zod";
import { blamePage } from "../../render/blame_text.ts";
import { line, path, repo, revision } from "./arguments.ts";
import { commitLink, lineNumber, sha, url } from "./answers.ts";
import { READ_DEFAULT_MAX_BYTES, readMaxBytes } from "./read_room.ts";
import { defineTool, READ_ONLY, type ToolContext } from "./tool.ts";

/** `blame`. */
export const blameTool = defineTool({
  name: "blame",
  description: "git blame of a file's lines at a commit.",
  input: {
    repo,
    path,
    revision,
    start_line: line,
    end_line: line,
    max_bytes: readMaxBytes,
  },
  output: {
    runs: z.array(z.object({ start_line: lineNumber, end_line: lineNumber, commit: sha, url })),
    next_start_line: lineNumber.nullable(),
  },
  uses: ["blame"],
  annotations: READ_ONLY,
  run: async (args, context) => {
    const maxBytes = args.max_bytes ?? READ_DEFAULT_MAX_BYTES;
    const blame = await context.calls.blame(context.caller, {
      repo: args.repo,
      path: args.path,
      revision: args.revision,
      startLine: args.start_line,
      endLine: args.end_line,
      maxBytes,
    });
    const page = blamePage(args.repo, blame, { maxBytes });
    return {
      text: [page.text],
      structured: {
        commit: blame.commit,
        path: blame.path,
        runs: runs(args.repo, page.lines, context),
        next_start_line: page.hasMore ? page.nextStartLine : null,
      },
    };
  },
});

// Consecutive lines last changed by the same commit at the same path, one
// run each, as the text starts a run with the commit's full row.
function runs(
  repo: string,
  lines: readonly { line: number; commit: string; originalPath: string }[],
  context: Pick<ToolContext, "pageLink">,
): Record<string, unknown>[] {
  const out: { start_line: number; end_line: number; commit: string; from: string }[] = [];
  for (const { line, commit, originalPath } of lines) {
    const last = out.at(-1);
    if (last !== undefined && last.commit === commit && last.from === originalPath) {
      last.end_line = line;
    } else out.push({ start_line: line, end_line: line, commit, from: originalPath });
  }
  return out.map(({ from: _, ...run }) => ({ ...run, ...commitLink(context, repo, run.commit) }));
}
