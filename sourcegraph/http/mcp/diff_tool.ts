/**
 * `diff`: the paths changed between two revisions, paged by path.
 *
 * @module
 */

import { z } from "zod";
import { changesJson, pageWithin } from "../../render/repository_json.ts";
import { after, PAGE_DEFAULT_MAX_BYTES, pageBytes, paths, repo } from "./arguments.ts";
import { jsonAnswer, nextCursor } from "./answers.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

const side = z.string().min(1).max(256);

/** `diff`. */
export const diffTool = defineTool({
  name: "diff",
  description: "Paths changed between two revisions.",
  input: {
    repo,
    base: side.describe("Older revision."),
    head: side.describe("Newer revision."),
    first: z.number().int().min(1).max(100),
    paths,
    after,
    max_bytes: pageBytes,
  },
  output: {
    changes: z.array(z.object({ path: z.string(), status: z.string() })),
    next_cursor: nextCursor,
  },
  uses: ["diff"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller }) => {
    const { changes, ...diff } = await calls.diff(caller, args);
    return jsonAnswer(pageWithin({ ...diff, items: changes }, {
      maxBytes: args.max_bytes ?? PAGE_DEFAULT_MAX_BYTES,
      json: ({ items, ...page }) => changesJson({ ...diff, ...page, changes: items }),
    }));
  },
});
