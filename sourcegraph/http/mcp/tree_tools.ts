/**
 * `list` (directory entries at a commit) and `diff` (paths changed between
 * two revisions), both paged by path.
 *
 * @module
 */

import { z } from "zod";
import { after, PAGE_DEFAULT_MAX_BYTES, pageBytes, paths, repo, revision } from "./arguments.ts";
import { defineTool } from "./tool.ts";
import { changesJson, listingJson, pageWithin } from "../../render/repository_json.ts";

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
  // Reads the service's own mirrors and indexes only: no effect, nothing outside the service.
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (args, { service, caller }) => {
    const { entries, ...listing } = await service.calls.list(caller, args);
    return [pageWithin({ ...listing, items: entries }, {
      maxBytes: args.max_bytes ?? PAGE_DEFAULT_MAX_BYTES,
      json: ({ items, ...page }) => listingJson({ ...listing, ...page, entries: items }),
    })];
  },
});

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
  // Reads the service's own mirrors and indexes only: no effect, nothing outside the service.
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (args, { service, caller }) => {
    const { changes, ...diff } = await service.calls.diff(caller, args);
    return [pageWithin({ ...diff, items: changes }, {
      maxBytes: args.max_bytes ?? PAGE_DEFAULT_MAX_BYTES,
      json: ({ items, ...page }) => changesJson({ ...diff, ...page, changes: items }),
    })];
  },
});
