/**
 * `availability` and `resolve` (MCP and the HTTP API) say whether a
 * version's search index serves in the word `search` uses (`Index`): while
 * the build is held, all say `not_ready` (and `indexed`/`Indexed` false);
 * once `availability` says `ready`, all do, and a search at that commit goes
 * through the index. With indexes off, all say `not_ready`.
 */

import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Handler } from "../../../sourcegraph/http/edge_env.ts";
import { assertEquals, waitFor } from "../../support/assert.ts";
import { removeDir, tempDir } from "../../support/git_repo.ts";
import { heldBuilder } from "../../support/held_builder.ts";
import {
  connectInProcess,
  inProcessFetch,
  withInProcessService,
} from "../../support/in_process_service.ts";
import { callText } from "../../support/tool_calls.ts";

const NAME = "org/held";

/** What each answer says of the one retained version's index. */
interface IndexWords {
  availability: string;
  resolve: string;
  httpAvailability: string;
  httpResolve: string;
  search: string;
}

// What availability and resolve (MCP and the HTTP API) say of the one retained version's index,
// and what a search there says; each `indexed` field must say the same as its `index`.
async function indexWords(client: Client, handle: Handler, head: string): Promise<IndexWords> {
  const availability = JSON.parse(await callText(client, "availability", { repo: NAME }));
  assertEquals(availability.versions.map((version: { commit: string }) => version.commit), [head]);
  const [version] = availability.versions;
  // The field clients already read says the same: true exactly when the index serves.
  assertEquals(version.indexed, version.index === "ready");
  const resolved = JSON.parse(await callText(client, "resolve", { repo: NAME }));
  assertEquals(Object.keys(resolved), ["commit", "indexed", "index", "committer_time"]);
  assertEquals([resolved.commit, resolved.indexed], [head, resolved.index === "ready"]);
  const fetchPath = inProcessFetch(handle);
  const httpAvailability = await (await fetchPath(
    `/sourcegraph/v1/repo/availability?repo=${NAME}`,
  )).json();
  const [httpVersion] = httpAvailability.Versions;
  assertEquals(Object.keys(httpVersion), ["Commit", "Indexed", "Index", "CommitterTime"]);
  assertEquals([httpVersion.Commit, httpVersion.Indexed], [head, httpVersion.Index === "ready"]);
  const httpResolved = await (await fetchPath(`/sourcegraph/v1/repo/resolve?repo=${NAME}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ Revision: head }),
  })).json();
  assertEquals(Object.keys(httpResolved), ["Commit", "Indexed", "Index", "CommitterTime"]);
  assertEquals([httpResolved.Commit, httpResolved.Indexed], [head, httpResolved.Index === "ready"]);
  const search = await callText(client, "search", {
    repo: NAME,
    pattern: "needle",
    revision: head,
  });
  return {
    availability: version.index,
    resolve: resolved.index,
    httpAvailability: httpVersion.Index,
    httpResolve: httpResolved.Index,
    search: /^Index: "(.*)"$/m.exec(search)?.[1] ?? search,
  };
}

// Every answer saying `word`.
function all(word: string): IndexWords {
  return {
    availability: word,
    resolve: word,
    httpAvailability: word,
    httpResolve: word,
    search: word,
  };
}

Deno.test("availability, resolve (MCP and the HTTP API) and search agree on a version's index, before and after its build is published", async () => {
  const gates = await tempDir("sg-held-build-");
  const gate = join(gates, "release");
  try {
    await withInProcessService(async ({ handle, heads }) => {
      const client = await connectInProcess(handle);
      try {
        const head = heads.get(NAME)!;
        assertEquals(await indexWords(client, handle, head), all("not_ready"));
        await Deno.writeTextFile(gate, "");
        // An agent polls availability; once it says ready, the search serves from the index.
        await waitFor(
          async () => (await indexWords(client, handle, head)).availability === "ready",
          {
            what: "availability to say the index is ready",
          },
        );
        assertEquals(await indexWords(client, handle, head), all("ready"));
      } finally {
        await client.close();
      }
    }, {
      searchIndex: true,
      indexBuilder: heldBuilder(gate),
      repositories: [{ name: NAME, publicRead: true, files: { "a.txt": "a needle\n" } }],
    });
  } finally {
    await removeDir(gates);
  }
});

Deno.test("with search indexes off, availability, resolve and search all say not_ready", () =>
  withInProcessService(async ({ handle, heads }) => {
    const client = await connectInProcess(handle);
    try {
      assertEquals(await indexWords(client, handle, heads.get(NAME)!), all("not_ready"));
    } finally {
      await client.close();
    }
  }, {
    searchIndex: false,
    repositories: [{ name: NAME, publicRead: true, files: { "a.txt": "a needle\n" } }],
  }));
