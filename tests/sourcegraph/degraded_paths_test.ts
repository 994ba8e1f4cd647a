import { join } from "node:path";
import { SqliteControlStore } from "../../sourcegraph/store/sqlite_control_store.ts";
import { FetchCredentials } from "../../sourcegraph/store/fetch_credentials.ts";
import { SyncScheduler } from "../../sourcegraph/git/sync_scheduler.ts";
import { assert, assertEquals, assertIncludes } from "../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../support/git_repo.ts";
import {
  diagnosticCodes,
  ENABLED,
  fixtureWith,
  withPluginService,
} from "../support/plugin_service.ts";
import {
  adminFetch,
  connectInProcess,
  inProcessFetch,
  registerDocsMonorepo,
  withInProcessService,
} from "../support/in_process_service.ts";
import { texts } from "../support/tool_calls.ts";

const TOKEN = "d".repeat(40);

Deno.test("plugins: a sandbox that cannot start costs only the enhancement; the start logs one warning", () =>
  withPluginService({
    files: {
      "fixture.sourcegraph.wasm": fixtureWith("fixture", ENABLED),
      "top.md": "one\ntwo\n",
    },
    // No deno on PATH, and this Deno executable is not in --allow-run.
    env: { PATH: "/usr/bin:/bin" },
    process: true, // the start-up warning
  }, async ({ call, log }) => {
    const warnings = log.filter((line) => line.includes("PLUGIN_SANDBOX_UNAVAILABLE"));
    assertEquals(warnings.length, 1, log.join("\n"));
    for (const args of [{}, { plugins: [{ name: "fixture" }] }]) {
      const blocks = await call("read", { path: "top.md", ...args });
      assertIncludes(blocks[0], "1: one\n2: two");
      assertEquals(diagnosticCodes(blocks), ["PLUGIN_SANDBOX_UNAVAILABLE"]);
    }
    const many = await call("read_many", { files: [{ path: "top.md" }, { path: "top.md" }] });
    assertIncludes(many[0], "1: one");
    assertIncludes(many[1], "1: one");
  }));

const MANY_HITS = Array.from({ length: 12_000 }, (_, i) => `hit ${i}`).join("\n") + "\n";

Deno.test("search: a monorepo reports its path groups as coverage; the match cap inside one file is reported as truncation", () =>
  withInProcessService(async ({ handle, parent }) => {
    const mono = await createRepo({ "docs/a.md": "hit docs\n", "src/b.ts": "hit src\n" }, {
      parent,
      name: "mono",
    });
    const fetchPath = inProcessFetch(handle);
    const client = await connectInProcess(handle, { token: TOKEN });
    try {
      const full = texts(
        await client.callTool({
          name: "search",
          arguments: { repo: "local/home", pattern: "hit", fixed_strings: true },
        }),
      )[0];
      assertIncludes(full, 'Coverage: "full"');
      assertIncludes(full, "Truncated: true");
      assertIncludes(full, "MatchCount: 10000");
      const admin = adminFetch(handle, TOKEN);
      await registerDocsMonorepo(admin, { source: mono.path, key: "cover-0001" });
      const scoped = texts(
        await client.callTool({
          name: "search",
          arguments: { repo: "org/mono", pattern: "hit" },
        }),
      )[0];
      assertIncludes(scoped, 'Coverage: "path_groups"; Paths: ["docs"]');
      assertIncludes(scoped, "Truncated: false");
      assert(!scoped.includes("src/b.ts"), scoped);
      const api = await (await fetchPath(`/sourcegraph/api/search?repo=org/mono`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ Pattern: "hit" }),
      })).json();
      assertEquals(api.Meta.Coverage, { Mode: "path_groups", Paths: ["docs"] });
    } finally {
      await client.close();
    }
  }, {
    repositories: [{ name: "local/home", publicRead: true, files: { "big.txt": MANY_HITS } }],
    settings: { serviceToken: TOKEN },
  }));

Deno.test("sync: each repository is synced on its own interval", async () => {
  const parent = await tempDir("sg-interval-");
  try {
    const fast = await createRepo({ "f.txt": "f\n" }, { parent, name: "fast" });
    const slow = await createRepo({ "s.txt": "s\n" }, { parent, name: "slow" });
    const data = join(parent, "data");
    await Deno.mkdir(join(data, "mirrors"), { recursive: true });
    const store = new SqliteControlStore(join(data, "control.sqlite3"));
    const register = (name: string, source: string, minutes: number) =>
      store.register({
        name,
        source,
        publicRead: true,
        policy: { branches: ["main"] },
        pathGroups: [],
        syncIntervalMinutes: minutes,
      });
    await register("org/fast", fast.path, 1);
    await register("org/slow", slow.path, 30);
    const scheduler = new SyncScheduler(store, data, {
      credentials: new FetchCredentials(data),
      log: () => {},
    });
    const start = Date.now();
    assertEquals(await scheduler.syncDue(start), ["org/fast", "org/slow"]);
    assertEquals(await scheduler.syncDue(start + 30_000), []);
    assertEquals(await scheduler.syncDue(start + 61_000), ["org/fast"]);
    assertEquals(await scheduler.syncDue(start + 31 * 60_000), ["org/fast", "org/slow"]);
    await store.close();
  } finally {
    await removeDir(parent);
  }
});
