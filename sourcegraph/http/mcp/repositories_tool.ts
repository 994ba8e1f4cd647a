/**
 * `repositories`: the repositories the caller can read, paged by name.
 *
 * @module
 */

import { z } from "zod";
import { pageWithin, repositoryPageJson } from "../../render/repository_json.ts";
import { cursor, PAGE_DEFAULT_MAX_BYTES, pageBytes } from "./arguments.ts";
import { jsonAnswer, nextCursor } from "./answers.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `repositories`. */
export const repositoriesTool = defineTool({
  name: "repositories",
  description: "Lists the repositories you can read.",
  input: {
    after: cursor(256),
    max_bytes: pageBytes,
  },
  output: {
    repositories: z.array(z.object({ repo: z.string() })),
    next_cursor: nextCursor,
  },
  uses: ["repositories"],
  annotations: READ_ONLY,
  run: (args, { calls, caller }) => {
    const page = calls.repositories(caller, { after: args.after });
    return jsonAnswer(
      pageWithin({ ...page, items: page.repositories, hasMore: page.nextCursor !== null }, {
        maxBytes: args.max_bytes ?? PAGE_DEFAULT_MAX_BYTES,
        json: ({ items, nextCursor }) => repositoryPageJson({ repositories: items, nextCursor }),
        cursorOf: (repository) => repository.name,
      }),
    );
  },
});
