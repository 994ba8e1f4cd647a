/**
 * The control store's schema in PostgreSQL, by the same version numbers as
 * the SQLite store (`../control_migrations.ts`): each version's change in
 * PostgreSQL's dialect, applied in order at start. Replicas that start
 * together migrate once: every run holds one session-level advisory lock
 * (`pg_advisory_lock`) while it reads the version and applies what is
 * missing, each step in its own transaction. A database of a later version
 * than this program knows is refused with one line and left as it is.
 *
 * @module
 */

import {
  COMMAND_LINE_SHAPE,
  CONTROL_MIGRATIONS,
  CONTROL_SCHEMA_VERSION,
  type Migration,
} from "../control_migrations.ts";

/** What the migrations need of a PostgreSQL connection (a `pg` client). */
export interface SqlConnection {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** The advisory lock key every replica migrates under ("sgschema" as a number). */
export const MIGRATION_LOCK_KEY = 0x7367736368656d61n;

/**
 * Every schema version in PostgreSQL, oldest first: the SQLite store's
 * versions and changes, each in PostgreSQL's dialect (wider integers for
 * times and ids, booleans, JSONB).
 */
export const PG_MIGRATIONS: readonly Migration[] = [
  {
    ...CONTROL_MIGRATIONS[0],
    sql: `
      CREATE TABLE repositories(
        id BIGINT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        source TEXT NOT NULL,
        public_read BOOLEAN NOT NULL,
        disabled BOOLEAN NOT NULL DEFAULT FALSE,
        policy JSONB NOT NULL,
        path_groups JSONB NOT NULL DEFAULT '[]',
        sync_interval_minutes INTEGER NOT NULL DEFAULT 5
      );
      CREATE TABLE heads(
        repository_id BIGINT NOT NULL,
        branch TEXT NOT NULL,
        commit_id TEXT NOT NULL,
        observed_at BIGINT NOT NULL,
        PRIMARY KEY (repository_id, branch)
      );
      CREATE TABLE versions(
        repository_id BIGINT NOT NULL,
        commit_id TEXT NOT NULL,
        committer_time BIGINT,
        observed_at BIGINT NOT NULL,
        PRIMARY KEY (repository_id, commit_id)
      );
      CREATE TABLE personal_keys(
        id TEXT PRIMARY KEY,
        key_hash TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE jobs(
        idempotency_key TEXT PRIMARY KEY,
        repository_id BIGINT NOT NULL,
        result TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE TABLE sync_state(
        repository_id BIGINT PRIMARY KEY,
        state TEXT NOT NULL,
        last_error TEXT,
        updated_at BIGINT NOT NULL
      );
      CREATE TABLE meta(key TEXT PRIMARY KEY, value BIGINT NOT NULL);
    `,
  },
  CONTROL_MIGRATIONS[1], // the same statement in both dialects
  {
    ...CONTROL_MIGRATIONS[2],
    sql: `
      CREATE TABLE sessions(
        id_hash TEXT PRIMARY KEY,
        caller_kind TEXT NOT NULL,
        caller_id TEXT,
        csrf TEXT NOT NULL,
        expires_at BIGINT NOT NULL
      );
      CREATE INDEX sessions_by_expiry ON sessions(expires_at);
    `,
  },
  {
    ...CONTROL_MIGRATIONS[3],
    sql: `
      CREATE TABLE credentials(
        repository_id BIGINT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('https', 'ssh')),
        sealed TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      );
    `,
  },
  {
    ...CONTROL_MIGRATIONS[4],
    sql: `
      CREATE TABLE replicas(
        name TEXT PRIMARY KEY,
        internal_url TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        heartbeat_at BIGINT NOT NULL
      );
      CREATE TABLE holdings(
        repository_id BIGINT NOT NULL,
        replica TEXT NOT NULL,
        commits JSONB NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (repository_id, replica)
      );
      CREATE TABLE placement_pins(
        repository_id BIGINT PRIMARY KEY,
        replicas JSONB NOT NULL
      );
    `,
  },
  {
    ...CONTROL_MIGRATIONS[5],
    sql: `
      ALTER TABLE repositories ADD COLUMN command_line BOOLEAN NOT NULL DEFAULT FALSE;
      UPDATE repositories SET command_line = TRUE WHERE ${COMMAND_LINE_SHAPE};
    `,
  },
  CONTROL_MIGRATIONS[6], // the same statements in both dialects
  {
    ...CONTROL_MIGRATIONS[7],
    sql: `
      CREATE TABLE scip_indexes(
        repository_id BIGINT NOT NULL,
        commit_id TEXT NOT NULL,
        digest TEXT NOT NULL,
        size BIGINT NOT NULL,
        uploaded_at BIGINT NOT NULL,
        PRIMARY KEY (repository_id, commit_id),
        FOREIGN KEY (repository_id, commit_id) REFERENCES versions(repository_id, commit_id)
          ON DELETE CASCADE
      );
      CREATE TABLE scip_index_pieces(
        repository_id BIGINT NOT NULL,
        commit_id TEXT NOT NULL,
        piece INTEGER NOT NULL,
        bytes BYTEA NOT NULL,
        PRIMARY KEY (repository_id, commit_id, piece),
        FOREIGN KEY (repository_id, commit_id) REFERENCES scip_indexes(repository_id, commit_id)
          ON DELETE CASCADE
      );
    `,
  },
];

/** The database was written by a later version of the program; nothing was changed. */
export class PostgresStoreTooNew extends Error {
  override readonly name = "PostgresStoreTooNew";

  /** At schema `found`. */
  constructor(found: number) {
    super(
      `the PostgreSQL control store has schema version ${found}, newer than this program's ` +
        `${CONTROL_SCHEMA_VERSION}; nothing was changed. Run the newer version on every replica`,
    );
  }
}

/**
 * Brings the database behind `connection` to the program's schema version
 * under the migration lock; returns the versions this call applied (empty
 * when another replica had done it).
 *
 * @example
 * ```ts ignore
 * // Not run with the tests: it needs a PostgreSQL server.
 * const client = new pg.Client({ connectionString: url });
 * await client.connect();
 * const applied = await migratePostgres(client); // [1, 2] on a new database, [] after
 * ```
 */
export async function migratePostgres(connection: SqlConnection): Promise<number[]> {
  await connection.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY.toString()]);
  try {
    const version = await recordedVersion(connection);
    if (version > CONTROL_SCHEMA_VERSION) throw new PostgresStoreTooNew(version);
    const applied: number[] = [];
    for (const migration of PG_MIGRATIONS) {
      if (migration.version <= version) continue;
      await connection.query("BEGIN");
      try {
        await connection.query(migration.sql);
        await connection.query(
          "INSERT INTO sourcegraph_schema(id, version) VALUES (1, $1) " +
            "ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version",
          [migration.version],
        );
        await connection.query("COMMIT");
      } catch (error) {
        await connection.query("ROLLBACK");
        throw error;
      }
      applied.push(migration.version);
    }
    return applied;
  } finally {
    await connection.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY.toString()]);
  }
}

// The recorded version (0 for a new database; its version table is made then).
async function recordedVersion(connection: SqlConnection): Promise<number> {
  const exists = await connection.query(
    "SELECT to_regclass('sourcegraph_schema') IS NOT NULL AS present",
  );
  if (exists.rows[0].present !== true) {
    await connection.query(
      "CREATE TABLE sourcegraph_schema(id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)",
    );
    return 0;
  }
  const rows = (await connection.query("SELECT version FROM sourcegraph_schema WHERE id = 1")).rows;
  return rows.length === 0 ? 0 : Number(rows[0].version);
}
