import { join } from "node:path";
import { SqliteControlStore } from "../../../sourcegraph/store/sqlite_control_store.ts";
import { FetchCredentials } from "../../../sourcegraph/store/fetch_credentials.ts";
import { SyncScheduler } from "../../../sourcegraph/git/sync_scheduler.ts";
import { assertEquals } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { unhandledRejections } from "../../support/unhandled_rejections.ts";
import { startService } from "../../support/sourcegraph_service.ts";

Deno.test("local check: a local source is synced once per move of a monitored branch (a failed state is not retried); remote and unreadable sources are never fetched by it", async () => {
  const parent = await tempDir("sg-local-check-");
  try {
    const local = await createRepo({ "a.txt": "one\n" }, { parent, name: "local" });
    const data = join(parent, "data");
    await Deno.mkdir(join(data, "mirrors"), { recursive: true });
    const store = new SqliteControlStore(join(data, "control.sqlite3"));
    const register = (name: string, source: string) =>
      store.register({
        name,
        source,
        publicRead: true,
        policy: { branches: ["main"] },
        pathGroups: [],
        syncIntervalMinutes: 60,
      });
    await register("local/local", local.path);
    await register("org/remote", "https://127.0.0.1:9/remote.git");
    await register("local/gone", join(parent, "gone"));
    const synced: string[] = [];
    const scheduler = new SyncScheduler(store, data, {
      credentials: new FetchCredentials(data),
      log: () => {},
      onSynced: (repo) => synced.push(repo.name),
    });
    try {
      await scheduler.sync(store.repository("local/local")!);
      assertEquals(synced, ["local/local"]);
      assertEquals(await scheduler.syncMovedLocal(), [], "nothing moved: no sync");
      assertEquals(synced, ["local/local"]);
      await local.write({ "a.txt": "two\n" });
      const commit = await local.commit("two");
      assertEquals(await scheduler.syncMovedLocal(), ["local/local"]);
      assertEquals(synced, ["local/local", "local/local"]);
      const id = store.repository("local/local")!.id;
      assertEquals(store.heads(id).get("main"), commit);
      assertEquals(await scheduler.syncMovedLocal(), [], "synced: unmoved again");

      // A commit whose object is gone: the branch moved, the fetch fails, and
      // that state of the source is not fetched again at the next checks.
      await local.write({ "a.txt": "three\n" });
      const broken = await local.commit("three");
      await Deno.remove(join(local.path, ".git", "objects", broken.slice(0, 2), broken.slice(2)));
      assertEquals(await scheduler.syncMovedLocal(), ["local/local"]);
      assertEquals(store.heads(id).get("main"), commit, "the failed sync changed nothing");
      assertEquals(await scheduler.syncMovedLocal(), [], "a failed state is not retried");
      assertEquals(await scheduler.syncMovedLocal(), []);
      assertEquals(synced, ["local/local", "local/local"]);
    } finally {
      await scheduler.abort();
      await store.close();
    }
  } finally {
    await removeDir(parent);
  }
});

Deno.test("local check: the service started as the launcher does serves a commit made in a named repository after its next check", async () => {
  const parent = await tempDir("sg-local-check-");
  try {
    const home = await createRepo({ "h.txt": "home\n", ".gitignore": ".sourcegraph/\n" }, {
      parent,
      name: "home",
    });
    const watched = await createRepo({ "a.txt": "one\n" }, { parent, name: "watched" });
    const service = await startService(home.path, { SOURCEGRAPH_LOCAL_CHECK: "200ms" }, {
      repositories: [watched.path],
    });
    try {
      const read = async (): Promise<string> => {
        const response = await fetch(`${service.url}/sourcegraph/v1/repo/read?repo=local/watched`, {
          method: "POST",
          body: JSON.stringify({ Path: "a.txt" }),
        });
        return (await response.json()).Content;
      };
      assertEquals(await read(), "one\n");
      await watched.write({ "a.txt": "two\n" });
      const commit = await watched.commit("two");
      // Waits for the sync the check starts: its log line names the new commit.
      const line = `synced local/watched: main@${commit.slice(0, 12)}`;
      for (let tries = 0; tries < 600 && !service.log.some((l) => l.includes(line)); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assertEquals(service.log.filter((l) => l.includes(line)).length, 1, service.log.join("\n"));
      assertEquals(await read(), "two\n");
    } finally {
      await service.stop();
    }
  } finally {
    await removeDir(parent);
  }
});

Deno.test("local check: a check still reading a source when the checks stop and the store closes is no unhandled rejection", async () => {
  // The checks run on a timer: a check that fails after its Git call (here: the store it reads
  // next was closed meanwhile, as a stop closes it) must not reject with nobody awaiting it,
  // which ends the service's process.
  const parent = await tempDir("sg-local-check-");
  try {
    const sources: Awaited<ReturnType<typeof createRepo>>[] = [];
    for (let i = 0; i < 3; i++) {
      sources.push(await createRepo({ "a.txt": `${i}\n` }, { parent, name: `local${i}` }));
    }
    const logged: string[] = [];
    // The last checks' Git calls end after the loop.
    const unhandled = await unhandledRejections(async () => {
      for (let i = 0; i < 30; i++) {
        const data = join(parent, `data${i}`);
        await Deno.mkdir(join(data, "mirrors"), { recursive: true });
        const store = new SqliteControlStore(join(data, "control.sqlite3"));
        for (const [k, source] of sources.entries()) {
          await store.register({
            name: `local/local${k}`,
            source: source.path,
            publicRead: true,
            policy: { branches: ["main"] },
            pathGroups: [],
            syncIntervalMinutes: 60,
          });
        }
        const scheduler = new SyncScheduler(store, data, {
          credentials: new FetchCredentials(data),
          log: (line) => logged.push(line),
          localCheckMs: 1,
          onSynced: () => {},
        });
        scheduler.start();
        await new Promise((resolve) => setTimeout(resolve, 1 + (i % 7)));
        // A stop's order: background work first, then the store.
        await scheduler.abort();
        await store.close();
      }
    }, { settleMs: 250 });
    assertEquals(unhandled.map(String), []);
    assertEquals(logged.filter((line) => line.includes("failed")), [], "a stopped check is silent");
  } finally {
    await removeDir(parent);
  }
});
