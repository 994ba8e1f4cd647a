/**
 * `prepare` (service token only): syncs a repository now, idempotent per
 * `idempotency_key`. A sync covers the whole repository (every monitored
 * branch, every path group), so the tool takes no revision or group.
 *
 * @module
 */

import { z } from "zod";
import { repo } from "./arguments.ts";
import { defineTool } from "./tool.ts";
import { prepareJson } from "../../render/repository_json.ts";

/** `prepare`. */
export const prepareTool = defineTool({
  name: "prepare",
  description:
    "Syncs a repository now (service token only): fetches its monitored branches and applies retention. Idempotent per idempotency_key.",
  input: {
    repo,
    idempotency_key: z.string().min(8).max(128).describe(
      "8 to 128 characters; the same key answers the first run's outcome again.",
    ),
  },
  // Fetches from the repository's source (outside the service); retention may
  // prune versions, which then cannot be read; the same key does nothing more.
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: true,
  },
  serviceOnly: true,
  uses: ["prepare"],
  run: async (args, { calls, caller }) => [
    JSON.stringify(prepareJson(
      await calls.prepare(caller, { repo: args.repo, idempotencyKey: args.idempotency_key }),
    )),
  ],
});
