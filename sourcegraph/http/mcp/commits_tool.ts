/**
 * `commits`: commit search over the monitored branches of one repository,
 * several, or every visible one, by message, author, text added or
 * removed, changed lines, paths and dates, newest first, paged by an opaque
 * cursor and bound by a time budget.
 *
 * @module
 */

import { z } from "zod";
import { renderCommits } from "../../render/commits_text.ts";
import { commitsRequestKey, decodeCommitsCursor } from "../../render/search_cursor.ts";
import { COMMITS_DEFAULT_FIRST, COMMITS_MAX_FIRST } from "../../service/repository_commits.ts";
import { SourcegraphError } from "../../errors.ts";
import { PAGE_DEFAULT_MAX_BYTES, repoSelection, revision } from "./arguments.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

const pattern = z.string().min(1).max(8192);
const date = z.string().min(1).max(64).optional();

/** `commits`. */
export const commitsTool = defineTool({
  name: "commits",
  description:
    "Commits newest first on the monitored branches of one, several or all repositories: git log --grep, --author, -S, -G (RE2), paths, dates.",
  input: {
    repo: repoSelection.describe("A name, names and globs, or one glob; default: all you can see."),
    revision: revision.describe("A monitored branch or retained SHA; default: all branches."),
    message: pattern.optional().describe("RE2 per message line (--grep)."),
    author: pattern.optional().describe("RE2 on `Name <email>` (--author)."),
    added_or_removed: z.string().min(1).max(1024).optional().describe(
      "Text whose count changes (-S).",
    ),
    changed_regex: pattern.optional().describe("RE2 on changed lines (-G)."),
    paths: z.array(z.string().min(1).max(4096)).min(1).max(64).optional().describe(
      "Files or folders (literal).",
    ),
    since: date.describe("ISO 8601 date, from."),
    until: date.describe("ISO 8601 date, up to."),
    first: z.number().int().min(1).max(COMMITS_MAX_FIRST).optional().describe(
      `Commits (1 to ${COMMITS_MAX_FIRST}; default ${COMMITS_DEFAULT_FIRST}).`,
    ),
    after: z.string().min(1).max(8192).optional().describe("NextCursor of the previous page."),
  },
  uses: ["searchCommits"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller, fanoutCharge }) => {
    const key = commitsRequestKey(args);
    const page = await calls.searchCommits(caller, {
      repos: args.repo ?? null,
      revision: args.revision,
      message: args.message,
      author: args.author,
      addedOrRemoved: args.added_or_removed,
      changedRegex: args.changed_regex,
      paths: args.paths,
      since: seconds(args.since, "since"),
      until: seconds(args.until, "until"),
      first: args.first ?? COMMITS_DEFAULT_FIRST,
      after: args.after === undefined ? undefined : decodeCommitsCursor(args.after, key),
    }, fanoutCharge);
    return [renderCommits(page, { maxBytes: PAGE_DEFAULT_MAX_BYTES, key })];
  },
});

// An ISO 8601 date or time as seconds since the epoch (a date alone: its midnight, UTC).
function seconds(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(value)
    ? Date.parse(value)
    : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new SourcegraphError("INVALID_ARGUMENTS", `${name} is not an ISO 8601 date`, {
      hint: "Write dates like 2024-05-01 or 2024-05-01T12:00:00Z.",
    });
  }
  return Math.floor(ms / 1000);
}
