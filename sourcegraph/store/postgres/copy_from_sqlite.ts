/**
 * Moving a single process's control store into PostgreSQL: every row of the
 * SQLite file (registrations with their ids, heads, retained versions, sync
 * outcomes, personal key hashes, idempotency records, sessions, the id
 * counter) and every fetch credential of the data folder, sealed with the
 * credential key, in one transaction. The target must be empty (no
 * registration, no key): nothing is merged or overwritten. OAuth clients,
 * grants and tokens move too, and the uploaded SCIP indexes of retained
 * versions (they cannot be made again from the repositories). Mirrors and
 * search indexes are not copied; the replicas that own each repository
 * fill them.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { FetchCredentials } from "../fetch_credentials.ts";
import { sealCredential } from "../credential_cipher.ts";
import { loadCredentialKey } from "../credential_cipher.ts";
import { SqliteControlStore } from "../sqlite_control_store.ts";
import type { SqlConnection } from "./pg_migrations.ts";
import { PostgresControlStore } from "./postgres_control_store.ts";
import { insertScipIndex, type SharedScip } from "./pg_scip_indexes.ts";

/** How many rows of each kind were copied. */
export interface CopySummary {
  repositories: number;
  versions: number;
  keys: number;
  credentials: number;
  jobs: number;
  sessions: number;
  oauthClients: number;
  scipIndexes: number;
}

/** An uploaded SCIP index of the single process, to be moved with its version. */
export interface MovedScip extends SharedScip {
  /** Its stored bytes, in pieces of at most `SCIP_PIECE_BYTES`. */
  pieces(): Iterable<Uint8Array>;
}

/** The target already holds registrations or keys; nothing was copied. */
export class TargetNotEmpty extends Error {
  override readonly name = "TargetNotEmpty";
  constructor() {
    super(
      "the PostgreSQL store already holds registrations or keys; nothing was copied. " +
        "Move into a new, empty database",
    );
  }
}

// Each copied table: its columns, and how a SQLite value becomes a PostgreSQL one.
const TABLES: { name: string; columns: string[]; booleans?: string[] }[] = [
  {
    name: "repositories",
    columns: [
      "id",
      "name",
      "source",
      "public_read",
      "disabled",
      "policy",
      "path_groups",
      "sync_interval_minutes",
      "command_line",
    ],
    booleans: ["public_read", "disabled", "command_line"],
  },
  { name: "heads", columns: ["repository_id", "branch", "commit_id", "observed_at"] },
  { name: "versions", columns: ["repository_id", "commit_id", "committer_time", "observed_at"] },
  { name: "sync_state", columns: ["repository_id", "state", "last_error", "updated_at"] },
  { name: "personal_keys", columns: ["id", "key_hash", "name", "created_at"] },
  {
    name: "jobs",
    columns: ["idempotency_key", "repository_id", "result", "request_hash", "created_at"],
  },
  { name: "sessions", columns: ["id_hash", "caller_kind", "caller_id", "csrf", "expires_at"] },
  { name: "meta", columns: ["key", "value"] },
  { name: "oauth_clients", columns: ["client_id", "metadata", "created_at"] },
  {
    name: "oauth_codes",
    columns: ["code_hash", "grant_json", "family_id", "used", "expires_at"],
  },
  {
    name: "oauth_tokens",
    columns: ["token_hash", "kind", "grant_json", "family_id", "used", "expires_at"],
  },
];

/**
 * Copies the SQLite store at `source.path` (migrated to this program's
 * schema first) and the credentials below `source.dataDir` into the
 * empty PostgreSQL store at `target.url`, with `options.scip`'s indexes
 * of retained versions (others are left behind).
 */
export async function copyFromSqlite(
  source: { path: string; dataDir: string },
  target: { url: string; keyFile: string },
  options: { scip?: Iterable<MovedScip> } = {},
): Promise<CopySummary> {
  const key = await loadCredentialKey(target.keyFile);
  await new SqliteControlStore(source.path).close(); // refuses a damaged or newer store
  const db = new DatabaseSync(source.path, { readOnly: true });
  const store = await PostgresControlStore.open(target.url, {
    log: () => {},
    refreshMs: 3_600_000,
  });
  try {
    const rows = new Map(
      TABLES.map((table) => [table.name, db.prepare(`SELECT * FROM ${table.name}`).all()]),
    );
    const files = new FetchCredentials(source.dataDir);
    const sealed: [number, string, string][] = [];
    for (const repo of rows.get("repositories")!) {
      const credential = files.read(Number(repo.id));
      if (credential === null) continue;
      const value = await sealCredential(key, JSON.stringify(credential), {
        repositoryId: Number(repo.id),
      });
      sealed.push([Number(repo.id), credential.kind, value]);
    }
    let scipIndexes = 0;
    await store.pool.transaction(async (sql) => {
      await refuseNonEmpty(sql);
      for (const table of TABLES) await insertRows(sql, table, rows.get(table.name)!);
      for (const [id, kind, value] of sealed) {
        await sql.query(
          "INSERT INTO credentials(repository_id, kind, sealed, updated_at) VALUES ($1, $2, $3, $4)",
          [id, kind, value, Date.now()],
        );
      }
      scipIndexes = await insertRetained(sql, rows.get("versions")!, options.scip ?? []);
      await sql.query("SELECT pg_notify('sourcegraph_control', 'all')");
    });
    const count = (name: string) => rows.get(name)!.length;
    return {
      repositories: count("repositories"),
      versions: count("versions"),
      keys: count("personal_keys"),
      credentials: sealed.length,
      jobs: count("jobs"),
      sessions: count("sessions"),
      oauthClients: count("oauth_clients"),
      scipIndexes,
    };
  } finally {
    db.close();
    await store.close();
  }
}

// The indexes whose version moved; how many.
async function insertRetained(
  sql: SqlConnection,
  versions: Record<string, unknown>[],
  indexes: Iterable<MovedScip>,
): Promise<number> {
  const retained = new Set(versions.map((row) => `${row.repository_id}/${row.commit_id}`));
  let moved = 0;
  for (const index of indexes) {
    if (!retained.has(`${index.repositoryId}/${index.commit}`)) continue;
    await insertScipIndex(sql, index, index.pieces());
    moved++;
  }
  return moved;
}

async function refuseNonEmpty(sql: SqlConnection): Promise<void> {
  const { rows } = await sql.query(
    "SELECT (SELECT count(*) FROM repositories) + (SELECT count(*) FROM personal_keys) AS n",
  );
  if (Number(rows[0].n) > 0) throw new TargetNotEmpty();
}

async function insertRows(
  sql: SqlConnection,
  table: { name: string; columns: string[]; booleans?: string[] },
  rows: Record<string, unknown>[],
): Promise<void> {
  const placeholders = table.columns.map((_, i) => `$${i + 1}`).join(", ");
  const statement =
    `INSERT INTO ${table.name}(${table.columns.join(", ")}) VALUES (${placeholders})` +
    (table.name === "meta" ? " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value" : "");
  for (const row of rows) {
    await sql.query(
      statement,
      table.columns.map((column) =>
        table.booleans?.includes(column) ? Number(row[column]) === 1 : row[column] ?? null
      ),
    );
  }
}
