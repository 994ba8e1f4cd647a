/**
 * `list`: the entries of a directory at a commit, paged by path.
 *
 * @module
 */

import { z } from "zod";
import { listingJson, pageWithin } from "../../render/repository_json.ts";
import { treeUrl } from "../../render/page_urls.ts";
import { after, PAGE_DEFAULT_MAX_BYTES, pageBytes, repo, revision } from "./arguments.ts";
import { jsonAnswer, nextCursor, url } from "./answers.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `list`. */
export const listTool = defineTool({
  name: "list",
  description: "Lists a directory.",
  input: {
    repo,
    revision,
    first: z.number().int().min(1).max(1000),
    path: z.string().min(1).max(4096).optional().describe("Directory; default the root."),
    after,
    max_bytes: pageBytes,
  },
  output: {
    entries: z.array(z.object({ path: z.string(), kind: z.string() })),
    next_cursor: nextCursor,
    url,
  },
  uses: ["list"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller, pageLink }) => {
    const { entries, ...listing } = await calls.list(caller, args);
    const json = pageWithin({ ...listing, items: entries }, {
      maxBytes: args.max_bytes ?? PAGE_DEFAULT_MAX_BYTES,
      json: ({ items, ...page }) => listingJson({ ...listing, ...page, entries: items }),
    });
    const dir = { rev: listing.commit, dir: listing.path };
    return jsonAnswer(json, pageLink === null ? {} : { url: pageLink(treeUrl(args.repo, dir)) });
  },
});
