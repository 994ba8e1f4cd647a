// The one-command move from the single process's SQLite store to
// PostgreSQL, run as a process with the narrow flags the README gives.
import { join } from "node:path";
import pg from "pg";
import { FetchCredentials } from "../../../../sourcegraph/store/fetch_credentials.ts";
import { openSharedStores } from "../../../../sourcegraph/store/postgres/shared_stores.ts";
import { SqliteControlStore } from "../../../../sourcegraph/store/sqlite_control_store.ts";
import { assert, assertEquals, assertIncludes } from "../../../support/assert.ts";
import { removeDir, tempDir } from "../../../support/git_repo.ts";
import { postgresBin, sharedPostgres } from "../../../support/postgres_server.ts";
import { spawnDeno } from "../../../support/processes.ts";
import { lockDataFolder } from "../../../../sourcegraph/startup/data_lock.ts";
import { ScipIndexes } from "../../../../sourcegraph/search/scip/scip_store.ts";
import {
  SCIP_PIECE_BYTES,
  ScipIndexRows,
} from "../../../../sourcegraph/store/postgres/pg_scip_indexes.ts";
import { Buffer } from "node:buffer";

const BIN = postgresBin();
const ENTRY = new URL("../../../../sourcegraph/move_to_postgres.ts", import.meta.url).pathname;

// The move as its own process, with the flags the README gives it.
async function move(env: Record<string, string>, dirs: { data: string; key: string }) {
  const child = spawnDeno(ENTRY, [], {
    read: [dirs.data, dirs.key],
    write: [dirs.data],
    net: ["127.0.0.1"],
    env: ["SOURCEGRAPH_*", "PG*"],
    childEnv: env,
  });
  await child.stdin.close();
  const out = await child.output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test({
  name:
    "move to PostgreSQL: registrations, keys, credentials (sealed) and sessions move in one command; a second run into the same database changes nothing",
  ignore: BIN === null,
  fn: async () => {
    const server = await sharedPostgres(BIN!);
    const dir = await tempDir("sg-move-");
    const data = join(dir, "data");
    await Deno.mkdir(data);
    const keyFile = join(dir, "credential.key");
    const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
    await Deno.writeTextFile(keyFile, `${key}\n`, { mode: 0o600 });
    const token = "ghp_" + "m0ve".repeat(8);
    try {
      const sqlite = new SqliteControlStore(join(data, "control.sqlite3"));
      const base = { source: "/srv/x", publicRead: false, pathGroups: [], syncIntervalMinutes: 5 };
      const kept = await sqlite.register({
        ...base,
        name: "org/kept",
        policy: { branches: ["main"] },
      });
      const removed = await sqlite.register({
        ...base,
        name: "org/gone",
        policy: { branches: ["main"] },
      });
      await sqlite.remove(removed.id);
      const other = await sqlite.register({
        ...base,
        name: "org/other",
        publicRead: true,
        policy: { branches: ["main", "dev"], defaultBranch: "dev", count: 4 },
      });
      await sqlite.observe(kept.id, { branch: "main", commit: "a".repeat(40), committerTime: 5 });
      await sqlite.setSyncState(kept.id, { state: "ready", lastError: null });
      await sqlite.addKey("key_1", { keyHash: "h".repeat(64), name: "ci" });
      await sqlite.saveJob("admin:k", { repositoryId: kept.id, result: "{}", requestHash: "f" });
      await sqlite.sessions.save({
        idHash: "s".repeat(64),
        caller: { kind: "key", id: "key_1" },
        csrf: "c",
        expiresAt: Date.now() + 60_000,
      }, { now: Date.now(), max: 10 });
      await sqlite.oauth.saveClient({
        clientId: "client-1",
        clientName: "Editor",
        redirectUris: ["http://127.0.0.1:9/cb"],
        createdAt: 1,
      }, { max: 10 });
      const grant = {
        clientId: "client-1",
        identity: { kind: "service" as const },
        scopes: ["read"],
      };
      await sqlite.oauth.saveTokens([{
        hash: "t".repeat(64),
        kind: "refresh",
        grant: { ...grant, resource: "http://127.0.0.1:8787/sourcegraph/mcp" },
        familyId: "family-1",
        expiresAt: Date.now() + 60_000,
        used: false,
      }], { now: Date.now(), keep: 10, accessTtlMs: 1, refreshTtlMs: 60_000 });
      await sqlite.close();
      // An uploaded SCIP index of the retained version (bigger than one piece) moves; one of a
      // commit no longer retained stays behind.
      const scip = new ScipIndexes(data);
      const header = (commit: string) =>
        JSON.stringify({ tool: "scip-typescript", version: "0.4.0", commit });
      const scipText = `${header("a".repeat(40))}\n${"x".repeat(SCIP_PIECE_BYTES + 10)}\n`;
      scip.putText(kept.id, { commit: "a".repeat(40), text: scipText });
      scip.putText(kept.id, { commit: "b".repeat(40), text: `${header("b".repeat(40))}\n{}\n` });
      await new FetchCredentials(data).set(kept.id, { kind: "https", username: "bot", token });

      const url = await server.createDatabase("moved");
      const env = {
        SOURCEGRAPH_DATA: data,
        SOURCEGRAPH_DATABASE_URL: url,
        SOURCEGRAPH_CREDENTIAL_KEY_FILE: keyFile,
      };
      const first = await move(env, { data, key: keyFile });
      assertEquals(first.code, 0, first.stderr);
      assertIncludes(
        first.stdout,
        "moved 2 repositories (1 retained versions), 1 personal keys, 1 credentials",
      );
      assertIncludes(first.stdout, "1 OAuth clients and 1 SCIP indexes into PostgreSQL");

      const shared = await openSharedStores(url, {
        keyFile,
        dataDir: join(dir, "replica"),
        log: () => {},
      });
      try {
        const { store, credentials } = shared;
        assertEquals(store.repositories().map((repo) => [repo.id, repo.name]), [
          [kept.id, "org/kept"],
          [other.id, "org/other"],
        ]);
        assertEquals(store.repository("org/other")?.policy, {
          branches: ["main", "dev"],
          defaultBranch: "dev",
          count: 4,
        });
        assertEquals(store.heads(kept.id).get("main"), "a".repeat(40));
        assertEquals(store.syncState(kept.id).state, "ready");
        assertEquals(store.keyByHash("h".repeat(64)), "key_1");
        assertEquals((await store.job("admin:k"))?.requestHash, "f");
        assertEquals((await store.sessions.find("s".repeat(64)))?.csrf, "c");
        assertEquals(credentials.kind(kept.id), "https");
        assertEquals((await store.oauth.client("client-1"))?.redirectUris, [
          "http://127.0.0.1:9/cb",
        ]);
        assertEquals((await store.oauth.token("t".repeat(64)))?.familyId, "family-1");
        const rows = new ScipIndexRows(store.pool);
        const indexes = await rows.list();
        assertEquals(indexes.map((index) => [index.repositoryId, index.commit]), [
          [kept.id, "a".repeat(40)],
        ]);
        assertEquals(indexes[0].digest, scip.digest(kept.id, "a".repeat(40)));
        const pieces: Uint8Array[] = [];
        assert(await rows.read(indexes[0], (bytes) => pieces.push(bytes)));
        assertEquals(pieces.length, 2, "stored in pieces of at most a MiB");
        assertEquals(Buffer.concat(pieces).toString("utf8"), scipText);
        const args = await credentials.gitArgs(kept.id, "https://code.example/org/kept.git");
        assertEquals(args.length, 2);
        assertEquals(
          (await store.register({ ...base, name: "org/new", policy: { branches: ["main"] } })).id,
          removed.id + 2,
          "ids are never reused: the counter moved too",
        );
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        const dump = JSON.stringify((await client.query("SELECT * FROM credentials")).rows);
        await client.end();
        assert(!dump.includes(token), "the token is sealed");
      } finally {
        await shared.store.close();
      }

      // A service holding the data folder is named and refused; nothing is copied.
      const holder = lockDataFolder(data);
      assert(holder.kind === "held");
      holder.lock.recordAddress("127.0.0.1", 8787);
      try {
        const busyUrl = await server.createDatabase("busy");
        const busy = await move({ ...env, SOURCEGRAPH_DATABASE_URL: busyUrl }, {
          data,
          key: keyFile,
        });
        assertEquals([busy.code, busy.stdout], [1, ""], busy.stderr);
        assertIncludes(
          busy.stderr,
          `is in use by another service (PID ${Deno.pid}, listening on 127.0.0.1:8787); stop it first`,
        );
      } finally {
        holder.lock.release();
      }

      const again = await move(env, { data, key: keyFile });
      assertEquals(again.code, 1);
      assertIncludes(again.stderr, "already holds registrations or keys; nothing was copied");
      assert(!again.stderr.includes(url), "the URL is never printed");
      const nowhere = await move({ ...env, SOURCEGRAPH_DATA: join(dir, "none") }, {
        data: join(dir, "none"),
        key: keyFile,
      });
      assertEquals(nowhere.code, 1);
      assertIncludes(nowhere.stderr, "there is no control store at");
    } finally {
      await removeDir(dir);
    }
  },
});
