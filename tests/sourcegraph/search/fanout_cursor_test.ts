/**
 * A continued page across repositories searches what its cursor pins, so a
 * cursor naming one repository many times is refused (INVALID_CURSOR) before
 * anything is searched, through the tools, the HTTP API and the service; a
 * cursor may pin only repositories the caller sees, each once.
 */

import { assertEquals } from "../../support/assert.ts";
import {
  connectInProcess,
  inProcessFetch,
  withInProcessService,
  type WorldRepository,
} from "../../support/in_process_service.ts";
import { callTool } from "../../support/tool_calls.ts";
import { encodeToken } from "../../../sourcegraph/render/search_cursor.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import { RepositoryFanout } from "../../../sourcegraph/service/repository_fanout.ts";
import { FANOUT_MAX_REPOSITORIES } from "../../../sourcegraph/service/repository_pins.ts";
import { Visibility } from "../../../sourcegraph/access/visibility.ts";

const REPOSITORIES: WorldRepository[] = [
  { name: "org/one", publicRead: true, files: { "a.txt": "needle\n" } },
  { name: "org/two", publicRead: true, files: { "b.txt": "needle\n" } },
  { name: "org/hidden", publicRead: false, files: { "c.txt": "needle\n" } },
];

Deno.test("search across repositories: a cursor pinning a repository twice is refused, nothing searched", () =>
  withInProcessService(async ({ handle, heads, store }) => {
    const one = heads.get("org/one")!;
    const two = heads.get("org/two")!;
    const repeated = Array.from({ length: FANOUT_MAX_REPOSITORIES }, () => ["org/one", one]);
    const forged = encodeToken(["repos", repeated, 0, null]);
    const twice = encodeToken([
      "repos",
      [["org/one", one], ["org/two", two], ["org/one", one]],
      0,
      null,
    ]);
    const hidden = encodeToken([
      "repos",
      [["org/one", one], ["org/hidden", heads.get("org/hidden")!]],
      0,
      null,
    ]);
    const symbols = encodeToken(["symbols-repos", repeated, 1]);
    const client = await connectInProcess(handle);
    const fetchPath = inProcessFetch(handle);
    const post = async (path: string, body: unknown): Promise<string> => {
      const response = await fetchPath(`/sourcegraph${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = await response.json();
      return `${response.status} ${answer.Meta?.Code ?? "ok"}`;
    };
    try {
      for (const after of [forged, twice]) {
        assertEquals(
          (await callTool(client, "search", { pattern: "needle", after })).code,
          "INVALID_CURSOR",
        );
        assertEquals(
          await post("/v1/search", { Pattern: "needle", After: after }),
          "400 INVALID_CURSOR",
        );
      }
      assertEquals(
        (await callTool(client, "symbols", { query: "needle", after: symbols })).code,
        "INVALID_CURSOR",
      );
      assertEquals(
        await post("/v1/symbols", { Query: "needle", After: symbols }),
        "400 INVALID_CURSOR",
      );
      // A repository the caller cannot see is not searched through a cursor either.
      assertEquals(
        (await callTool(client, "search", { pattern: "needle", after: hidden })).code,
        "REPOSITORY_NOT_FOUND",
      );
      // A cursor of distinct visible repositories is a page like any other.
      const fine = encodeToken(["repos", [["org/one", one], ["org/two", two]], 0, null]);
      assertEquals(
        (await callTool(client, "search", { pattern: "needle", after: fine })).code,
        "OK",
      );

      // The service itself refuses repeated pins handed to it, before any search.
      let searched = 0;
      const fanout = new RepositoryFanout(store, {
        visibility: new Visibility(store, { publicRead: true }),
        searchOne: () => {
          searched++;
          return Promise.reject(new Error("not reached"));
        },
      });
      const refused = await fanout.search({ kind: "anonymous" }, {
        repos: null,
        pattern: "needle",
        after: {
          pins: repeated.map(([repo, commit]) => ({ repo, commit })),
          index: 0,
          position: null,
        },
      }).then(() => null, (error) => error);
      assertEquals([(refused as SourcegraphError).code, searched], ["INVALID_CURSOR", 0]);
    } finally {
      await client.close();
    }
  }, { repositories: REPOSITORIES, searchIndex: true }));
