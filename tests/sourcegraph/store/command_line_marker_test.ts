import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { CONTROL_MIGRATIONS } from "../../../sourcegraph/store/control_migrations.ts";
import { SqliteControlStore } from "../../../sourcegraph/store/sqlite_control_store.ts";
import { PostgresControlStore } from "../../../sourcegraph/store/postgres/postgres_control_store.ts";
import { PG_MIGRATIONS } from "../../../sourcegraph/store/postgres/pg_migrations.ts";
import type { ControlStore } from "../../../sourcegraph/store/control_store.ts";
import { assertEquals } from "../../support/assert.ts";
import { removeDir, tempDir } from "../../support/git_repo.ts";
import { postgresBin, startPostgres } from "../../support/postgres_server.ts";

const BIN = postgresBin();

// Rows a store of version 5 may hold: [name, source, public, path groups, marked after the move].
const ROWS: [string, string, boolean, string, boolean][] = [
  ["local/kept", "/home/me/kept", true, "[]", true],
  ["local/mirror", "/srv/mirror.git", true, "[]", true],
  ["local/ends", "/srv/xends", true, "[]", false],
  ["local/other", "/srv/different", true, "[]", false],
  ["local/private", "/srv/private", false, "[]", false],
  ["local/grouped", "/srv/grouped", true, '[{"name":"g","paths":["a"]}]', false],
  ["local/remote", "https://example.org/remote", true, "[]", false],
  ["org/admin", "/srv/admin", true, "[]", false],
];

const MARKED = ROWS.filter((row) => row[4]).map((row) => row[0]).sort();

async function markedNames(store: ControlStore): Promise<string[]> {
  const ids = new Set(await store.commandLineRepositories());
  return store.repositories().filter((repo) => ids.has(repo.id)).map((repo) => repo.name).sort();
}

const NEW = {
  source: "/srv/new",
  publicRead: true,
  policy: { branches: ["main"] },
  pathGroups: [],
  syncIntervalMinutes: 5,
};

Deno.test("command-line marker (SQLite): the move to version 6 marks exactly the rows a command line registered; new registrations say whether they came from it", async () => {
  const dir = await tempDir("sg-marker-");
  try {
    const path = join(dir, "control.sqlite3");
    const db = new DatabaseSync(path);
    for (const migration of CONTROL_MIGRATIONS.slice(0, 5)) db.exec(migration.sql);
    db.exec("PRAGMA user_version = 5");
    for (const [name, source, publicRead, groups] of ROWS) {
      db.prepare(
        "INSERT INTO repositories(name, source, public_read, policy, path_groups) VALUES (?, ?, ?, ?, ?)",
      ).run(name, source, publicRead ? 1 : 0, '{"branches":["main"]}', groups);
    }
    db.close();
    const store = new SqliteControlStore(path);
    try {
      assertEquals(await markedNames(store), MARKED);
      await store.register({ ...NEW, name: "local/new", commandLine: true });
      await store.register({ ...NEW, name: "org/new" });
      assertEquals(await markedNames(store), [...MARKED, "local/new"].sort());
      await store.remove(store.repository("local/new")!.id);
      assertEquals(await markedNames(store), MARKED);
    } finally {
      await store.close();
    }
  } finally {
    await removeDir(dir);
  }
});

Deno.test({
  name:
    "command-line marker (PostgreSQL): the move to version 6 marks exactly the rows a command line registered; new registrations say whether they came from it",
  ignore: BIN === null,
  fn: async () => {
    const server = await startPostgres(BIN!);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      await client.query(
        "CREATE TABLE sourcegraph_schema(id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)",
      );
      for (const migration of PG_MIGRATIONS.slice(0, 5)) await client.query(migration.sql);
      await client.query("INSERT INTO sourcegraph_schema(id, version) VALUES (1, 5)");
      let id = 0;
      for (const [name, source, publicRead, groups] of ROWS) {
        await client.query(
          "INSERT INTO repositories(id, name, source, public_read, policy, path_groups) VALUES ($1, $2, $3, $4, $5, $6)",
          [++id, name, source, publicRead, '{"branches":["main"]}', groups],
        );
      }
      const store = await PostgresControlStore.open(server.url, { log: () => {} });
      try {
        assertEquals(await markedNames(store), MARKED);
        await store.register({ ...NEW, name: "local/new", commandLine: true });
        await store.register({ ...NEW, name: "org/new" });
        assertEquals(await markedNames(store), [...MARKED, "local/new"].sort());
      } finally {
        await store.close();
      }
    } finally {
      await client.end().catch(() => {});
      await server.stop();
    }
  },
});
