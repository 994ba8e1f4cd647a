/**
 * `definition`: what the name at a position (or the named symbol on that
 * line) refers to at one commit: precise from the commit's uploaded SCIP
 * index, else search-based (its scopes and imports resolved in the files,
 * else the symbol index).
 *
 * @module
 */

import { z } from "zod";
import { renderDefinition } from "../../render/definition_text.ts";
import { path, position, positionRequest, repo, revision } from "./arguments.ts";
import { fileLink, lineNumber, url } from "./answers.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `definition`. */
export const definitionTool = defineTool({
  name: "definition",
  description: "Where the name at a position is declared.",
  input: {
    repo,
    path,
    revision,
    ...position,
  },
  output: {
    definition: z.object({ path: z.string(), line: lineNumber, url }).nullable(),
  },
  uses: ["definition"],
  annotations: READ_ONLY,
  run: async (args, context) => {
    const answer = await context.calls.definition(context.caller, positionRequest(args));
    const found = answer.definition;
    return {
      text: [renderDefinition(answer)],
      structured: {
        commit: answer.commit,
        precise: answer.precise !== null,
        definition: found === null ? null : {
          path: found.path,
          line: found.line,
          kind: found.kind,
          ...fileLink(context, answer.repo, {
            commit: answer.commit,
            path: found.path,
            start: found.line,
          }),
        },
      },
    };
  },
});
