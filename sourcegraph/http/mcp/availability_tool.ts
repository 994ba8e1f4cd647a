/**
 * `availability`: one repository's state, observed heads and retained
 * versions, and its plugins on request.
 *
 * @module
 */

import { z } from "zod";
import { availabilityJson } from "../../render/repository_json.ts";
import { repo, revision } from "./arguments.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

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
  uses: ["availability"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller }) => [
    JSON.stringify(availabilityJson(
      await calls.availability(caller, {
        repo: args.repo,
        includePlugins: args.include_plugins === true,
        revision: args.revision,
      }),
    )),
  ],
});
