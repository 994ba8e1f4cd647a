/**
 * `references`: every place the name at a position occurs at a pinned
 * commit, search-based: the search's whole-word matches, each file of a
 * language with a grammar parsed so that only identifiers remain (comments
 * and strings dropped), each row with its role. Scopes are not resolved.
 *
 * @module
 */

import { z } from "zod";
import { renderReferences } from "../../render/references_text.ts";
import { decodeSearchCursor } from "../../render/search_cursor.ts";
import { SEARCH_DEFAULT_MAX_BYTES, SEARCH_MIN_MAX_BYTES } from "../../render/search_text.ts";
import { SEARCH_VIEW_BYTES } from "../../search/code_search.ts";
import { path, repo, revision } from "./arguments.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `references`. */
export const referencesTool = defineTool({
  name: "references",
  description:
    "Where the name at a position (line and 1-based column, or symbol on that line) occurs at one commit: search-based (scopes not resolved), comments and strings left out, each row `N [role]: line` with role definition, import, call, type, write, read or text.",
  input: {
    repo,
    path,
    revision,
    line: z.number().int().min(1).describe("1-based line of the name."),
    column: z.number().int().min(1).max(100_000).optional().describe(
      "1-based column (characters) on the name.",
    ),
    symbol: z.string().min(1).max(200).optional().describe("The name as written on the line."),
    include_declaration: z.boolean().optional().describe("List definitions too; default true."),
    glob: z.array(z.string().min(1).max(1024)).max(64).optional().describe("File globs as search."),
    max_bytes: z.number().int().min(SEARCH_MIN_MAX_BYTES).max(SEARCH_VIEW_BYTES).optional()
      .describe(`Most bytes of the answer; default ${SEARCH_DEFAULT_MAX_BYTES}.`),
    after: z.string().min(1).max(16384).optional().describe("NextCursor of the previous page."),
  },
  uses: ["references"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller }) => {
    const page = await calls.references(caller, {
      repo: args.repo,
      revision: args.revision,
      path: args.path,
      line: args.line,
      column: args.column,
      symbol: args.symbol,
      includeDeclaration: args.include_declaration,
      glob: args.glob,
      after: args.after === undefined ? undefined : decodeSearchCursor(args.after),
    });
    return [renderReferences(page, { maxBytes: args.max_bytes ?? SEARCH_DEFAULT_MAX_BYTES })];
  },
});
