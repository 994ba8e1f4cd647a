import { join } from "node:path";
import { assertEquals, assertIncludes } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { startFailure, startService } from "../../support/sourcegraph_service.ts";

const TOKEN = "r".repeat(40);

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
    for (const [extra, reason] of bad) {
      await Deno.writeTextFile(join(home.path, "sourcegraph.toml"), entry(extra));
      await Deno.remove(join(home.path, ".sourcegraph"), { recursive: true }).catch(() => {});
      assertIncludes(await startFailure(home.path), reason, extra);
    }
    await Deno.remove(join(home.path, "sourcegraph.toml"));
    await Deno.remove(join(home.path, ".sourcegraph"), { recursive: true }).catch(() => {});
    const service = await startService(home.path, { SOURCEGRAPH_API_TOKEN: TOKEN });
    try {
      const admin = (method: string, path: string, body: unknown, key?: string) =>
        fetch(`${service.url}/sourcegraph/api/admin/v1${path}`, {
          method,
          headers: {
            authorization: `Bearer ${TOKEN}`,
            ...(key ? { "idempotency-key": key } : {}),
          },
          body: JSON.stringify(body),
        });
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
    } finally {
      await service.stop();
    }
  } finally {
    await removeDir(parent);
  }
});
