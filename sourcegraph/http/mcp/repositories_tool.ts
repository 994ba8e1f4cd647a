/**
 * `repositories`: the repositories the caller can read, paged by name.
 *
 * @module
 */

import { z } from "zod";
import { pageWithin, repositoryPageJson } from "../../render/repository_json.ts";
import { PAGE_DEFAULT_MAX_BYTES, pageBytes } from "./arguments.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `repositories`. */
export const repositoriesTool = defineTool({
  name: "repositories",
  description:
    "Lists the repositories you can read (100 per page): state, index mode, observed branch heads, default branch.",
  input: {
    after: z.string().min(1).max(256).optional().describe(
      "next_cursor of the previous page, to continue after it.",
    ),
    max_bytes: pageBytes,
  },
  uses: ["repositories"],
  annotations: READ_ONLY,
  run: (args, { calls, caller }) => {
    const page = calls.repositories(caller, { after: args.after });
    return [pageWithin({ ...page, items: page.repositories, hasMore: page.nextCursor !== null }, {
      maxBytes: args.max_bytes ?? PAGE_DEFAULT_MAX_BYTES,
      json: ({ items, nextCursor }) => repositoryPageJson({ repositories: items, nextCursor }),
      cursorOf: (repository) => repository.name,
    })];
  },
});
