/**
 * The control store's schema versions, applied in order at start. The
 * version is SQLite's `user_version`; each migration runs in one write
 * transaction (`BEGIN IMMEDIATE`, which waits for another process doing the
 * same), re-reading the version inside it, so processes that start
 * together migrate once. A store of a later version than this program
 * knows is refused with one line and left as it is. A store from before
 * versions were recorded (version 0 with tables) is recognised by its
 * columns.
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";

/** One schema step. */
export interface Migration {
  version: number;
  /** What it changes (for people reading the list). */
  change: string;
  sql: string;
}

/**
 * The rows a command line registered before the marker existed: public,
 * named \`local/<folder>\` after the last part of an absolute source path
 * (with or without \`.git\`), no path groups. The same condition reads
 * in both dialects (a folder whose name the command line had to change
 * stays unmarked: it is left alone, the safe side).
 */
export const COMMAND_LINE_SHAPE: string = `substr(name, 1, 6) = 'local/' AND public_read = TRUE
        AND substr(source, 1, 1) = '/' AND path_groups = '[]'
        AND (substr(source, length(source) - length(name) + 6) = '/' || substr(name, 7)
          OR substr(source, length(source) - length(name) + 2) = '/' || substr(name, 7) || '.git')`;

/** The OAuth tables, in a form both dialects read (times and counts fit BIGINT and INTEGER). */
export const OAUTH_TABLES_SQL: string = `
      CREATE TABLE oauth_clients(
        client_id TEXT PRIMARY KEY,
        metadata TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX oauth_clients_by_age ON oauth_clients(created_at);
      CREATE TABLE oauth_codes(
        code_hash TEXT PRIMARY KEY,
        grant_json TEXT NOT NULL,
        family_id TEXT NOT NULL,
        used INTEGER NOT NULL DEFAULT 0,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX oauth_codes_by_expiry ON oauth_codes(expires_at);
      CREATE TABLE oauth_tokens(
        token_hash TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        grant_json TEXT NOT NULL,
        family_id TEXT NOT NULL,
        used INTEGER NOT NULL DEFAULT 0,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX oauth_tokens_by_family ON oauth_tokens(family_id);
      CREATE INDEX oauth_tokens_by_expiry ON oauth_tokens(expires_at);
`;

/** Every schema version, oldest first; a new one is appended, never edited. */
export const CONTROL_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    change: "repositories, heads, retained versions, personal keys, jobs, sync state, counters",
    sql: `
  CREATE TABLE IF NOT EXISTS repositories(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL,
    public_read INTEGER NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    policy TEXT NOT NULL,
    path_groups TEXT NOT NULL DEFAULT '[]',
    sync_interval_minutes INTEGER NOT NULL DEFAULT 5
  );
  CREATE TABLE IF NOT EXISTS heads(
    repository_id INTEGER NOT NULL,
    branch TEXT NOT NULL,
    commit_id TEXT NOT NULL,
    observed_at INTEGER NOT NULL,
    PRIMARY KEY (repository_id, branch)
  );
  CREATE TABLE IF NOT EXISTS versions(
    repository_id INTEGER NOT NULL,
    commit_id TEXT NOT NULL,
    committer_time INTEGER,
    observed_at INTEGER NOT NULL,
    PRIMARY KEY (repository_id, commit_id)
  );
  CREATE TABLE IF NOT EXISTS personal_keys(
    id TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS jobs(
    idempotency_key TEXT PRIMARY KEY,
    repository_id INTEGER NOT NULL,
    result TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS sync_state(
    repository_id INTEGER PRIMARY KEY,
    state TEXT NOT NULL,
    last_error TEXT,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
    `,
  },
  {
    version: 2,
    change: "jobs remember a fingerprint of their request (idempotency)",
    sql: "ALTER TABLE jobs ADD COLUMN request_hash TEXT",
  },
  {
    version: 3,
    change: "web sign-in sessions (by the hash of their id), so a sign-in survives a restart",
    sql: `
      CREATE TABLE sessions(
        id_hash TEXT PRIMARY KEY,
        caller_kind TEXT NOT NULL,
        caller_id TEXT,
        csrf TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX sessions_by_expiry ON sessions(expires_at);
    `,
  },
  {
    version: 4,
    change: "fetch credentials sealed in the shared store (PostgreSQL only: the single process " +
      "keeps them as files in its data folder, so this step changes nothing in SQLite)",
    sql: "",
  },
  {
    version: 5,
    change: "replicas (heartbeats), which replica holds which retained versions, placement pins " +
      "(PostgreSQL only: a single process holds everything, so nothing changes in SQLite)",
    sql: "",
  },
  {
    version: 6,
    change: "repositories registered from the service's command line are marked, so a later " +
      "command line that no longer names one unregisters it; existing rows are marked when they " +
      "have exactly the shape a command line registers (public local/<folder> of an absolute " +
      "path ending in that folder, no path groups)",
    sql: `
      ALTER TABLE repositories ADD COLUMN command_line INTEGER NOT NULL DEFAULT 0;
      UPDATE repositories SET command_line = 1
      WHERE ${COMMAND_LINE_SHAPE};
    `,
  },
  {
    version: 7,
    change: "OAuth: registered clients, authorization codes and tokens (by the hash of each " +
      "code and token), so a sign-in through an MCP client works on every replica",
    sql: OAUTH_TABLES_SQL,
  },
  {
    version: 8,
    change: "uploaded SCIP indexes shared by the replicas of a cluster, in pieces, each index " +
      "gone with its retained version (PostgreSQL only: a single process keeps them in its " +
      "data folder, so nothing changes in SQLite)",
    sql: "",
  },
];

/** The version this program writes. */
export const CONTROL_SCHEMA_VERSION: number = CONTROL_MIGRATIONS[CONTROL_MIGRATIONS.length - 1]
  .version;

/** The store was written by a later version of the program; nothing was changed. */
export class ControlStoreTooNew extends Error {
  override readonly name = "ControlStoreTooNew";

  /** `path` at schema `found`. */
  constructor(path: string, found: number) {
    super(
      `the control store ${path} has schema version ${found}, newer than this program's ` +
        `${CONTROL_SCHEMA_VERSION}; nothing was changed. Run the newer version, or restore a ` +
        "backup made with this one",
    );
  }
}

/** Throws {@linkcode ControlStoreTooNew} when `db` is of a later version, before anything is written. */
export function refuseNewerStore(db: DatabaseSync, path: string): void {
  const version = recordedVersion(db);
  if (version > CONTROL_SCHEMA_VERSION) throw new ControlStoreTooNew(path, version);
}

/**
 * Brings `db` to {@linkcode CONTROL_SCHEMA_VERSION}; returns the versions
 * applied (empty when it was current).
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { DatabaseSync } from "node:sqlite";
 * const db = new DatabaseSync(":memory:");
 * const applied = migrateControlDatabase(db, ":memory:"); // every version, for a new file
 * assert.strictEqual(applied.at(-1), CONTROL_SCHEMA_VERSION);
 * assert.deepStrictEqual(migrateControlDatabase(db, ":memory:"), []); // already current
 * db.close();
 * ```
 */
export function migrateControlDatabase(db: DatabaseSync, path: string): number[] {
  const applied: number[] = [];
  for (;;) {
    const version = currentVersion(db);
    if (version > CONTROL_SCHEMA_VERSION) throw new ControlStoreTooNew(path, version);
    if (version === CONTROL_SCHEMA_VERSION && recordedVersion(db) === version) return applied;
    db.exec("BEGIN IMMEDIATE");
    try {
      // Another process may have migrated while this one waited for the lock.
      const locked = currentVersion(db);
      const next = CONTROL_MIGRATIONS.find((migration) => migration.version === locked + 1);
      if (next) {
        db.exec(next.sql);
        applied.push(next.version);
      }
      db.exec(`PRAGMA user_version = ${next?.version ?? locked}`);
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
}

function recordedVersion(db: DatabaseSync): number {
  return (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
}

// user_version, or for a store from before versions were recorded the
// version its tables have (recorded by the next migration step).
function currentVersion(db: DatabaseSync): number {
  const version = recordedVersion(db);
  if (version !== 0) return version;
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
    name: string;
  }[];
  if (!tables.some((table) => table.name === "repositories")) return 0;
  const jobColumns = (db.prepare("PRAGMA table_info(jobs)").all() as { name: string }[])
    .map((column) => column.name);
  return jobColumns.includes("request_hash") ? 2 : 1;
}
