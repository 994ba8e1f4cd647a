/**
 * The repository tools: `repositories` (what the caller can read),
 * `availability` (state, heads, retained versions, plugins on request) and
 * `resolve` (a revision to a retained commit).
 *
 * @module
 */

import { z } from "zod";
import {
  availabilityJson,
  pageWithin,
  repositoryPageJson,
  resolvedJson,
} from "../../render/repository_json.ts";
import { PAGE_DEFAULT_MAX_BYTES, pageBytes, repo, revision } from "./arguments.ts";
import { defineTool } from "./tool.ts";

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
  // Reads the service's own mirrors and indexes only: no effect, nothing outside the service.
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: (args, { service, caller }) => {
    const page = service.repositories(caller, { after: args.after });
    return [pageWithin({ ...page, items: page.repositories, hasMore: page.nextCursor !== null }, {
      maxBytes: args.max_bytes ?? PAGE_DEFAULT_MAX_BYTES,
      json: ({ items, nextCursor }) => repositoryPageJson({ repositories: items, nextCursor }),
      cursorOf: (repository) => repository.name,
    })];
  },
});

/** `availability`. */
export const availabilityTool = defineTool({
  name: "availability",
  description: "Shows one repository's state, observed heads and retained (readable) versions.",
  input: {
    repo,
    job_id: z.string().min(1).max(128).optional().describe(
      "A `prepare` job id, to see that job's outcome.",
    ),
    include_plugins: z.boolean().optional().describe(
      "Also list the plugins available at the revision; default false.",
    ),
    revision,
  },
  // Reads the service's own mirrors and indexes only: no effect, nothing outside the service.
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (args, { service, caller }) => [
    JSON.stringify(availabilityJson(
      await service.availability(caller, {
        repo: args.repo,
        includePlugins: args.include_plugins === true,
        revision: args.revision,
      }),
    )),
  ],
});

/** `resolve`. */
export const resolveTool = defineTool({
  name: "resolve",
  description:
    "Resolves a monitored branch (default: the default branch) or a full 40-hex SHA to a retained commit.",
  input: { repo, revision },
  // Reads the service's own mirrors and indexes only: no effect, nothing outside the service.
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  run: async (args, { service, caller }) => [
    JSON.stringify(resolvedJson(await service.resolveIndexed(caller, args))),
  ],
});
