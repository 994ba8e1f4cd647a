/**
 * Opening the control store's SQLite file (node:sqlite, WAL): an existing
 * file must be a sound database, the schema is created when missing, and
 * columns added by later versions are added to older stores in place.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";

// The tables, created when missing (a store from an older version gains them).
const SCHEMA = `
  PRAGMA journal_mode = WAL;
  PRAGMA synchronous = NORMAL;
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
`;

/**
 * Opens the database at `path`, creating it when the file does not exist. An
 * existing file that is empty, not a database, or fails SQLite's integrity
 * check is refused (`ControlStoreDamaged`) and left untouched: a damaged
 * store is never silently replaced by an empty one.
 */
export function openControlDatabase(path: string): DatabaseSync {
  let db: DatabaseSync;

  const existing = statOrNull(path);
  if (existing !== null && existing.size === 0) {
    throw new ControlStoreDamaged(path, "is empty (0 bytes)");
  }
  try {
    db = new DatabaseSync(path);
    if (existing !== null) {
      const rows = db.prepare("PRAGMA integrity_check").all() as {
        integrity_check: string;
      }[];
      if (rows.length !== 1 || rows[0].integrity_check !== "ok") {
        throw new ControlStoreDamaged(path, "fails SQLite's integrity check");
      }
    }
  } catch (error) {
    if (error instanceof ControlStoreDamaged) throw error;
    throw new ControlStoreDamaged(path, "cannot be read as a SQLite database");
  }
  db.exec(SCHEMA);
  const jobColumns = (db.prepare("PRAGMA table_info(jobs)").all() as { name: string }[])
    .map((column) => column.name);
  if (!jobColumns.includes("request_hash")) {
    db.exec("ALTER TABLE jobs ADD COLUMN request_hash TEXT");
  }
  return db;
}

/** The control store file exists but cannot be used; nothing was changed. */
export class ControlStoreDamaged extends Error {
  override readonly name = "ControlStoreDamaged";

  /** `path` and what is wrong with it. */
  constructor(path: string, problem: string) {
    super(
      `the control store ${path} ${problem}; nothing was changed. Restore it from a backup ` +
        "(see the README's Backup section), or move it away to start with an empty store",
    );
  }
}

function statOrNull(path: string): { size: number } | null {
  try {
    return Deno.statSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}
