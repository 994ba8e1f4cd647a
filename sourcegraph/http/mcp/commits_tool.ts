/**
 * `commits`: commit search over the monitored branches of one repository,
 * several, or every visible one, by message, author, text added or
 * removed, changed lines, paths and dates, newest first, paged by an opaque
 * cursor and bound by a time budget.
 *
 * @module
 */

import { z } from "zod";
import { commitsPage } from "../../render/commits_text.ts";
import { commitsRequestKey, decodeCommitsCursor } from "../../render/search_cursor.ts";
import { COMMITS_DEFAULT_FIRST, COMMITS_MAX_FIRST } from "../../service/repository_commits.ts";
import { SourcegraphError } from "../../errors.ts";
import { cursor, PAGE_DEFAULT_MAX_BYTES, repoSelection, revision } from "./arguments.ts";
import { commitEntry, commitEntryOf, nextCursor } from "./answers.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

const pattern = z.string().min(1).max(8192);
const date = z.string().min(1).max(64).optional();

/** `commits`. */
export const commitsTool = defineTool({
  name: "commits",
  description: "Finds commits (git log) in one or more repositories.",
  input: {
    repo: repoSelection,
    revision: revision.describe("Default: all branches."),
    message: pattern.optional().describe("--grep (RE2)."),
    author: pattern.optional().describe("--author (RE2)."),
    added_or_removed: z.string().min(1).max(1024).optional().describe("-S text."),
    changed_regex: pattern.optional().describe("-G (RE2)."),
    paths: z.array(z.string().min(1).max(4096)).min(1).max(64).optional().describe(
      "Files or folders.",
    ),
    since: date.describe("ISO date."),
    until: date.describe("ISO date."),
    first: z.number().int().min(1).max(COMMITS_MAX_FIRST).optional(),
    after: cursor(8192),
  },
  output: {
    results: z.array(z.object({ repo: z.string(), commits: z.array(commitEntry) })),
    next_cursor: nextCursor,
  },
  uses: ["searchCommits"],
  annotations: READ_ONLY,
  run: async (args, context) => {
    const { calls, caller, fanoutCharge } = context;
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
    const shown = commitsPage(page, { maxBytes: PAGE_DEFAULT_MAX_BYTES, key });
    return {
      text: [shown.text],
      structured: {
        results: shown.shown.map(({ repo, commits }) => ({
          repo,
          commits: commits.map((entry) => commitEntryOf(context, repo, entry)),
        })),
        ...(shown.next === null ? {} : { next_cursor: shown.next }),
      },
    };
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
