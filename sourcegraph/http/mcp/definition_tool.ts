/**
 * `definition`: what the name at a position (or the named symbol on that
 * line) refers to at one commit: precise from the commit's uploaded SCIP
 * index, else search-based (its scopes and imports resolved in the files,
 * else the symbol index).
 *
 * @module
 */

import { renderDefinition } from "../../render/definition_text.ts";
import { path, position, positionRequest, repo, revision } from "./arguments.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `definition`. */
export const definitionTool = defineTool({
  name: "definition",
  description:
    "Where the name at line and column (or symbol on that line) is declared at one commit: precise from an uploaded SCIP index, else search-based (scopes and imports followed, then the symbol index).",
  input: {
    repo,
    path,
    revision,
    ...position,
  },
  uses: ["definition"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller }) => {
    const answer = await calls.definition(caller, positionRequest(args));
    return [renderDefinition(answer)];
  },
});
