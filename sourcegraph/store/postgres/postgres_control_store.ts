/**
 * The control store in PostgreSQL, shared by replicas. Reads answer from a
 * cache of the tables (`control_cache.ts`) and never wait on the server;
 * every write runs in one transaction that also sends a notification on
 * the `sourcegraph_control` channel naming what changed, and each replica
 * listening there reloads that part. The writer reloads it before its
 * promise resolves, so a replica reads its own writes at once.
 *
 * How stale a cache can be: while the server is reachable, as long as a
 * notification takes to arrive and one reload (milliseconds); besides, the
 * whole cache is reloaded every `refreshMs` (30 s by default) and whenever
 * the listening connection comes back after a loss. While the server is
 * unreachable, reads keep answering from the cache as it was, and writes
 * fail with `DEPENDENCY_UNAVAILABLE`.
 *
 * @module
 */

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
} from "../control_store.ts";
import { ControlCache, type RepositorySnapshot } from "./control_cache.ts";
import {
  CONTROL_CHANNEL,
  type Listener,
  notifyIn,
  openListener,
  openPool,
  type SqlPool,
  sqlState,
  unavailableOnFailure,
} from "./pg_connection.ts";
import { migratePostgres, type SqlConnection } from "./pg_migrations.ts";
import { PostgresOAuthRecords } from "./pg_oauth.ts";
import { PostgresSessions } from "./pg_sessions.ts";
import { type BackoffOptions, ReconnectLoop } from "./reconnect_loop.ts";

/** How often the whole cache is reloaded by default, notifications or not. */
export const DEFAULT_REFRESH_MS = 30_000;

/** Syncs that may hold (or wait for) a lease at once, per replica. */
const LEASE_CONNECTIONS = 8;

/** What the store is opened with. */
export interface PostgresStoreOptions {
  /** Operator log lines (never the URL). */
  log: (line: string) => void;
  /** Full reload interval (default `DEFAULT_REFRESH_MS`). */
  refreshMs?: number;
  /** Most pooled connections (default 4). */
  connections?: number;
  /** The pauses between attempts to bring back the listening connection (defaults: 250 ms to 5 s). */
  reconnect?: BackoffOptions;
}

/** The control store in PostgreSQL. */
export class PostgresControlStore implements ControlStore {
  /** Which implementation this is. */
  readonly kind = "postgres" as const;
  /** The web sign-in sessions. */
  readonly sessions: PostgresSessions;
  /** OAuth clients, codes and tokens. */
  readonly oauth: PostgresOAuthRecords;
  /** The pool, for the other tables of the shared store (sealed credentials, the cluster). */
  readonly pool: SqlPool;
  /** Connections held for a whole sync (its lease), apart so they never starve other writes. */
  readonly leasePool: SqlPool;
  #url: string;
  #cache = new ControlCache();
  #log: (line: string) => void;
  #listener: Listener | null = null;
  #reconnect: ReconnectLoop<Listener>;
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #closed = false;
  #subscribers: ((topic: string) => void)[] = [];

  private constructor(url: string, pool: SqlPool, options: PostgresStoreOptions) {
    this.#url = url;
    this.pool = pool;
    this.leasePool = openPool(url, { max: LEASE_CONNECTIONS, queueForever: true });
    this.#log = options.log;
    this.sessions = new PostgresSessions(pool, { notify: notifyIn });
    this.oauth = new PostgresOAuthRecords(pool);
    this.#reconnect = new ReconnectLoop<Listener>({
      ...options.reconnect,
      what: "the PostgreSQL control store",
      open: () => this.#openListener(),
      // Whatever was notified while the listener was away is reloaded in full.
      ready: () => this.#reloadAll(),
      install: (listener) => {
        const lost = this.#listener;
        this.#listener = listener;
        void lost?.close();
      },
      log: options.log,
      describe,
    });
  }

  /**
   * Connects to `url`, migrates the schema under the migration lock,
   * loads the cache and starts listening; throws (one line) when the
   * server cannot be reached or the schema is newer than this program.
   */
  static async open(url: string, options: PostgresStoreOptions): Promise<PostgresControlStore> {
    const pool = openPool(url, { max: options.connections ?? 4 });
    const store = new PostgresControlStore(url, pool, options);
    try {
      await pool.query("SELECT 1").catch((error) => {
        throw new Error(`cannot reach the PostgreSQL control store: ${describe(error)}`);
      });
      // The migration lock belongs to a session: the whole run on one connection.
      await pool.connection((connection) => migratePostgres(connection));
      store.#listener = await store.#openListener();
      await store.#reloadAll();
    } catch (error) {
      await store.close();
      throw error;
    }
    store.#every(options.refreshMs ?? DEFAULT_REFRESH_MS, () => store.#reloadAll());
    return store;
  }

  /** Reloads one topic (`repository:<id>`, `keys`) from the database now. */
  refresh(topic: string): Promise<void> {
    return unavailableOnFailure(() => this.#reload(topic));
  }

  /** Calls `listener` with the topic of every change notified (after the cache has it). */
  subscribe(listener: (topic: string) => void): void {
    this.#subscribers.push(listener);
  }

  /** All repositories, by name. */
  repositories(): RepositoryRecord[] {
    return this.#cache.repositories();
  }

  /** One repository by name, or null. */
  repository(name: string): RepositoryRecord | null {
    return this.#cache.repository(name);
  }

  /** Observed heads of a repository's branches. */
  heads(repositoryId: number): Map<string, string> {
    return this.#cache.heads(repositoryId);
  }

  /** Retained versions, newest observation first. */
  versions(repositoryId: number): VersionRecord[] {
    return this.#cache.versions(repositoryId);
  }

  /** The retained version `commit`, or null. */
  isRetained(repositoryId: number, commit: string): VersionRecord | null {
    return this.#cache.versions(repositoryId).find((version) => version.commit === commit) ??
      null;
  }

  /** The last sync outcome (state `pending` and no time when there was none). */
  syncState(repositoryId: number): SyncStateRecord {
    return this.#cache.syncState(repositoryId) ??
      { state: "pending", lastError: null, updatedAt: null };
  }

  /** The id of the personal key with this hash, or null. */
  keyByHash(keyHash: string): string | null {
    return this.#cache.keyByHash(keyHash);
  }

  /** Whether the personal key `id` exists (was not revoked). */
  hasKey(id: string): boolean {
    return this.#cache.hasKey(id);
  }

  /** Whether the personal key `id` exists, read from the database (not this replica's copy). */
  keyExistsNow(id: string): Promise<boolean> {
    return unavailableOnFailure(async () =>
      (await this.pool.query("SELECT 1 FROM personal_keys WHERE id = $1", [id])).rows.length > 0
    );
  }

  /** Registers a repository (ids are never reused); `RepositoryNameTaken` for a taken name. */
  async register(input: NewRepository): Promise<RepositoryRecord> {
    let id = 0;
    try {
      await this.#write(() => [`repository:${id}`], async (sql) => {
        // Ids are never reused: mirrors, readers and caches are keyed by them.
        const next = await sql.query(
          `INSERT INTO meta(key, value)
          VALUES ('last_repository_id', (SELECT COALESCE(MAX(id), 0) FROM repositories) + 1)
          ON CONFLICT (key) DO UPDATE
          SET value = GREATEST(meta.value, (SELECT COALESCE(MAX(id), 0) FROM repositories)) + 1
          RETURNING value`,
        );
        id = Number(next.rows[0].value);
        await sql.query(
          `INSERT INTO repositories(id, name, source, public_read, policy, path_groups,
          sync_interval_minutes, command_line) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            id,
            input.name,
            input.source,
            input.publicRead,
            policyColumn(input.policy),
            JSON.stringify(
              input.pathGroups,
            ),
            input.syncIntervalMinutes,
            input.commandLine === true,
          ],
        );
      });
    } catch (error) {
      if (sqlState(error) === "23505") throw new RepositoryNameTaken(input.name);
      throw error;
    }
    // The reload after the commit may have failed (the server went away): the row is known anyway.
    return this.#cache.repository(input.name) ?? { ...input, id, disabled: false };
  }

  /** Records a branch head and its version. */
  async observe(repositoryId: number, head: ObservedHead): Promise<void> {
    const now = Date.now();
    await this.#write(() => [`repository:${repositoryId}`], async (sql) => {
      await sql.query(
        `INSERT INTO heads(repository_id, branch, commit_id, observed_at) VALUES ($1, $2, $3, $4)
        ON CONFLICT (repository_id, branch)
        DO UPDATE SET commit_id = EXCLUDED.commit_id, observed_at = EXCLUDED.observed_at`,
        [repositoryId, head.branch, head.commit, now],
      );
      await sql.query(
        `INSERT INTO versions(repository_id, commit_id, committer_time, observed_at)
        VALUES ($1, $2, $3, $4) ON CONFLICT (repository_id, commit_id)
        DO UPDATE SET observed_at = EXCLUDED.observed_at`,
        [repositoryId, head.commit, head.committerTime, now],
      );
    });
  }

  /** Drops versions no longer retained. */
  async forget(repositoryId: number, commits: readonly string[]): Promise<void> {
    if (commits.length === 0) return;
    await this.#write(() => [`repository:${repositoryId}`], async (sql) => {
      await sql.query(
        "DELETE FROM versions WHERE repository_id = $1 AND commit_id = ANY($2::text[])",
        [repositoryId, [...commits]],
      );
    });
  }

  /** Records the outcome of a sync. */
  async setSyncState(
    repositoryId: number,
    outcome: { state: string; lastError: string | null },
  ): Promise<void> {
    await this.#write(() => [`repository:${repositoryId}`], async (sql) => {
      await sql.query(
        `INSERT INTO sync_state(repository_id, state, last_error, updated_at) VALUES ($1, $2, $3, $4)
        ON CONFLICT (repository_id) DO UPDATE SET state = EXCLUDED.state,
        last_error = EXCLUDED.last_error, updated_at = EXCLUDED.updated_at`,
        [repositoryId, outcome.state, outcome.lastError, Date.now()],
      );
    });
  }

  /** Updates a repository's mutable fields; null when there is no such repository. */
  async update(name: string, changes: RepositoryUpdate): Promise<RepositoryRecord | null> {
    const repo = this.repository(name);
    if (!repo) return null;
    const next = { ...repo, ...changes };
    await this.#write(() => [`repository:${repo.id}`], async (sql) => {
      await sql.query(
        `UPDATE repositories SET source = $1, public_read = $2, disabled = $3, policy = $4,
        path_groups = $5, sync_interval_minutes = $6 WHERE id = $7`,
        [
          next.source,
          next.publicRead,
          next.disabled,
          policyColumn(next.policy),
          JSON.stringify(next.pathGroups),
          next.syncIntervalMinutes,
          repo.id,
        ],
      );
    });
    return this.repository(name);
  }

  /** Deletes a repository and its bookkeeping. */
  async remove(repositoryId: number): Promise<void> {
    await this.#write(() => [`repository:${repositoryId}`], async (sql) => {
      const tables = ["heads", "versions", "sync_state", "jobs", "credentials", "holdings"];
      for (const table of [...tables, "placement_pins"]) {
        await sql.query(`DELETE FROM ${table} WHERE repository_id = $1`, [repositoryId]);
      }
      await sql.query("DELETE FROM repositories WHERE id = $1", [repositoryId]);
    });
  }

  /** The ids of the repositories registered from the command line. */
  async commandLineRepositories(): Promise<number[]> {
    const rows = (await this.pool.query(
      "SELECT id FROM repositories WHERE command_line ORDER BY id",
    )).rows;
    return rows.map((row) => Number(row.id));
  }

  /** Stores a personal key's hash. */
  async addKey(id: string, key: { keyHash: string; name: string }): Promise<void> {
    await this.#write(() => ["keys"], async (sql) => {
      await sql.query(
        "INSERT INTO personal_keys(id, key_hash, name, created_at) VALUES ($1, $2, $3, $4)",
        [id, key.keyHash, key.name, Date.now()],
      );
    });
  }

  /** Deletes a personal key; resolves whether it existed. */
  async removeKey(id: string): Promise<boolean> {
    let removed = false;
    await this.#write(() => ["keys"], async (sql) => {
      const result = await sql.query("DELETE FROM personal_keys WHERE id = $1 RETURNING id", [id]);
      removed = result.rows.length > 0;
    });
    return removed;
  }

  /** The stored job of an idempotency key within the retention, or null. */
  async job(key: string): Promise<JobRecord | null> {
    const result = await unavailableOnFailure(() =>
      this.pool.query(
        `SELECT repository_id AS "repositoryId", result, request_hash AS "requestHash" FROM jobs
        WHERE idempotency_key = $1 AND created_at >= $2`,
        [key, Date.now() - IDEMPOTENCY_RETENTION_MS],
      )
    );
    return (result.rows[0] as unknown as JobRecord | undefined) ?? null;
  }

  /** Stores an idempotent job's result unless the key has one (and forgets jobs past the retention). */
  async saveJob(
    key: string,
    job: { repositoryId: number; result: string; requestHash?: string | null },
  ): Promise<void> {
    const now = Date.now();
    await unavailableOnFailure(() =>
      this.pool.transaction(async (sql) => {
        await sql.query("DELETE FROM jobs WHERE created_at < $1", [now - IDEMPOTENCY_RETENTION_MS]);
        await sql.query(
          `INSERT INTO jobs(idempotency_key, repository_id, result, request_hash, created_at)
          VALUES ($1, $2, $3, $4, $5) ON CONFLICT (idempotency_key) DO NOTHING`,
          [key, job.repositoryId, job.result, job.requestHash ?? null, now],
        );
      })
    );
  }

  /** Stops listening and refreshing, and closes every connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    await this.#reconnect.close();
    await this.#listener?.close();
    await this.pool.end().catch(() => {});
    await this.leasePool.end().catch(() => {});
  }

  // One transaction: `work`, then a notification per topic; then this
  // replica's cache reloads those topics before the write resolves.
  async #write(
    topics: () => string[],
    work: (sql: SqlConnection) => Promise<void>,
  ): Promise<void> {
    await unavailableOnFailure(() =>
      this.pool.transaction(async (sql) => {
        await work(sql);
        for (const topic of topics()) await notifyIn(sql, topic);
      })
    );
    await Promise.all(topics().map((topic) => this.#reload(topic).catch(() => {})));
  }

  async #reload(topic: string): Promise<void> {
    const load = this.#cache.beginLoad();
    if (topic === "keys") {
      this.#cache.applyKeys(await loadKeys(this.pool), load);
    } else if (topic.startsWith("repository:")) {
      const id = Number(topic.slice("repository:".length));
      this.#cache.applyRepository(await loadRepository(this.pool, id), load);
    } else if (topic.startsWith("session")) {
      this.sessions.forget(topic);
    }
    for (const subscriber of this.#subscribers) subscriber(topic);
  }

  async #reloadAll(): Promise<void> {
    if (this.#closed) return;
    const load = this.#cache.beginLoad();
    const [snapshots, keys] = await Promise.all([loadRepositories(this.pool), loadKeys(this.pool)]);
    this.#cache.applyAll(snapshots, load);
    this.#cache.applyKeys(keys, load);
    this.sessions.forget("sessions");
    for (const subscriber of this.#subscribers) subscriber("all");
  }

  // A listener whose loss starts the reconnection loop (one at a time), unless it was replaced.
  #openListener(): Promise<Listener> {
    const listener: Promise<Listener> = openListener(this.#url, {
      channel: CONTROL_CHANNEL,
      onNotification: (topic) => void this.#reload(topic).catch(() => {}),
      onEnd: () => {
        void listener.then((lost) => {
          if (lost === this.#listener && !this.#closed) this.#reconnect.start();
        });
      },
    });
    return listener;
  }

  #after(ms: number, run: () => Promise<void>): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (!this.#closed) void run().catch(() => {});
    }, ms);
    this.#timers.add(timer);
  }

  #every(ms: number, run: () => Promise<void>): void {
    this.#after(ms, async () => {
      await run().catch(() => {});
      this.#every(ms, run);
    });
  }
}

function describe(error: unknown): string {
  const state = sqlState(error);
  const message = (error as Error)?.message ?? String(error);
  // A driver message never carries the URL; a bounded first line of it is safe to log.
  return `${state ? `${state} ` : ""}${message.split("\n")[0].slice(0, 200)}`;
}

async function loadKeys(pool: SqlPool): Promise<Map<string, string>> {
  const rows = (await pool.query("SELECT id, key_hash FROM personal_keys")).rows;
  return new Map(rows.map((row) => [String(row.key_hash), String(row.id)]));
}

async function loadRepository(pool: SqlPool, id: number): Promise<RepositorySnapshot> {
  const [repos, heads, versions, states] = await Promise.all([
    pool.query("SELECT * FROM repositories WHERE id = $1", [id]),
    pool.query("SELECT * FROM heads WHERE repository_id = $1", [id]),
    pool.query("SELECT * FROM versions WHERE repository_id = $1", [id]),
    pool.query("SELECT * FROM sync_state WHERE repository_id = $1", [id]),
  ]);
  return snapshots([id], {
    repos: repos.rows,
    heads: heads.rows,
    versions: versions.rows,
    states: states.rows,
  })[0];
}

async function loadRepositories(pool: SqlPool): Promise<RepositorySnapshot[]> {
  const [repos, heads, versions, states] = await Promise.all([
    pool.query("SELECT * FROM repositories"),
    pool.query("SELECT * FROM heads"),
    pool.query("SELECT * FROM versions"),
    pool.query("SELECT * FROM sync_state"),
  ]);
  const ids = repos.rows.map((row) => Number(row.id));
  return snapshots(ids, {
    repos: repos.rows,
    heads: heads.rows,
    versions: versions.rows,
    states: states.rows,
  });
}

type Rows = Record<string, unknown>[];

// Rows of the four tables, grouped into one snapshot per repository id.
function snapshots(
  ids: number[],
  rows: { repos: Rows; heads: Rows; versions: Rows; states: Rows },
): RepositorySnapshot[] {
  const byId = new Map<number, RepositorySnapshot>(ids.map((id) => [id, {
    id,
    record: null,
    heads: new Map(),
    versions: [],
    syncState: null,
  }]));
  for (const row of rows.repos) byId.get(Number(row.id))!.record = toRecord(row);
  for (const row of rows.heads) {
    byId.get(Number(row.repository_id))?.heads.set(String(row.branch), String(row.commit_id));
  }
  for (const row of rows.versions) {
    byId.get(Number(row.repository_id))?.versions.push({
      commit: String(row.commit_id),
      committerTime: row.committer_time === null ? null : Number(row.committer_time),
      observedAt: Number(row.observed_at),
    });
  }
  for (const row of rows.states) {
    const snapshot = byId.get(Number(row.repository_id));
    if (snapshot) {
      snapshot.syncState = {
        state: String(row.state),
        lastError: row.last_error === null ? null : String(row.last_error),
        updatedAt: Number(row.updated_at),
      };
    }
  }
  for (const snapshot of byId.values()) snapshot.versions.sort(newestFirst);
  return [...byId.values()];
}

// As SQLite orders them: newest observation first, then by commit id.
function newestFirst(a: VersionRecord, b: VersionRecord): number {
  return b.observedAt - a.observedAt || (a.commit < b.commit ? -1 : a.commit > b.commit ? 1 : 0);
}

function toRecord(row: Record<string, unknown>): RepositoryRecord {
  return {
    id: Number(row.id),
    name: String(row.name),
    source: String(row.source),
    publicRead: row.public_read === true,
    disabled: row.disabled === true,
    policy: policyFromColumn(row.policy as Record<string, unknown>),
    pathGroups: row.path_groups as RepositoryRecord["pathGroups"],
    syncIntervalMinutes: Number(row.sync_interval_minutes),
  };
}
