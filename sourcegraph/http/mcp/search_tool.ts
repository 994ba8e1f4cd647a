/**
 * `search`: RE2 or fixed-string search of one repository at a pinned commit,
 * or of several (a list, a name glob, or every visible repository), each at
 * its own pinned commit.
 *
 * @module
 */

import { z } from "zod";
import {
  SEARCH_DEFAULT_MAX_BYTES,
  SEARCH_MIN_MAX_BYTES,
  searchPage,
} from "../../render/search_text.ts";
import { decodeSearchCursor } from "../../render/search_cursor.ts";
import { SEARCH_VIEW_BYTES } from "../../search/code_search.ts";
import { MAX_CONTEXT_LINES } from "../../search/match_context.ts";
import { cursor, glob, paths, repoSelection, revision } from "./arguments.ts";
import { singleRepository } from "../../service/repository_pins.ts";
import { decodeFanoutCursor, fanoutSearchPage } from "../../render/fanout_search_text.ts";
import type { SearchPosition } from "../../search/query/compiled_search.ts";
import type { RepositoryPin } from "../../service/repository_pins.ts";
import { fileLink, lineNumber, nextCursor, sha, url } from "./answers.ts";
import { defineTool, READ_ONLY, type ToolContext } from "./tool.ts";

const contextLines = z.number().int().min(0).max(MAX_CONTEXT_LINES).optional();

/** `search`. */
export const searchTool = defineTool({
  name: "search",
  description: "Searches code line by line (RE2) in one or more repositories.",
  input: {
    repo: repoSelection,
    pattern: z.string().min(1).max(8192).describe("RE2, per line, e.g. `func \\w+\\(`."),
    revision,
    fixed_strings: z.boolean().optional(),
    ignore_case: z.boolean().optional(),
    glob,
    paths,
    output: z.enum(["content", "files"]).optional().describe("`files`: paths only."),
    max_lines_per_file: z.number().int().min(1).max(1000).optional().describe(
      "Matches shown per file.",
    ),
    context: contextLines.describe("Lines around matches (rg -C)."),
    before_context: contextLines,
    after_context: contextLines,
    max_bytes: z.number().int().min(SEARCH_MIN_MAX_BYTES).max(SEARCH_VIEW_BYTES).optional(),
    after: cursor(16384),
  },
  output: {
    results: z.array(z.object({
      repo: z.string(),
      commit: sha,
      files: z.array(z.object({ path: z.string(), lines: z.array(lineNumber), url })),
    })),
    next_cursor: nextCursor,
  },
  uses: ["search", "searchRepositories"],
  annotations: READ_ONLY,
  run: async (args, context) => {
    const { calls, caller, fanoutCharge } = context;
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
        // The page shows no line past its bytes: later files' lines are only counted.
        lineBytes: args.max_bytes ?? SEARCH_DEFAULT_MAX_BYTES,
        repo: single,
        revision: args.revision,
        after: args.after === undefined ? undefined : decodeSearchCursor(args.after),
      });
      const page = searchPage(found, {
        output,
        maxLinesPerFile: args.max_lines_per_file ?? 10,
        maxBytes: args.max_bytes,
      });
      const pin = { repo: found.repo, commit: found.commit };
      // The repository searched is named even when nothing matched.
      return {
        text: [page.text],
        structured: searchJson([{ pin }, ...page.rows.map((row) => ({ ...row, pin }))], {
          next: page.next,
          context,
        }),
      };
    }
    const found = await calls.searchRepositories(caller, {
      ...options,
      repos: args.repo === undefined ? null : [args.repo].flat(),
      revision: args.revision,
      after: args.after === undefined ? undefined : decodeFanoutCursor(args.after),
    }, fanoutCharge);
    const page = fanoutSearchPage(found, { output, maxBytes: args.max_bytes });
    return {
      text: [page.text],
      structured: searchJson(
        page.rows.map((row) => ({
          pin: found.pins[row.index],
          file: row.file,
          place: row.place?.position,
        })),
        { next: page.next, context },
      ),
    };
  },
});

// The structured answer of a page: the repositories, files and matching
// lines its rows show, in page order, each file linked to its first line.
function searchJson(
  shown: readonly { pin: RepositoryPin; file?: string; place?: SearchPosition }[],
  options: { next: string | null; context: Pick<ToolContext, "pageLink"> },
): Record<string, unknown> {
  const results: { repo: string; commit: string; files: Map<string, number[]> }[] = [];
  for (const { pin, file, place } of shown) {
    let result = results.at(-1);
    if (result?.repo !== pin.repo) {
      result = { repo: pin.repo, commit: pin.commit, files: new Map() };
      results.push(result);
    }
    const path = file ?? place?.path;
    if (path === undefined) continue;
    const lines = result.files.get(path) ?? [];
    result.files.set(path, lines);
    if (place?.line !== undefined && place.line !== null && !lines.includes(place.line)) {
      lines.push(place.line);
    }
  }
  return {
    results: results.map(({ repo, commit, files }) => ({
      repo,
      commit,
      files: [...files].map(([path, lines]) => ({
        path,
        lines,
        ...fileLink(options.context, repo, { commit, path, start: lines[0] }),
      })),
    })),
    ...(options.next === null ? {} : { next_cursor: options.next }),
  };
}
