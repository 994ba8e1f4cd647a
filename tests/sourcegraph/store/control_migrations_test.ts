import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  CONTROL_MIGRATIONS,
  CONTROL_SCHEMA_VERSION,
} from "../../../sourcegraph/store/control_migrations.ts";
import {
  ControlStoreTooNew,
  SqliteControlStore,
} from "../../../sourcegraph/store/sqlite_control_store.ts";
import { assert, assertEquals, assertIncludes, assertThrows } from "../../support/assert.ts";
import { removeDir, tempDir } from "../../support/git_repo.ts";
import { lastLinesTogether } from "../../support/processes.ts";

function userVersion(path: string): number {
  const db = new DatabaseSync(path);
  try {
    return (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
  } finally {
    db.close();
  }
}

function jobColumns(path: string): string[] {
  const db = new DatabaseSync(path);
  try {
    return (db.prepare("PRAGMA table_info(jobs)").all() as { name: string }[]).map((c) => c.name);
  } finally {
    db.close();
  }
}

const REPOSITORY = {
  name: "org/kept",
  source: "/srv/kept",
  publicRead: true,
  policy: { branches: ["main"] },
  pathGroups: [],
  syncIntervalMinutes: 5,
};

Deno.test("control store versions: a new store is at the latest; a store from before versions were recorded is migrated with its rows", async () => {
  const dir = await tempDir("sg-migrate-");
  try {
    const fresh = join(dir, "fresh.sqlite3");
    new SqliteControlStore(fresh).close();
    assertEquals(userVersion(fresh), CONTROL_SCHEMA_VERSION);
    assert(jobColumns(fresh).includes("request_hash"));
    new SqliteControlStore(fresh).close(); // reopening changes nothing
    assertEquals(userVersion(fresh), CONTROL_SCHEMA_VERSION);

    // A store written before versions: version 1's tables and a row, user_version 0.
    const legacy = join(dir, "legacy.sqlite3");
    const db = new DatabaseSync(legacy);
    db.exec(CONTROL_MIGRATIONS[0].sql);
    db.exec(
      `INSERT INTO repositories(name, source, public_read, policy) VALUES ('org/kept', '/srv/kept', 1, '{"branches":["main"]}')`,
    );
    db.close();
    assertEquals([userVersion(legacy), jobColumns(legacy).includes("request_hash")], [0, false]);
    const store = new SqliteControlStore(legacy);
    assertEquals(store.repositories().map((repo) => repo.name), ["org/kept"]);
    await store.close();
    assertEquals([userVersion(legacy), jobColumns(legacy).includes("request_hash")], [
      CONTROL_SCHEMA_VERSION,
      true,
    ]);
  } finally {
    await removeDir(dir);
  }
});

Deno.test("control store versions: a store of a later version is refused with one line and left byte for byte", async () => {
  const dir = await tempDir("sg-migrate-");
  try {
    const path = join(dir, "control.sqlite3");
    const store = new SqliteControlStore(path);
    await store.register(REPOSITORY);
    await store.close();
    const db = new DatabaseSync(path);
    db.exec(`PRAGMA user_version = ${CONTROL_SCHEMA_VERSION + 1}`);
    db.close();
    const before = await Deno.readFile(path);
    const listing = async () =>
      (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
    const files = await listing();
    const error = assertThrows(() => new SqliteControlStore(path), ControlStoreTooNew);
    assertIncludes(error.message, `schema version ${CONTROL_SCHEMA_VERSION + 1}, newer than`);
    assert(!error.message.includes("\n"), "one line");
    assertEquals(await Deno.readFile(path), before);
    assertEquals(await listing(), files, "no journal or WAL file left beside it");
  } finally {
    await removeDir(dir);
  }
});

Deno.test("control store versions: processes that open a new store together migrate it once, all succeed", async () => {
  const dir = await tempDir("sg-migrate-");
  try {
    const path = join(dir, "control.sqlite3");
    const answers = await lastLinesTogether("open_control_store.ts", [path], { count: 4, dir });
    assertEquals(answers, Array(4).fill(String(CONTROL_SCHEMA_VERSION)));
  } finally {
    await removeDir(dir);
  }
});
