/**
 * The control store in one SQLite file (node:sqlite, WAL), the single
 * process's default. Writes return promises only to keep the contract of
 * `ControlStore`; each is one synchronous statement (or a few) on the file.
 *
 * @module
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";
import { openControlDatabase } from "./control_database.ts";
import {
  type ControlStore,
  IDEMPOTENCY_RETENTION_MS,
  type JobRecord,
  type NewRepository,
  type ObservedHead,
  policyColumn,
  policyFromColumn,
  RepositoryNameTaken,
  type RepositoryRecord,
  type RepositoryUpdate,
  type SyncStateRecord,
  type VersionRecord,
} from "./control_store.ts";
import { SqliteOAuthRecords } from "./oauth_records.ts";
import { SqliteSessionRecords } from "./session_records.ts";

export { ControlStoreDamaged } from "./control_database.ts";
export { ControlStoreTooNew } from "./control_migrations.ts";

/** The control store in one SQLite file. */
export class SqliteControlStore implements ControlStore {
  /** Which implementation this is. */
  readonly kind = "sqlite" as const;
  readonly #db: DatabaseSync;
  // Each statement prepared once: a search across sixty repositories looks each one up (its
  // record, heads, retained version), and preparing those statements anew was 12% of its time.
  readonly #statements = new Map<string, StatementSync>();
  /** The web sign-in sessions. */
  readonly sessions: SqliteSessionRecords;
  /** OAuth clients, codes and tokens. */
  readonly oauth: SqliteOAuthRecords;

  /**
   * Opens the store at `path`, creating it when the file does not exist. An
   * existing file that is empty, not a database, or fails SQLite's integrity
   * check is refused (`ControlStoreDamaged`) and left untouched: a damaged
   * store is never silently replaced by an empty one.
   */
  constructor(path: string) {
    this.#db = openControlDatabase(path);
    this.sessions = new SqliteSessionRecords(this.#db);
    this.oauth = new SqliteOAuthRecords(this.#db);
  }

  // The statement of `sql`, prepared on its first use (a small fixed set: this file's texts).
  #prepared(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** All repositories, by name. */
  repositories(): RepositoryRecord[] {
    return (this.#prepared("SELECT * FROM repositories ORDER BY name").all() as unknown as Row[])
      .map(
        toRecord,
      );
  }

  /** One repository by name, or null. */
  repository(name: string): RepositoryRecord | null {
    const row = this.#prepared("SELECT * FROM repositories WHERE name = ?").get(name) as
      | Row
      | undefined;
    return row ? toRecord(row) : null;
  }

  /** Registers a repository; returns it. */
  register(input: NewRepository): Promise<RepositoryRecord> {
    if (this.repository(input.name)) return Promise.reject(new RepositoryNameTaken(input.name));
    // Ids are never reused: mirrors, readers and caches are keyed by them.
    const highest = this.#prepared(
      `SELECT MAX(v) AS v FROM (SELECT MAX(id) AS v FROM repositories
      UNION ALL SELECT value FROM meta WHERE key = 'last_repository_id')`,
    ).get() as { v: number | null };
    const id = (highest.v ?? 0) + 1;
    this.#prepared(
      `INSERT INTO meta(key, value) VALUES ('last_repository_id', ?)
      ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
    ).run(id);
    this.#prepared(
      `INSERT INTO repositories(id, name, source, public_read, policy, path_groups,
      sync_interval_minutes, command_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      input.name,
      input.source,
      input.publicRead ? 1 : 0,
      policyColumn(input.policy),
      JSON.stringify(input.pathGroups),
      input.syncIntervalMinutes,
      input.commandLine ? 1 : 0,
    );
    return Promise.resolve(this.repository(input.name)!);
  }

  /** Observed heads of a repository's branches. */
  heads(repositoryId: number): Map<string, string> {
    const rows = this.#prepared("SELECT branch, commit_id FROM heads WHERE repository_id = ?")
      .all(repositoryId) as { branch: string; commit_id: string }[];
    return new Map(rows.map((row) => [row.branch, row.commit_id]));
  }

  /** Records a branch head and its version. */
  observe(repositoryId: number, head: ObservedHead): Promise<void> {
    const { branch, commit, committerTime } = head;
    const now = Date.now();
    this.#prepared(
      `INSERT INTO heads(repository_id, branch, commit_id, observed_at) VALUES (?, ?, ?, ?)
      ON CONFLICT(repository_id, branch) DO UPDATE SET commit_id = excluded.commit_id, observed_at = excluded.observed_at`,
    )
      .run(repositoryId, branch, commit, now);
    this.#prepared(
      `INSERT INTO versions(repository_id, commit_id, committer_time, observed_at) VALUES (?, ?, ?, ?)
      ON CONFLICT(repository_id, commit_id) DO UPDATE SET observed_at = excluded.observed_at`,
    )
      .run(repositoryId, commit, committerTime, now);
    return Promise.resolve();
  }

  /** Retained versions, newest observation first. */
  versions(repositoryId: number): VersionRecord[] {
    return this.#prepared(
      "SELECT commit_id AS 'commit', committer_time AS committerTime, observed_at AS observedAt FROM versions WHERE repository_id = ? ORDER BY observed_at DESC, commit_id",
    ).all(repositoryId) as unknown as VersionRecord[];
  }

  /** The retained version `commit`, or null. */
  isRetained(repositoryId: number, commit: string): VersionRecord | null {
    return (this.#prepared(
      "SELECT commit_id AS 'commit', committer_time AS committerTime, observed_at AS observedAt FROM versions WHERE repository_id = ? AND commit_id = ?",
    ).get(repositoryId, commit) as unknown as VersionRecord | undefined) ?? null;
  }

  /** Drops versions no longer retained. */
  forget(repositoryId: number, commits: readonly string[]): Promise<void> {
    const statement = this.#prepared(
      "DELETE FROM versions WHERE repository_id = ? AND commit_id = ?",
    );
    for (const commit of commits) statement.run(repositoryId, commit);
    return Promise.resolve();
  }

  /** Records the outcome of a sync. */
  setSyncState(
    repositoryId: number,
    outcome: { state: string; lastError: string | null },
  ): Promise<void> {
    const { state, lastError } = outcome;
    this.#prepared(
      `INSERT INTO sync_state(repository_id, state, last_error, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT(repository_id) DO UPDATE SET state = excluded.state, last_error = excluded.last_error, updated_at = excluded.updated_at`,
    )
      .run(repositoryId, state, lastError, Date.now());
    return Promise.resolve();
  }

  /** The last sync outcome and when it was recorded (ms since the epoch; null: never). */
  syncState(repositoryId: number): SyncStateRecord {
    return (this.#prepared(
      "SELECT state, last_error AS lastError, updated_at AS updatedAt FROM sync_state WHERE repository_id = ?",
    ).get(repositoryId) as
      | { state: string; lastError: string | null; updatedAt: number }
      | undefined) ?? { state: "pending", lastError: null, updatedAt: null };
  }

  /** Updates a repository's mutable fields. */
  update(name: string, changes: RepositoryUpdate): Promise<RepositoryRecord | null> {
    const repo = this.repository(name);
    if (!repo) return Promise.resolve(null);
    const next = { ...repo, ...changes };
    this.#prepared(
      `UPDATE repositories SET source = ?, public_read = ?, disabled = ?, policy = ?, path_groups = ?,
      sync_interval_minutes = ? WHERE id = ?`,
    ).run(
      next.source,
      next.publicRead ? 1 : 0,
      next.disabled ? 1 : 0,
      policyColumn(next.policy),
      JSON.stringify(next.pathGroups),
      next.syncIntervalMinutes,
      repo.id,
    );
    return Promise.resolve(this.repository(name));
  }

  /** Deletes a repository and its bookkeeping. */
  remove(repositoryId: number): Promise<void> {
    for (const table of ["heads", "versions", "sync_state", "jobs"]) {
      this.#prepared(`DELETE FROM ${table} WHERE repository_id = ?`).run(repositoryId);
    }
    this.#prepared("DELETE FROM repositories WHERE id = ?").run(repositoryId);
    return Promise.resolve();
  }

  /** The ids of the repositories registered from the command line. */
  commandLineRepositories(): Promise<number[]> {
    const rows = this.#prepared("SELECT id FROM repositories WHERE command_line = 1 ORDER BY id")
      .all() as { id: number }[];
    return Promise.resolve(rows.map((row) => Number(row.id)));
  }

  /** Stores a personal key's hash. */
  addKey(id: string, key: { keyHash: string; name: string }): Promise<void> {
    const { keyHash, name } = key;
    this.#prepared(
      "INSERT INTO personal_keys(id, key_hash, name, created_at) VALUES (?, ?, ?, ?)",
    )
      .run(id, keyHash, name, Date.now());
    return Promise.resolve();
  }

  /** The id of the personal key with this hash, or null. */
  keyByHash(keyHash: string): string | null {
    const row = this.#prepared("SELECT id FROM personal_keys WHERE key_hash = ?").get(keyHash) as
      | { id: string }
      | undefined;
    return row?.id ?? null;
  }

  /** Whether the personal key `id` exists (was not revoked). */
  hasKey(id: string): boolean {
    return this.#prepared("SELECT 1 FROM personal_keys WHERE id = ?").get(id) !== undefined;
  }

  /** Whether the personal key `id` exists (one process: its file is the store itself). */
  keyExistsNow(id: string): Promise<boolean> {
    return Promise.resolve(this.hasKey(id));
  }

  /** Deletes a personal key; returns whether it existed. */
  removeKey(id: string): Promise<boolean> {
    const { changes } = this.#prepared("DELETE FROM personal_keys WHERE id = ?").run(id);
    return Promise.resolve(Number(changes) > 0);
  }

  /** The stored job of an idempotency key within the retention, or null. */
  job(key: string): Promise<JobRecord | null> {
    const row = this.#prepared(
      `SELECT repository_id AS repositoryId, result, request_hash AS requestHash FROM jobs
      WHERE idempotency_key = ? AND created_at >= ?`,
    ).get(key, Date.now() - IDEMPOTENCY_RETENTION_MS) as JobRecord | undefined;
    return Promise.resolve(row ? { ...row } : null);
  }

  /** Stores an idempotent job's result (and forgets jobs past the retention). */
  saveJob(
    key: string,
    job: { repositoryId: number; result: string; requestHash?: string | null },
  ): Promise<void> {
    const now = Date.now();
    this.#prepared("DELETE FROM jobs WHERE created_at < ?").run(now - IDEMPOTENCY_RETENTION_MS);
    this.#prepared(
      `INSERT OR IGNORE INTO jobs(idempotency_key, repository_id, result, request_hash, created_at)
      VALUES (?, ?, ?, ?, ?)`,
    ).run(key, job.repositoryId, job.result, job.requestHash ?? null, now);
    return Promise.resolve();
  }

  /** Closes the store. */
  close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
    return Promise.resolve();
  }
}

interface Row {
  id: number;
  name: string;
  source: string;
  public_read: number;
  disabled: number;
  policy: string;
  path_groups: string;
  sync_interval_minutes: number;
}

function toRecord(row: Row): RepositoryRecord {
  return {
    id: row.id,
    name: row.name,
    source: row.source,
    publicRead: row.public_read === 1,
    disabled: row.disabled === 1,
    policy: policyFromColumn(row.policy),
    pathGroups: JSON.parse(row.path_groups),
    syncIntervalMinutes: row.sync_interval_minutes,
  };
}
