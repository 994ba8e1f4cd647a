/**
 * `locate`: a citation check. Follows lines cited at one retained commit to
 * a later revision and says whether they are unchanged there, and where.
 *
 * @module
 */

import { z } from "zod";
import { renderCitation } from "../../render/citation_text.ts";
import { path, repo, revision } from "./arguments.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

const lineNumber = z.number().int().min(1);

/** `locate`. */
export const locateTool = defineTool({
  name: "locate",
  description:
    "Checks a citation: are lines start_line..end_line of path at commit still the same at revision (default: the default branch)? Answers unchanged, moved, changed or deleted, the path and line numbers now (following renames and the diff), and the span's current text.",
  input: {
    repo,
    commit: z.string().length(40).describe(
      "The cited commit: a retained full 40-hex SHA (as a read or search returned it).",
    ),
    path: path.describe("The cited file's path at that commit, e.g. `src/main.ts`."),
    start_line: lineNumber.describe("First cited line (1-based)."),
    end_line: lineNumber.describe("Last cited line (at most start_line + 499)."),
    revision: revision.describe(
      "Where to check: a monitored branch or a retained full SHA; default: the default branch.",
    ),
  },
  uses: ["locate"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller }) => {
    const located = await calls.locate(caller, {
      repo: args.repo,
      commit: args.commit,
      path: args.path,
      startLine: args.start_line,
      endLine: args.end_line,
      revision: args.revision,
    });
    return [renderCitation(located, {
      path: args.path,
      startLine: args.start_line,
      endLine: args.end_line,
    })];
  },
});
