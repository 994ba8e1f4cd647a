/**
 * `resolve`: a revision (a monitored branch or a full SHA) to a retained
 * commit, with whether its search index serves, and the link to its files.
 *
 * @module
 */

import { resolvedJson } from "../../render/repository_json.ts";
import { treeUrl } from "../../render/page_urls.ts";
import { repo, revision } from "./arguments.ts";
import { jsonAnswer, sha, url } from "./answers.ts";
import { defineTool, READ_ONLY } from "./tool.ts";

/** `resolve`. */
export const resolveTool = defineTool({
  name: "resolve",
  description: "Resolves a revision to the commit to pin.",
  input: { repo, revision },
  output: { commit: sha, url },
  uses: ["resolveIndexed"],
  annotations: READ_ONLY,
  run: async (args, { calls, caller, pageLink }) => {
    const resolved = await calls.resolveIndexed(caller, args);
    return jsonAnswer(
      resolvedJson(resolved),
      pageLink === null ? {} : { url: pageLink(treeUrl(args.repo, { rev: resolved.commit })) },
    );
  },
});
