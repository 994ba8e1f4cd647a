/**
 * SCIP uploads in the operator's service: an index of a synced commit is
 * stored and pruned with the commit's retention, removed with its
 * repository; in a cluster an upload is shared before it is kept, and one
 * the shared store refuses keeps nothing (no index, no temp file).
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { ScipIndexes } from "../../../sourcegraph/search/scip/scip_store.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import { READ_PLUGIN_ROOM } from "../../../sourcegraph/http/mcp/read_room.ts";
import { DEFAULT_PLUGIN_SETTINGS } from "../../../sourcegraph/plugins/plugin_settings.ts";
import { composeServices, type Services } from "../../../sourcegraph/service/compose.ts";
import { SCIP_ROLES } from "../../../sourcegraph/search/scip/scip_derived.ts";
import { PATH_BATCH_CHARS } from "../../../sourcegraph/service/scip_uploads.ts";
import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir, type TestRepo } from "../../support/git_repo.ts";
import { encodeScip } from "../../support/scip_fixtures.ts";

const INDEX = encodeScip([{
  path: "a.ts",
  occurrences: [{ range: [0, 0, 1], symbol: "npm p 1 a.", roles: SCIP_ROLES.definition }],
}]);

async function withServices(
  fn: (services: Services, at: { commit: string; source: TestRepo; data: string }) => Promise<void>,
): Promise<void> {
  const parent = await tempDir("scip-uploads-");
  const data = join(parent, "data");
  await Deno.mkdir(join(data, "mirrors"), { recursive: true });
  const services = composeServices({
    dataDir: data,
    publicRead: true,
    searchIndex: false,
    plugins: DEFAULT_PLUGIN_SETTINGS,
  }, { log: () => {}, pluginRoom: READ_PLUGIN_ROOM });
  try {
    const source = await createRepo({}, { parent, name: "source" });
    await source.write({ "a.ts": "a;\n" });
    const commit = await source.commit("initial");
    const repo = await services.store.register({
      name: "org/a",
      source: source.path,
      publicRead: true,
      policy: { branches: ["main"], count: 1 },
      pathGroups: [],
      syncIntervalMinutes: 5,
    });
    await services.scheduler.sync(repo);
    await fn(services, { commit, source, data });
  } finally {
    await services.close();
    await removeDir(parent);
  }
}

Deno.test("SCIP uploads: an index goes when its commit is no longer retained", () =>
  withServices(async (services, { commit, source }) => {
    await services.admin.uploadScip("org/a", { commit, body: INDEX });
    const scip = () => services.localCalls.versionScip({ kind: "service" }, { repo: "org/a" });
    assertEquals(Object.keys(await scip()), [commit]);
    await source.write({ "a.ts": "b;\n" });
    const next = await source.commit("next");
    await services.scheduler.sync(services.store.repository("org/a")!);
    assertEquals(
      services.store.versions(services.store.repository("org/a")!.id).map((v) => v.commit),
      [next],
    );
    assertEquals(await scip(), {});
  }));

Deno.test("SCIP uploads: stored, then removed with the repository", () =>
  withServices(async (services, { commit, data }) => {
    const stored = await services.admin.uploadScip("org/a", { commit, body: INDEX });
    assertEquals(stored.documents, 1);
    const id = services.store.repository("org/a")!.id;
    assertEquals([...new ScipIndexes(data).commits(id).keys()], [commit]);
    await services.admin.remove("org/a");
    assertEquals(new ScipIndexes(data).commits(id).size, 0);
    assert(!existsSync(new ScipIndexes(data).folder(id)));
  }));

Deno.test("SCIP uploads: in a cluster the index is shared first; a refused share keeps nothing", () =>
  withServices(async (services, { commit, data }) => {
    const id = services.store.repository("org/a")!.id;
    const folder = new ScipIndexes(data).folder(id);
    const shared: string[] = [];
    let answer: boolean | Error = new SourcegraphError("DEPENDENCY_UNAVAILABLE", "away");
    services.admin.useScipShare({
      publish(repo, checked) {
        // The stored text is whole when it is shared: its digest is its content's.
        const bytes = Deno.readFileSync(checked.stored);
        shared.push(`${repo.name} ${checked.commit} ${bytes.length === checked.bytes}`);
        if (answer instanceof Error) return Promise.reject(answer);
        return Promise.resolve(answer);
      },
    });
    const versionScip = () =>
      services.localCalls.versionScip({ kind: "service" }, { repo: "org/a" });
    const error = await assertRejects(
      () => services.admin.uploadScip("org/a", { commit, body: INDEX }),
      SourcegraphError,
    );
    assertEquals(error.code, "DEPENDENCY_UNAVAILABLE");
    assertEquals(await versionScip(), {});
    assertEquals([...Deno.readDirSync(folder)], [], "no temp file is left");
    answer = false; // shared for the owners; this replica holds no copy
    await services.admin.uploadScip("org/a", { commit, body: INDEX });
    assertEquals(await versionScip(), {});
    answer = true;
    await services.admin.uploadScip("org/a", { commit, body: INDEX });
    assertEquals(Object.keys(await versionScip()), [commit]);
    assertEquals(shared, Array(3).fill(`org/a ${commit} true`));
    assertEquals([...Deno.readDirSync(folder)].map((entry) => entry.name), [`${commit}.json`]);
  }));

Deno.test("SCIP uploads: the files are checked in routed calls of at most a MiB of paths, the answers added up", () =>
  withServices(async (services, { commit }) => {
    const batches: number[] = [];
    services.repositories.useRouter({
      route: (call, local) => {
        const paths = (call.request as { paths?: string[] }).paths;
        if (call.method === "scipUnknownFiles" && paths) {
          batches.push(paths.reduce((sum, path) => sum + path.length, 0));
        }
        return local();
      },
      serving: () => null,
    });
    // 300 documents of 4,000-character paths, none a file of the commit: 1.2 million characters.
    const documents = Array.from({ length: 300 }, (_, i) => ({
      path: `${"d/".repeat(1_990)}f${String(i).padStart(3, "0")}.ts`,
      occurrences: [],
    }));
    const error = await assertRejects(
      () => services.admin.uploadScip("org/a", { commit, body: encodeScip(documents) }),
      SourcegraphError,
    );
    assertEquals(error.code, "SCIP_UNKNOWN_FILE");
    assert(
      error.message.startsWith("300 document(s) name no file of this commit: "),
      error.message,
    );
    assertEquals(batches.length, 2, JSON.stringify(batches));
    assert(batches.every((chars) => chars <= PATH_BATCH_CHARS + 4_096), JSON.stringify(batches));
    assertEquals(batches[0] + batches[1], documents.reduce((sum, d) => sum + d.path.length, 0));
  }));
