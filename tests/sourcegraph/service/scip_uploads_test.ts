/**
 * SCIP uploads in the operator's service: an index of a synced commit is
 * stored and pruned with the commit's retention, removed with its
 * repository; a replica of a cluster refuses uploads (reads there may run on
 * any holder, which would not have the index) and stores nothing.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { ScipIndexes } from "../../../sourcegraph/search/scip/scip_store.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import { READ_PLUGIN_ROOM } from "../../../sourcegraph/http/mcp/read_room.ts";
import { DEFAULT_PLUGIN_SETTINGS } from "../../../sourcegraph/plugins/plugin_settings.ts";
import { composeServices, type Services } from "../../../sourcegraph/service/compose.ts";
import { SCIP_ROLES } from "../../../sourcegraph/search/scip/scip_derived.ts";
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
    await services.admin.uploadScip("org/a", { commit, bytes: INDEX });
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
    const stored = await services.admin.uploadScip("org/a", { commit, bytes: INDEX });
    assertEquals(stored.documents, 1);
    const id = services.store.repository("org/a")!.id;
    assertEquals([...new ScipIndexes(data).commits(id).keys()], [commit]);
    await services.admin.remove("org/a");
    assertEquals(new ScipIndexes(data).commits(id).size, 0);
    assert(!existsSync(new ScipIndexes(data).folder(id)));
  }));

Deno.test("SCIP uploads: a replica of a cluster refuses them and stores nothing", () =>
  withServices(async (services, { commit }) => {
    services.admin.usePlacement({ pin: () => Promise.resolve() });
    const error = await assertRejects(
      () => services.admin.uploadScip("org/a", { commit, bytes: INDEX }),
      SourcegraphError,
    );
    assertEquals(error.code, "INVALID_REQUEST");
    assertEquals(await services.localCalls.versionScip({ kind: "service" }, { repo: "org/a" }), {});
  }));
