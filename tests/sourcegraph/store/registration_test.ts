import { join } from "node:path";
import { assertEquals, assertIncludes } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { startFailure } from "../../support/sourcegraph_service.ts";
import { adminFetch, withInProcessService, WORLD_TOKEN } from "../../support/in_process_service.ts";
import { PATH_GROUP_PATH_RULE } from "../../../sourcegraph/store/registration.ts";
import { SqliteControlStore } from "../../../sourcegraph/store/sqlite_control_store.ts";
import { applyConfigFile } from "../../../sourcegraph/startup/config_file.ts";

// Folders that would be stored as given and then mean nothing, or not what was meant.
const BAD_GROUP_PATHS = [
  "../..",
  "/",
  "docs/./private",
  "/docs",
  "docs//x",
  "docs\\x",
  ".",
  "a/..",
];

Deno.test("registration: sourcegraph.toml and the admin API apply the same rules", async () => {
  const parent = await tempDir("sg-registration-");
  try {
    const home = await createRepo({ "a.txt": "a\n", ".gitignore": ".sourcegraph/\n" }, {
      parent,
      name: "home",
    });
    const entry = (extra: string) =>
      `[[repositories]]\nname = "org/app"\nsource = "${home.path}"\n${extra}\n`;
    const bad: [string, string][] = [
      [
        'branches = ["main"]\ndefault_branch = "trunk"',
        "default_branch must be a monitored branch",
      ],
      ['branches = ["../escape"]', "sourcegraph.toml is invalid"],
      [
        `branches = ["main"]\npath_groups = [${
          Array.from({ length: 65 }, (_, i) => `{ name = "g${i}", paths = ["p${i}"] }`).join(", ")
        }]`,
        "sourcegraph.toml is invalid",
      ],
    ];
    for (const path of BAD_GROUP_PATHS) {
      bad.push([
        `branches = ["main"]\npath_groups = [{ name = "g", paths = ["docs", ${
          JSON.stringify(path)
        }] }]`,
        `sourcegraph.toml is invalid: repositories.0.path_groups.0.paths.1: ${PATH_GROUP_PATH_RULE}`,
      ]);
    }
    // The service refuses to start on the first and the last (a start costs a process); every
    // entry is refused, with its reason, by the reading of sourcegraph.toml the start runs.
    const store = new SqliteControlStore(join(parent, "control.sqlite3"));
    try {
      for (const [i, [extra, reason]] of bad.entries()) {
        await Deno.writeTextFile(join(home.path, "sourcegraph.toml"), entry(extra));
        const refusal = await applyConfigFile(join(home.path, "sourcegraph.toml"), store).then(
          () => "applied",
          (error: Error) => error.message,
        );
        assertIncludes(refusal, reason, extra);
        if (i !== 0 && i !== bad.length - 1) continue;
        await Deno.remove(join(home.path, ".sourcegraph"), { recursive: true }).catch(() => {});
        assertIncludes(await startFailure(home.path), reason, extra);
      }
      assertEquals(store.repositories(), [], "nothing registered");
    } finally {
      store.close();
    }
    // The admin API's answers are the handler's: it is called in process (no service process).
    await withInProcessService(async ({ handle }) => {
      const call = adminFetch(handle, WORLD_TOKEN);
      const admin = (method: string, path: string, body: unknown, key?: string) =>
        call(method, path, { body, key });
      const create = (policy: unknown, key: string) =>
        admin("POST", "/repos", {
          name: "org/app",
          source: home.path,
          public_read: false,
          policy,
        }, key);
      for (
        const [policy, key] of [
          [{ branches: ["main"], default_branch: "trunk" }, "reg-bad-001"],
          [{ branches: ["../escape"] }, "reg-bad-002"],
        ] as const
      ) {
        const refused = await create(policy, key);
        assertEquals([refused.status, (await refused.json()).code], [400, "INVALID_REQUEST"]);
      }
      for (const [i, path] of BAD_GROUP_PATHS.entries()) {
        const refused = await admin("POST", "/repos", {
          name: "org/app",
          source: home.path,
          public_read: false,
          index_mode: "monorepo",
          path_groups: [{ name: "g", paths: ["docs", path] }],
          policy: { branches: ["main"] },
        }, `reg-group-${i}`);
        assertEquals([refused.status, await refused.json()], [400, {
          code: "INVALID_REQUEST",
          message: `invalid field path_groups.0.paths.1: ${PATH_GROUP_PATH_RULE}`,
        }], path);
      }
      const created = await create({ branches: ["main"] }, "reg-good-01");
      assertEquals(created.status, 202);
      await created.body?.cancel();
      const patched = await admin("PATCH", "/repo?repo=org/app", {
        policy: { branches: ["main"], default_branch: "trunk" },
      });
      assertEquals([patched.status, (await patched.json()).message], [
        400,
        "default_branch must be a monitored branch",
      ]);
      for (const path of BAD_GROUP_PATHS) {
        const refused = await admin("PATCH", "/repo?repo=org/app", {
          path_groups: [{ name: "g", paths: [path] }],
        });
        assertEquals([refused.status, (await refused.json()).message], [
          400,
          `invalid field path_groups.0.paths.0: ${PATH_GROUP_PATH_RULE}`,
        ], path);
      }
      // A trailing slash is the same folder and is accepted.
      const slashed = await admin("PATCH", "/repo?repo=org/app", {
        path_groups: [{ name: "g", paths: ["docs/"] }],
      });
      assertEquals(slashed.status, 200, await slashed.text());
    }, { repositories: [] });
  } finally {
    await removeDir(parent);
  }
});
