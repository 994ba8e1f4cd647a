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
import { jsonAnswer } from "./answers.ts";

/** `prepare`. */
export const prepareTool = defineTool({
  name: "prepare",
  description: "Syncs a repository now (fetch, retention); idempotent per key.",
  input: {
    repo,
    idempotency_key: z.string().min(8).max(128).describe("8 to 128 characters."),
  },
  output: { job_id: z.string(), state: z.string() },
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
  run: async (args, { calls, caller }) =>
    jsonAnswer(prepareJson(
      await calls.prepare(caller, { repo: args.repo, idempotencyKey: args.idempotency_key }),
    )),
});
