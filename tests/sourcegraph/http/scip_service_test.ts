/**
 * A SCIP upload to the service as the launcher starts it (its own process,
 * the start task's narrow permission flags): the SCIP worker loads, the
 * index is stored, and `references` through a real MCP client over HTTP is
 * precise from then on; a 25 MiB upload keeps the service's resident memory
 * within a bound (the body goes to a file, the worker reads it a document at
 * a time).
 */

import { SCIP_ROLES } from "../../../sourcegraph/search/scip/scip_derived.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { createRepo, git, removeDir, tempDir } from "../../support/git_repo.ts";
import { largeScip } from "../../support/large_scip.ts";
import { peakRssMib } from "../../support/raw_http.ts";
import { encodeScip } from "../../support/scip_fixtures.ts";
import {
  connectClient,
  PROJECT_TOKEN,
  type RunningService,
  startService,
} from "../../support/sourcegraph_service.ts";
import { callTool } from "../../support/tool_calls.ts";

const SYMBOL = "npm project 1.0.0 src/`a.ts`/run().";

// Most resident memory the launched service may reach while it takes a 25 MiB upload (MiB): it
// peaked at 210 (225 for twice the upload: the service's own memory dominates). An index decoded
// whole takes about 0.75 KiB of heap per occurrence (930 MiB for 1.25 million): this one's
// 470,000 would add some 340 MiB to the service's 114 idle.
const UPLOAD_RSS_MIB = 320;

// One launched service serves both cases: the large upload first (the peak is
// the process's own high-water mark), then the small one at the same commit.
Deno.test("SCIP in the launched service", async (t) => {
  const { bytes, paths } = largeScip({ files: 100, perFile: 4_700 });
  assert(bytes.length >= 25 * 1024 * 1024, `${bytes.length} bytes`);
  const parent = await tempDir("sg-scip-");
  const repo = await createRepo({
    ...Object.fromEntries(paths.map((path) => [path, "export {};\n"])),
    "src/a.ts": "export function run() {}\nrun();\n",
    ".gitignore": ".sourcegraph/\n",
  }, { parent, name: "project" });
  const commit = (await git(repo.path, ["rev-parse", "HEAD"])).trim();
  // No search index: precise references come from the uploaded index, and no index builder
  // process parses the 101 files the uploads describe.
  const service = await startService(repo.path, {
    SOURCEGRAPH_API_TOKEN: PROJECT_TOKEN,
    SOURCEGRAPH_SEARCH_INDEX: "false",
  });
  const upload = (body: Uint8Array<ArrayBuffer>) =>
    fetch(`${service.url}/sourcegraph/api/admin/v1/repo/scip?repo=local/project&commit=${commit}`, {
      method: "POST",
      headers: { authorization: `Bearer ${PROJECT_TOKEN}` },
      body,
    });
  try {
    await t.step(
      "a 25 MiB upload of 470,000 occurrences stays under 320 MiB resident",
      async () => {
        const uploaded = await upload(bytes);
        assertEquals(uploaded.status, 201, `${await uploaded.clone().text()}\n${logOf(service)}`);
        const stored = await uploaded.json();
        assertEquals([stored.documents, stored.occurrences], [100, 100 * 4_700]);
        const peak = await peakRssMib(service.pid);
        assert(peak < UPLOAD_RSS_MIB, `peak resident memory ${peak.toFixed(0)} MiB`);
        console.log(`peak resident memory up to the end of the upload: ${peak.toFixed(0)} MiB`);
      },
    );
    await t.step("the worker loads under the start flags, references become precise", async () => {
      const index = encodeScip([{
        path: "src/a.ts",
        occurrences: [
          { range: [0, 16, 19], symbol: SYMBOL, roles: SCIP_ROLES.definition },
          { range: [1, 0, 3], symbol: SYMBOL },
        ],
      }]);
      const uploaded = await upload(index);
      assertEquals(uploaded.status, 201, `${await uploaded.clone().text()}\n${logOf(service)}`);
      assertEquals((await uploaded.json()).occurrences, 2);
      const client = await connectClient(service.url, { token: PROJECT_TOKEN });
      try {
        const outcome = await callTool(client, "references", {
          repo: "local/project",
          path: "src/a.ts",
          line: 2,
          column: 1,
        });
        const answer = outcome.texts[0];
        assert(answer.includes('Precision: "precise"; Tool: "test-indexer 1.2.3"'), answer);
        assert(answer.includes("1 [definition]: export function run() {}"), answer);
        assert(answer.includes("2 [reference]: run();"), answer);
      } finally {
        await client.close();
      }
      assert(!service.log.some((line) => line.includes("SCIP worker failed")), logOf(service));
    });
  } finally {
    await service.stop();
    await removeDir(parent);
  }
});

function logOf(service: RunningService): string {
  return service.log.join("\n");
}
