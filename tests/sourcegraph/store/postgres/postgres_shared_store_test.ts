// Two replicas' stores on one PostgreSQL database: changes reach the other
// replica's cache through notifications, reads keep answering while the
// server is down, writes fail with a code, and both recover on their own.
// One server serves every case (each has a database of its own in it).
import { join } from "node:path";
import pg from "pg";
import { SourcegraphError } from "../../../../sourcegraph/errors.ts";
import type { NewRepository } from "../../../../sourcegraph/store/control_store.ts";
import { PostgresControlStore } from "../../../../sourcegraph/store/postgres/postgres_control_store.ts";
import {
  openSharedStores,
  type SharedStores,
} from "../../../../sourcegraph/store/postgres/shared_stores.ts";
import { assert, assertEquals, assertIncludes } from "../../../support/assert.ts";
import { eventually } from "../../../support/cluster_harness.ts";
import { removeDir, tempDir } from "../../../support/git_repo.ts";
import {
  postgresBin,
  type PostgresServer,
  startPostgres,
} from "../../../support/postgres_server.ts";

const BIN = postgresBin();

const REPOSITORY: NewRepository = {
  name: "org/shared",
  source: "/srv/shared",
  publicRead: false,
  policy: { branches: ["main"] },
  pathGroups: [],
  syncIntervalMinutes: 5,
};

async function writeKey(dir: string, name: string): Promise<string> {
  const path = join(dir, name);
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  await Deno.writeTextFile(path, btoa(String.fromCharCode(...bytes)) + "\n", { mode: 0o600 });
  return path;
}

// The file's server (started by the test, stopped after its last case).
let shared: PostgresServer | null = null;

// Two stores ("replicas") on one new database of the file's server, closed afterwards.
async function withTwoStores(
  database: string,
  fn: (at: {
    one: PostgresControlStore;
    two: PostgresControlStore;
    server: PostgresServer;
    url: string;
    logs: string[];
  }) => Promise<void>,
): Promise<void> {
  const server = shared!;
  const url = await server.createDatabase(database);
  const logs: string[] = [];
  const open = () => PostgresControlStore.open(url, { log: (line) => logs.push(line) });
  const [one, two] = await Promise.all([open(), open()]);
  try {
    await fn({ one, two, server, url, logs });
  } finally {
    await one.close();
    await two.close();
  }
}

const writes: Deno.TestStepDefinition = {
  name:
    "PostgreSQL store: a write on one replica reaches the other's cache; sessions and keys end everywhere",
  ignore: BIN === null,
  fn: () =>
    withTwoStores("replicas", async ({ one, two, url }) => {
      const repo = await one.register(REPOSITORY);
      assertEquals(one.repository("org/shared")?.id, repo.id, "the writer reads its write at once");
      await eventually(() => two.repository("org/shared") !== null, "registration on replica 2");
      await one.observe(repo.id, { branch: "main", commit: "e".repeat(40), committerTime: 1 });
      await eventually(() => two.isRetained(repo.id, "e".repeat(40)) !== null, "version");
      await two.update("org/shared", { publicRead: true });
      await eventually(() => one.repository("org/shared")?.publicRead === true, "update");

      await one.addKey("key_a", { keyHash: "ha", name: "a" });
      await eventually(() => two.keyByHash("ha") === "key_a", "key on replica 2");
      await two.sessions.save(
        {
          idHash: "sx",
          caller: { kind: "key", id: "key_a" },
          csrf: "c",
          expiresAt: Date.now() + 1e6,
        },
        { now: Date.now(), max: 100 },
      );
      assertEquals((await one.sessions.find("sx"))?.csrf, "c", "a session works on any replica");
      await two.sessions.remove("sx");
      await eventually(async () => (await one.sessions.find("sx")) === null, "session ended");
      await one.removeKey("key_a");
      await eventually(() => !two.hasKey("key_a"), "revocation on replica 2");

      // A key whose change notice has not reached a replica yet (written here without one):
      // that replica's copy lacks it, the store itself has it.
      const direct = new pg.Client({ connectionString: url });
      await direct.connect();
      try {
        await direct.query(
          "INSERT INTO personal_keys(id, key_hash, name, created_at) VALUES ($1, $2, $3, $4)",
          ["key_b", "hb", "b", Date.now()],
        );
      } finally {
        await direct.end();
      }
      assertEquals(two.hasKey("key_b"), false, "no notice: the copy is behind");
      assertEquals(await two.keyExistsNow("key_b"), true, "the database has the key");
      assertEquals(await two.keyExistsNow("key_a"), false, "a revoked key is gone there too");

      await two.remove(repo.id);
      await eventually(() => one.repository("org/shared") === null, "removal on replica 1");
      assertEquals(one.versions(repo.id), []);
    }),
};

const outage: Deno.TestStepDefinition = {
  name:
    "PostgreSQL store: with the server stopped, reads answer from the cache and writes fail with DEPENDENCY_UNAVAILABLE; both replicas recover without a restart",
  ignore: BIN === null,
  fn: () =>
    withTwoStores("outage", async ({ one, two, server, url, logs }) => {
      const repo = await one.register(REPOSITORY);
      await one.addKey("key_b", { keyHash: "hb", name: "b" });
      await eventually(() => two.hasKey("key_b"), "key on replica 2");
      await server.halt();
      assertEquals(two.repository("org/shared")?.id, repo.id, "reads keep working");
      assertEquals(two.keyByHash("hb"), "key_b");
      const failed = await one.setSyncState(repo.id, { state: "ready", lastError: null }).then(
        () => null,
        (error) => error,
      );
      assert(failed instanceof SourcegraphError, String(failed));
      assertEquals(failed.code, "DEPENDENCY_UNAVAILABLE");
      assert(!failed.message.includes(url) && !failed.message.includes("127.0.0.1"));
      const job = await one.job("admin:x").then(() => null, (error) => error);
      assertEquals((job as SourcegraphError).code, "DEPENDENCY_UNAVAILABLE");

      await server.start();
      // Writes work again at once; the other replica's listener comes back and catches up.
      await eventually(
        () => two.register({ ...REPOSITORY, name: "org/after" }).then(() => true, () => false),
        "a write after the restart",
      );
      await eventually(() => one.repository("org/after") !== null, "replica 1 catches up");
      assertIncludes(logs.join("\n"), "unreachable; serving from the cache");
      // The new listener may hear the write's notice while the reconnection still reloads the
      // cache, so the catch-up can show before the reconnection's line is logged.
      await eventually(() => logs.join("\n").includes("reachable again"), "reachable again logged");
      assert(!logs.join("\n").includes(url), "the URL (with its password) is never logged");
    }),
};

const sealed: Deno.TestStepDefinition = {
  name:
    "PostgreSQL store: fetch credentials are sealed in the database, opened only with the key, written to the fetching replica's files, and removed everywhere",
  ignore: BIN === null,
  fn: async () => {
    const url = await shared!.createDatabase("sealed");
    const dir = await tempDir("sg-sealed-");
    const keyFile = await writeKey(dir, "key");
    const open = (data: string, key = keyFile) =>
      openSharedStores(url, { keyFile: key, dataDir: join(dir, data), log: () => {} });
    const token = "ghp_" + "s3cret".repeat(6);
    const opened: SharedStores[] = [];
    try {
      const one = await open("one");
      opened.push(one);
      const two = await open("two");
      opened.push(two);
      const repo = await one.store.register(REPOSITORY);
      await one.credentials.set(repo.id, { kind: "https", username: "bot", token });
      assertEquals(one.credentials.kind(repo.id), "https");
      await eventually(() => two.credentials.kind(repo.id) === "https", "kind on replica 2");

      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const dump = JSON.stringify((await client.query("SELECT * FROM credentials")).rows);
      const keyText = (await Deno.readTextFile(keyFile)).trim();
      assert(!dump.includes(token) && !dump.includes("s3cret"), "no secret in the database");
      assert(!dump.includes(keyText), "no key in the database");
      // The sealed value belongs to its repository: moved to another row it does not open.
      await client.query("UPDATE credentials SET repository_id = 99");
      const moved = await two.credentials.gitArgs(99, "https://code.example/org/r.git").then(
        () => null,
        (error) => error,
      );
      assertEquals((moved as { code?: string }).code, "CREDENTIAL_UNREADABLE");
      await client.query("UPDATE credentials SET repository_id = $1", [repo.id]);
      await client.end();

      const args = await two.credentials.gitArgs(repo.id, "https://code.example/org/r.git");
      assert(args.length === 2 && !args.join(" ").includes(token), "the secret is in a file only");
      const file = join(dir, "two", "credentials", String(repo.id), "https.credential");
      assertIncludes(await Deno.readTextFile(file), `password=${token}`);
      assertEquals((await Deno.stat(file)).mode! & 0o777, 0o600);

      // Another key cannot open it.
      const otherKey = await writeKey(dir, "other");
      const three = await open("three", otherKey);
      const wrong = await three.credentials.gitArgs(repo.id, "https://code.example/org/r.git")
        .then(() => null, (error) => error);
      assertEquals((wrong as { code?: string }).code, "CREDENTIAL_UNREADABLE");
      await three.store.close();

      assertEquals(await one.credentials.remove(repo.id), true);
      await eventually(
        async () => !(await Deno.stat(file).then(() => true, () => false)),
        "replica 2's file removed",
      );
      assertEquals(two.credentials.kind(repo.id), null);
      assertEquals(await two.credentials.gitArgs(repo.id, "https://code.example/org/r.git"), []);

      // Without a usable key file the shared stores do not open.
      const missing = await open("four", join(dir, "absent")).then(() => null, (error) => error);
      assertIncludes(String(missing), "credential key file");
    } finally {
      for (const stores of opened) await stores.store.close();
      await removeDir(dir);
    }
  },
};

Deno.test({
  name: "PostgreSQL store: two replicas' stores over one server, case by case",
  ignore: BIN === null,
  fn: async (t) => {
    shared = await startPostgres(BIN!);
    try {
      for (const step of [writes, outage, sealed]) await t.step(step);
    } finally {
      await shared.stop();
      shared = null;
    }
  },
});
