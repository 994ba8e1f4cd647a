/**
 * `resolve`: a revision (a monitored branch or a full SHA) to a retained
 * commit, with whether its search index serves.
 *
 * @module
 */

import { resolvedJson } from "../../render/repository_json.ts";
import { repo, revision } from "./arguments.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `resolve`. */
export const resolveTool = defineTool({
  name: "resolve",
  description:
    "Resolves a monitored branch (default: the default branch) or a full 40-hex SHA to a retained commit.",
  input: { repo, revision },
  uses: ["resolveIndexed"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller }) => [
    JSON.stringify(resolvedJson(await calls.resolveIndexed(caller, args))),
  ],
});
