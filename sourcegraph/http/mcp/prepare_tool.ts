/**
 * `prepare` (service token only): syncs a repository now, idempotent per
 * `idempotency_key`.
 *
 * @module
 */

import { z } from "zod";
import { repo, revision } from "./arguments.ts";
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
    revision,
    group: z.string().min(1).max(128).optional().describe("A monorepo path group to prepare."),
  },
  serviceOnly: true,
  run: async (args, { admin, caller }) => [
    JSON.stringify(prepareJson(
      await admin.prepare(caller, { repo: args.repo, idempotencyKey: args.idempotency_key }),
    )),
  ],
});
