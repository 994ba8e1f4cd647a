/**
 * `availability` says whether each version's search index serves in the
 * word `search` uses (`Index`): while the build is held, both say
 * `not_ready`; once `availability` says `ready`, a search at that commit goes
 * through the index. With indexes off, both say `not_ready`.
 */

import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assertEquals, waitFor } from "../../support/assert.ts";
import { removeDir, tempDir } from "../../support/git_repo.ts";
import { heldBuilder } from "../../support/held_builder.ts";
import { connectInProcess, withInProcessService } from "../../support/in_process_service.ts";
import { callText } from "../../support/tool_calls.ts";

const NAME = "org/held";

// What availability says of the one retained version's index, and what a search there says.
async function indexWords(client: Client, head: string): Promise<[string, string]> {
  const availability = JSON.parse(await callText(client, "availability", { repo: NAME }));
  assertEquals(availability.versions.map((version: { commit: string }) => version.commit), [head]);
  const search = await callText(client, "search", {
    repo: NAME,
    pattern: "needle",
    revision: head,
  });
  const [version] = availability.versions;
  // The field clients already read says the same: true exactly when the index serves.
  assertEquals(version.indexed, version.index === "ready");
  return [version.index, /^Index: "(.*)"$/m.exec(search)?.[1] ?? search];
}

Deno.test("availability and search agree on a version's index, before and after its build is published", async () => {
  const gates = await tempDir("sg-held-build-");
  const gate = join(gates, "release");
  try {
    await withInProcessService(async ({ handle, heads }) => {
      const client = await connectInProcess(handle);
      try {
        const head = heads.get(NAME)!;
        assertEquals(await indexWords(client, head), ["not_ready", "not_ready"]);
        await Deno.writeTextFile(gate, "");
        // An agent polls availability; once it says ready, the search serves from the index.
        await waitFor(async () => (await indexWords(client, head))[0] === "ready", {
          what: "availability to say the index is ready",
        });
        assertEquals(await indexWords(client, head), ["ready", "ready"]);
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

Deno.test("with search indexes off, availability and search both say not_ready", () =>
  withInProcessService(async ({ handle, heads }) => {
    const client = await connectInProcess(handle);
    try {
      assertEquals(await indexWords(client, heads.get(NAME)!), ["not_ready", "not_ready"]);
    } finally {
      await client.close();
    }
  }, {
    searchIndex: false,
    repositories: [{ name: NAME, publicRead: true, files: { "a.txt": "a needle\n" } }],
  }));
