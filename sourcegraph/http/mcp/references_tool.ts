/**
 * `references`: every place the name at a position occurs at a pinned
 * commit. Precise when the commit has an uploaded SCIP index (every
 * occurrence of the symbol the index records there, roles from the index);
 * otherwise search-based: the search's whole-word matches, each file of a
 * language with a grammar parsed so that only identifiers remain (comments
 * and strings dropped), each row with its role; a TypeScript or JavaScript
 * name that resolves keeps only the occurrences referring to it. Test and
 * generated files (by their paths) come after the others.
 *
 * @module
 */

import { z } from "zod";
import { referencesPage } from "../../render/references_text.ts";
import { decodeSearchCursor } from "../../render/search_cursor.ts";
import { SEARCH_DEFAULT_MAX_BYTES, SEARCH_MIN_MAX_BYTES } from "../../render/search_text.ts";
import { SEARCH_VIEW_BYTES } from "../../search/code_search.ts";
import { cursor, glob, path, position, positionRequest, repo, revision } from "./arguments.ts";
import { fileLink, lineNumber, nextCursor, url } from "./answers.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `references`. */
export const referencesTool = defineTool({
  name: "references",
  description:
    "Where the name at a position occurs, with roles; tests and generated files after the others.",
  input: {
    repo,
    path,
    revision,
    ...position,
    include_declaration: z.boolean().optional(),
    glob,
    max_bytes: z.number().int().min(SEARCH_MIN_MAX_BYTES).max(SEARCH_VIEW_BYTES).optional(),
    after: cursor(16384),
  },
  output: {
    references: z.array(z.object({ path: z.string(), line: lineNumber, url })),
    next_cursor: nextCursor,
  },
  uses: ["references"],
  annotations: READ_ONLY,
  run: async (args, context) => {
    const { calls, caller } = context;
    const maxBytes = args.max_bytes ?? SEARCH_DEFAULT_MAX_BYTES;
    const page = await calls.references(caller, {
      ...positionRequest(args),
      includeDeclaration: args.include_declaration,
      glob: args.glob,
      after: args.after === undefined ? undefined : decodeSearchCursor(args.after),
      maxBytes,
    });
    const shown = referencesPage(page, { maxBytes });
    return {
      text: [shown.text],
      structured: {
        commit: page.commit,
        precise: page.precise !== undefined,
        references: shown.rows.flatMap((row) =>
          row.place?.line
            ? [{
              path: row.place.path,
              line: row.place.line,
              roles: row.roles ?? [],
              ...fileLink(context, page.repo, {
                commit: page.commit,
                path: row.place.path,
                start: row.place.line,
              }),
            }]
            : []
        ),
        ...(shown.next === null ? {} : { next_cursor: shown.next }),
      },
    };
  },
});
