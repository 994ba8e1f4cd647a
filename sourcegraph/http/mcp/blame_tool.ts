/**
 * `blame`: who last changed each line of one file at a pinned commit, as
 * `git blame` says (renames followed, the repository's
 * `.git-blame-ignore-revs` honoured), paged like `read`.
 *
 * @module
 */

import { renderBlame } from "../../render/blame_text.ts";
import { line, path, repo, revision } from "./arguments.ts";
import { READ_DEFAULT_MAX_BYTES, readMaxBytes } from "./read_room.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `blame`. */
export const blameTool = defineTool({
  name: "blame",
  description:
    "The commit that last changed each line of one file (git blame, honouring .git-blame-ignore-revs). Lines, max_bytes and paging as read.",
  input: {
    repo,
    path,
    revision,
    start_line: line.describe("First line; default 1."),
    end_line: line.describe("Last line; default start_line + 499."),
    max_bytes: readMaxBytes,
  },
  uses: ["blame"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller }) => {
    const maxBytes = args.max_bytes ?? READ_DEFAULT_MAX_BYTES;
    const blame = await calls.blame(caller, {
      repo: args.repo,
      path: args.path,
      revision: args.revision,
      startLine: args.start_line,
      endLine: args.end_line,
      maxBytes,
    });
    return [renderBlame(args.repo, blame, { maxBytes })];
  },
});
