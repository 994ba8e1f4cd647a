/**
 * `diff`: the paths changed between two revisions, paged by path.
 *
 * @module
 */

import { z } from "zod";
import { changesJson, pageWithin } from "../../render/repository_json.ts";
import { after, PAGE_DEFAULT_MAX_BYTES, pageBytes, paths, repo } from "./arguments.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `diff`. */
export const diffTool = defineTool({
  name: "diff",
  description:
    "Lists paths changed between two revisions (each a monitored branch or a retained full SHA), first entries after the cursor, with has_more and next_cursor.",
  input: {
    repo,
    base: z.string().min(1).max(256).describe("Older revision: a monitored branch or a full SHA."),
    head: z.string().min(1).max(256).describe("Newer revision: a monitored branch or a full SHA."),
    first: z.number().int().min(1).max(100).describe("Changed paths to return (1 to 100)."),
    paths,
    after,
    max_bytes: pageBytes,
  },
  uses: ["diff"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller }) => {
    const { changes, ...diff } = await calls.diff(caller, args);
    return [pageWithin({ ...diff, items: changes }, {
      maxBytes: args.max_bytes ?? PAGE_DEFAULT_MAX_BYTES,
      json: ({ items, ...page }) => changesJson({ ...diff, ...page, changes: items }),
    })];
  },
});
