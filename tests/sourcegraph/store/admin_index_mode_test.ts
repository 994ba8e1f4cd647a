/**
 * A registration's index mode and its path groups never disagree, whatever
 * wire they come by: path groups alone mean "monorepo" (only the groups are
 * visible), "full" with path groups and "monorepo" without one are refused
 * with one line naming `path_groups`.
 */

import { join } from "node:path";
import { assertEquals, assertIncludes } from "../../support/assert.ts";
import {
  adminFetch,
  inProcessFetch,
  withInProcessService,
  WORLD_TOKEN,
} from "../../support/in_process_service.ts";
import { createRepo } from "../../support/git_repo.ts";
import { applyConfigFile } from "../../../sourcegraph/startup/config_file.ts";
import { indexModeProblem } from "../../../sourcegraph/store/registration.ts";

const FULL_WITH_GROUPS = indexModeProblem("full", 1)!;
const MONOREPO_WITHOUT_GROUPS = indexModeProblem("monorepo", 0)!;
const FILES = {
  "docs/public/guide.md": "public guide\n",
  "docs/private/secret.md": "token=hunter2\n",
};

Deno.test("admin API: path groups without index_mode register a monorepo; an anonymous caller reads only the groups", async () => {
  await withInProcessService(async ({ handle, parent }) => {
    const source = await createRepo(FILES, { parent, name: "mono" });
    const admin = adminFetch(handle, WORLD_TOKEN);
    const registered = await admin("POST", "/repos", {
      body: {
        name: "t/r13",
        source: source.path,
        public_read: true,
        policy: { branches: ["main"], default_branch: "main", count: 5 },
        path_groups: [{ name: "g", paths: ["docs/public"] }],
      },
      key: "reg-mono-01",
    });
    assertEquals(registered.status, 202);
    const { repo } = await registered.json();
    assertEquals([repo.index_mode, repo.path_groups], ["monorepo", [{
      name: "g",
      paths: ["docs/public"],
    }]]);
    const prepared = await admin("POST", "/repo/prepare?repo=t/r13");
    assertEquals((await prepared.json()).state, "succeeded");
    const anonymous = inProcessFetch(handle);
    const read = (path: string) =>
      anonymous("/sourcegraph/v1/repo/read?repo=t/r13", {
        method: "POST",
        body: JSON.stringify({ Path: path }),
      }).then((response) => response.json());
    assertEquals((await read("docs/public/guide.md")).Content, "public guide\n");
    const secret = await read("docs/private/secret.md");
    assertEquals(secret.Meta.Code, "PATH_NOT_REGISTERED", JSON.stringify(secret));
    assertEquals(JSON.stringify(secret).includes("hunter2"), false);
  }, { repositories: [] });
});

Deno.test("admin API: index_mode and path_groups that disagree are refused, at registration and update", async () => {
  await withInProcessService(async ({ handle, store }) => {
    const admin = adminFetch(handle, WORLD_TOKEN);
    const groups = [{ name: "g", paths: ["docs"] }];
    const refusals: [Record<string, unknown>, string][] = [
      [{ index_mode: "full", path_groups: groups }, FULL_WITH_GROUPS],
      [{ index_mode: "monorepo" }, MONOREPO_WITHOUT_GROUPS],
      [{ index_mode: "monorepo", path_groups: [] }, MONOREPO_WITHOUT_GROUPS],
    ];
    for (const [i, [fields, problem]] of refusals.entries()) {
      const refused = await admin("POST", "/repos", {
        body: {
          name: "org/other",
          source: "/nowhere",
          public_read: true,
          policy: { branches: ["main"] },
          ...fields,
        },
        key: `reg-refused-${i}`,
      });
      assertEquals([refused.status, await refused.json()], [400, {
        code: "INVALID_REQUEST",
        message: `invalid field path_groups: ${problem}`,
      }], JSON.stringify(fields));
      const patched = await admin("PATCH", "/repo?repo=org/open", { body: fields });
      assertEquals([patched.status, await patched.json()], [400, {
        code: "INVALID_REQUEST",
        message: `invalid field path_groups: ${problem}`,
      }], JSON.stringify(fields));
    }
    assertEquals(store.repository("org/other"), null);
    assertEquals(store.repository("org/open")!.pathGroups, []);
    // Path groups alone make it a monorepo; "full" alone removes them.
    const grouped = await admin("PATCH", "/repo?repo=org/open", { body: { path_groups: groups } });
    assertEquals((await grouped.json()).repo.index_mode, "monorepo");
    assertEquals(store.repository("org/open")!.pathGroups, groups);
    const full = await admin("PATCH", "/repo?repo=org/open", { body: { index_mode: "full" } });
    assertEquals((await full.json()).repo.index_mode, "full");
    assertEquals(store.repository("org/open")!.pathGroups, []);
  });
});

Deno.test("sourcegraph.toml: index_mode and path_groups that disagree stop the start with one line; path groups alone mean monorepo", async () => {
  await withInProcessService(async ({ store, parent }) => {
    const config = join(parent, "sourcegraph.toml");
    const entry = (extra: string) =>
      `[[repositories]]\nname = "org/mono"\nsource = "/nowhere"\nbranches = ["main"]\n${extra}\n`;
    for (
      const [extra, problem] of [
        ['index_mode = "full"\npath_groups = [{ name = "g", paths = ["docs"] }]', FULL_WITH_GROUPS],
        ['index_mode = "monorepo"', MONOREPO_WITHOUT_GROUPS],
      ]
    ) {
      await Deno.writeTextFile(config, entry(extra));
      const refused = await applyConfigFile(config, store).then(() => "", (e) => e.message);
      assertEquals(refused, `sourcegraph.toml is invalid: repositories.0.path_groups: ${problem}`);
      assertEquals(store.repository("org/mono"), null);
    }
    await Deno.writeTextFile(config, entry('path_groups = [{ name = "g", paths = ["docs"] }]'));
    assertEquals(await applyConfigFile(config, store), ["org/mono"]);
    assertEquals(store.repository("org/mono")!.pathGroups, [{ name: "g", paths: ["docs"] }]);
    assertIncludes(FULL_WITH_GROUPS, "path_groups");
  }, { repositories: [] });
});
