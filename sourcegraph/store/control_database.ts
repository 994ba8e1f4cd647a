/**
 * Opening the control store's SQLite file (node:sqlite, WAL): an existing
 * file must be a sound database; then its schema is brought to this
 * program's version by the migrations of `control_migrations.ts`.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { createFileOnce } from "../../shared/safe_fs.ts";
import { migrateControlDatabase, refuseNewerStore } from "./control_migrations.ts";

/**
 * Opens the database at `path`, creating it when the file does not exist. An
 * existing file that is empty, not a database, or fails SQLite's integrity
 * check is refused (`ControlStoreDamaged`) and left untouched: a damaged
 * store is never silently replaced by an empty one.
 */
export function openControlDatabase(path: string): DatabaseSync {
  // A new store is made whole beside its path and linked into place, so a
  // process that opens it meanwhile never sees a file another one has only
  // just created (0 bytes would read as a damaged store).
  if (statOrNull(path) === null) createStoreFile(path);
  const existing = statOrNull(path);
  if (existing !== null && existing.size === 0) {
    throw new ControlStoreDamaged(path, "is empty (0 bytes)");
  }
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path);
    // Before anything reads: another process may hold the write lock (migrating, checkpointing).
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
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
  try {
    refuseNewerStore(db, path);
    prepare(db);
    migrateControlDatabase(db, path);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

function prepare(db: DatabaseSync): void {
  db.exec(
    `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;`,
  );
}

// How long a statement waits for another process's lock before SQLITE_BUSY.
const BUSY_TIMEOUT_MS = 10_000;

// Builds a migrated store in a private file beside `path` and links it into place.
function createStoreFile(path: string): void {
  createFileOnce(path, (temp) => {
    const db = new DatabaseSync(temp);
    try {
      prepare(db);
      migrateControlDatabase(db, temp);
    } finally {
      db.close(); // checkpoints the WAL into the file
    }
  });
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
