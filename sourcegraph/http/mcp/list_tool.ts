/**
 * `list`: the entries of a directory at a commit, paged by path.
 *
 * @module
 */

import { z } from "zod";
import { listingJson, pageWithin } from "../../render/repository_json.ts";
import { after, PAGE_DEFAULT_MAX_BYTES, pageBytes, repo, revision } from "./arguments.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `list`. */
export const listTool = defineTool({
  name: "list",
  description:
    "Lists a directory at a commit (first entries after the cursor), with has_more and next_cursor.",
  input: {
    repo,
    revision,
    first: z.number().int().min(1).max(1000).describe("Entries to return (1 to 1000)."),
    path: z.string().min(1).max(4096).optional().describe(
      "Directory from the repository root; default: the root.",
    ),
    after,
    max_bytes: pageBytes,
  },
  uses: ["list"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller }) => {
    const { entries, ...listing } = await calls.list(caller, args);
    return [pageWithin({ ...listing, items: entries }, {
      maxBytes: args.max_bytes ?? PAGE_DEFAULT_MAX_BYTES,
      json: ({ items, ...page }) => listingJson({ ...listing, ...page, entries: items }),
    })];
  },
});
