/**
 * `search`: RE2 or fixed-string search of one repository at a pinned commit,
 * or of several (a list, a name glob, or every visible repository), each at
 * its own pinned commit.
 *
 * @module
 */

import { z } from "zod";
import {
  renderSearch,
  SEARCH_DEFAULT_MAX_BYTES,
  SEARCH_MIN_MAX_BYTES,
} from "../../render/search_text.ts";
import { decodeSearchCursor } from "../../render/search_cursor.ts";
import { SEARCH_VIEW_BYTES } from "../../search/code_search.ts";
import { MAX_CONTEXT_LINES } from "../../search/match_context.ts";
import { paths, repoSelection, revision } from "./arguments.ts";
import { singleRepository } from "../../service/repository_pins.ts";
import { decodeFanoutCursor, renderFanoutSearch } from "../../render/fanout_search_text.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

const contextLines = z.number().int().min(0).max(MAX_CONTEXT_LINES).optional();

/** `search`. */
export const searchTool = defineTool({
  name: "search",
  description:
    "Searches one repository at a pinned commit (default: the default branch), or several: repo as a list or a glob like `org/*`, or left out for every repository you can see. pattern is RE2 matched line by line (or a fixed string); glob works like rg -g, e.g. `!**/tests/**` leaves tests out; paths restrict folders; context shows lines around each match, e.g. a signature's body. Returns the full commit to read at. Zero hits do not prove absence.",
  input: {
    repo: repoSelection,
    pattern: z.string().min(1).max(8192).describe(
      "RE2 regular expression matched per line, e.g. `func \\w+Reader\\(`; literal text with fixed_strings.",
    ),
    revision,
    fixed_strings: z.boolean().optional().describe("Match pattern as literal text; default false."),
    ignore_case: z.boolean().optional().describe("Case-insensitive match; default false."),
    glob: z.array(z.string().min(1).max(1024)).max(64).optional().describe(
      'File globs as rg -g (up to 64); `!` excludes, e.g. ["*.ts", "!**/tests/**"].',
    ),
    paths,
    output: z.enum(["content", "files"]).optional().describe(
      "`content`: matching lines (default); `files`: paths only.",
    ),
    max_lines_per_file: z.number().int().min(1).max(1000).optional().describe(
      "Matching lines shown per file (1 to 1000).",
    ),
    context: contextLines.describe(
      "Lines shown before and after each match, as rg -C (0 to 20; default 0); context rows " +
        "are `N- text`, ranges that do not touch are split by `--`.",
    ),
    before_context: contextLines.describe("Lines before each match, as rg -B (overrides context)."),
    after_context: contextLines.describe("Lines after each match, as rg -A (overrides context)."),
    max_bytes: z.number().int().min(SEARCH_MIN_MAX_BYTES).max(SEARCH_VIEW_BYTES).optional()
      .describe(
        `Most bytes of the answer (${SEARCH_MIN_MAX_BYTES} to ${SEARCH_VIEW_BYTES}; default ${SEARCH_DEFAULT_MAX_BYTES}); a page cut short gives NextCursor.`,
      ),
    after: z.string().min(1).max(16384).optional().describe(
      "NextCursor of the previous page, to continue after its last match (same pattern and options).",
    ),
  },
  uses: ["search", "searchRepositories"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller, fanoutCharge }) => {
    const options = {
      pattern: args.pattern,
      fixedStrings: args.fixed_strings,
      ignoreCase: args.ignore_case,
      glob: args.glob,
      paths: args.paths,
      output: args.output,
      maxLinesPerFile: args.max_lines_per_file,
      context: {
        before: args.before_context ?? args.context ?? 0,
        after: args.after_context ?? args.context ?? 0,
      },
    };
    const output = args.output ?? "content";
    const single = singleRepository(args.repo);
    if (single !== null) {
      const found = await calls.search(caller, {
        ...options,
        repo: single,
        revision: args.revision,
        after: args.after === undefined ? undefined : decodeSearchCursor(args.after),
      });
      return [renderSearch(found, {
        output,
        maxLinesPerFile: args.max_lines_per_file ?? 10,
        maxBytes: args.max_bytes,
      })];
    }
    const found = await calls.searchRepositories(caller, {
      ...options,
      repos: args.repo === undefined ? null : [args.repo].flat(),
      revision: args.revision,
      after: args.after === undefined ? undefined : decodeFanoutCursor(args.after),
    }, fanoutCharge);
    return [renderFanoutSearch(found, { output, maxBytes: args.max_bytes })];
  },
});
