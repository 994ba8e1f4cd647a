/**
 * `availability`: one repository's state, observed heads and retained
 * versions, and its plugins on request.
 *
 * @module
 */

import { z } from "zod";
import { availabilityJson } from "../../render/repository_json.ts";
import { repo, revision } from "./arguments.ts";
import { jsonAnswer, sha } from "./answers.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `availability`. */
export const availabilityTool = defineTool({
  name: "availability",
  description: "A repository's state, heads and readable commits.",
  input: {
    repo,
    job_id: z.string().min(1).max(128).optional().describe("A `prepare` job's id."),
    include_plugins: z.boolean().optional().describe("List plugins."),
    revision,
  },
  output: {
    versions: z.array(z.object({ commit: sha })),
  },
  uses: ["availability"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller }) =>
    jsonAnswer(availabilityJson(
      await calls.availability(caller, {
        repo: args.repo,
        includePlugins: args.include_plugins === true,
        revision: args.revision,
      }),
    )),
});
