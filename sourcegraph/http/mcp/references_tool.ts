/**
 * `references`: every place the name at a position occurs at a pinned
 * commit. Precise when the commit has an uploaded SCIP index (every
 * occurrence of the symbol the index records there, roles from the index);
 * otherwise search-based: the search's whole-word matches, each file of a
 * language with a grammar parsed so that only identifiers remain (comments
 * and strings dropped), each row with its role; a TypeScript or JavaScript
 * name that resolves keeps only the occurrences referring to it.
 *
 * @module
 */

import { z } from "zod";
import { renderReferences } from "../../render/references_text.ts";
import { decodeSearchCursor } from "../../render/search_cursor.ts";
import { SEARCH_DEFAULT_MAX_BYTES, SEARCH_MIN_MAX_BYTES } from "../../render/search_text.ts";
import { SEARCH_VIEW_BYTES } from "../../search/code_search.ts";
import { path, position, positionRequest, repo, revision } from "./arguments.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `references`. */
export const referencesTool = defineTool({
  name: "references",
  description:
    "Where the name at line and column (or symbol on that line) occurs at one commit: precise from an uploaded SCIP index, else search-based (TS/JS scopes and imports followed; no comments or strings); rows `N [role]: line`.",
  input: {
    repo,
    path,
    revision,
    ...position,
    include_declaration: z.boolean().optional().describe("Default true."),
    glob: z.array(z.string().min(1).max(1024)).max(64).optional().describe("As search."),
    max_bytes: z.number().int().min(SEARCH_MIN_MAX_BYTES).max(SEARCH_VIEW_BYTES).optional()
      .describe("As search."),
    after: z.string().min(1).max(16384).optional().describe("NextCursor."),
  },
  uses: ["references"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller }) => {
    const page = await calls.references(caller, {
      ...positionRequest(args),
      includeDeclaration: args.include_declaration,
      glob: args.glob,
      after: args.after === undefined ? undefined : decodeSearchCursor(args.after),
    });
    return [renderReferences(page, { maxBytes: args.max_bytes ?? SEARCH_DEFAULT_MAX_BYTES })];
  },
});
