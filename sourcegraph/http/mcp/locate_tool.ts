/**
 * `locate`: a citation check. Follows lines cited at one retained commit to
 * a later revision and says whether they are unchanged there, and where.
 *
 * @module
 */

import { z } from "zod";
import { renderCitation } from "../../render/citation_text.ts";
import { path, repo, revision } from "./arguments.ts";
import { fileLink, lineNumber, url } from "./answers.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `locate`. */
export const locateTool = defineTool({
  name: "locate",
  description: "Checks cited lines at a commit: unchanged, moved, changed or deleted at revision.",
  input: {
    repo,
    commit: z.string().length(40).describe("Cited full SHA."),
    path,
    start_line: lineNumber.min(1),
    end_line: lineNumber.min(1),
    revision,
  },
  output: {
    status: z.string(),
    path: z.string().optional(),
    start_line: lineNumber.nullable().optional(),
    end_line: lineNumber.nullable().optional(),
    url,
  },
  uses: ["locate"],
  annotations: READ_ONLY,
  run: async (args, context) => {
    const located = await context.calls.locate(context.caller, {
      repo: args.repo,
      commit: args.commit,
      path: args.path,
      startLine: args.start_line,
      endLine: args.end_line,
      revision: args.revision,
    });
    const now = located.path === null ? null : {
      path: located.path,
      start_line: located.startLine,
      end_line: located.endLine,
    };
    return {
      text: [renderCitation(located, {
        path: args.path,
        startLine: args.start_line,
        endLine: args.end_line,
      })],
      structured: {
        commit: located.commit,
        status: located.status,
        ...now,
        ...(now === null ? {} : fileLink(context, located.repo, {
          commit: located.commit,
          path: now.path,
          start: now.start_line ?? undefined,
          end: now.end_line ?? undefined,
        })),
      },
    };
  },
});
