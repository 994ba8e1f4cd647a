/**
 * The rows that make a cluster of replicas, in PostgreSQL and nowhere else
 * (no second coordination service): one heartbeat row per replica, which
 * retained versions each replica holds of each repository, the placement
 * pins, and the sync lease (a session advisory lock per repository, so a
 * replica that dies mid-sync releases it with its connection). Times of
 * heartbeats are the database server's clock, so replicas on machines
 * whose clocks differ agree on who is alive.
 *
 * @module
 */

import { notifyIn, type SqlPool, unavailableOnFailure } from "./pg_connection.ts";

/** A replica's heartbeat row. */
export interface ReplicaRow {
  name: string;
  internalUrl: string;
  startedAt: number;
  heartbeatAt: number;
}

/** repository id → replica name → the retained commits it holds. */
export type HoldingRows = Map<number, Map<string, string[]>>;

/** The advisory lock namespace of sync leases ("sgsy" as a number). */
export const SYNC_LEASE_SPACE = 0x73677379;

const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** The cluster's tables. */
export class ClusterTables {
  #pool: SqlPool;
  #leases: SqlPool;

  /** Tables in `pool`'s database (migrated by the control store); leases held on `leases`. */
  constructor(pool: SqlPool, leases: SqlPool) {
    this.#pool = pool;
    this.#leases = leases;
  }

  /** Writes `replica`'s heartbeat; notifies `replicas` when it is new (a join). */
  async heartbeat(
    replica: { name: string; internalUrl: string; startedAt: number },
  ): Promise<void> {
    await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        const result = await sql.query(
          `INSERT INTO replicas(name, internal_url, started_at, heartbeat_at)
          VALUES ($1, $2, $3, ${NOW_MS}) ON CONFLICT (name) DO UPDATE SET
          internal_url = EXCLUDED.internal_url, started_at = EXCLUDED.started_at,
          heartbeat_at = EXCLUDED.heartbeat_at
          RETURNING (xmax = 0) AS joined, (SELECT started_at FROM replicas WHERE name = $1) AS was`,
          [replica.name, replica.internalUrl, replica.startedAt],
        );
        const row = result.rows[0];
        if (row.joined === true || Number(row.was) !== replica.startedAt) {
          await notifyIn(sql, "replicas");
        }
      })
    );
  }

  /** The replicas whose last heartbeat is younger than `expiryMs`, by name. */
  async liveReplicas(expiryMs: number): Promise<ReplicaRow[]> {
    const { rows } = await unavailableOnFailure(() =>
      this.#pool.query(
        `SELECT name, internal_url, started_at, heartbeat_at FROM replicas
        WHERE heartbeat_at > ${NOW_MS} - $1 ORDER BY name COLLATE "C"`,
        [expiryMs],
      )
    );
    return rows.map((row) => ({
      name: String(row.name),
      internalUrl: String(row.internal_url),
      startedAt: Number(row.started_at),
      heartbeatAt: Number(row.heartbeat_at),
    }));
  }

  /** Removes `name`'s heartbeat and holdings (a clean leave); the others hear at once. */
  async leave(name: string): Promise<void> {
    await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        const held = await sql.query(
          "DELETE FROM holdings WHERE replica = $1 RETURNING repository_id",
          [name],
        );
        await sql.query("DELETE FROM replicas WHERE name = $1", [name]);
        for (const row of held.rows) await notifyIn(sql, `holding:${row.repository_id}`);
        await notifyIn(sql, "replicas");
      })
    );
  }

  /** Every holding (or one repository's). */
  async holdings(repositoryId?: number): Promise<HoldingRows> {
    const { rows } = await unavailableOnFailure(() =>
      repositoryId === undefined
        ? this.#pool.query("SELECT repository_id, replica, commits FROM holdings")
        : this.#pool.query(
          "SELECT repository_id, replica, commits FROM holdings WHERE repository_id = $1",
          [repositoryId],
        )
    );
    const holdings: HoldingRows = new Map();
    for (const row of rows) {
      const id = Number(row.repository_id);
      if (!holdings.has(id)) holdings.set(id, new Map());
      holdings.get(id)!.set(String(row.replica), (row.commits as unknown[]).map(String));
    }
    return holdings;
  }

  /** Records that `replica` holds `commits` of a repository (empty: it holds none). */
  async hold(repositoryId: number, replica: string, commits: readonly string[]): Promise<void> {
    await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        if (commits.length === 0) {
          await sql.query("DELETE FROM holdings WHERE repository_id = $1 AND replica = $2", [
            repositoryId,
            replica,
          ]);
        } else {
          await sql.query(
            `INSERT INTO holdings(repository_id, replica, commits, updated_at)
            VALUES ($1, $2, $3, ${NOW_MS}) ON CONFLICT (repository_id, replica)
            DO UPDATE SET commits = EXCLUDED.commits, updated_at = EXCLUDED.updated_at`,
            [repositoryId, replica, JSON.stringify(commits)],
          );
        }
        await notifyIn(sql, `holding:${repositoryId}`);
      })
    );
  }

  /** Every placement pin: repository id → replica names. */
  async pins(): Promise<Map<number, string[]>> {
    const { rows } = await unavailableOnFailure(() =>
      this.#pool.query("SELECT repository_id, replicas FROM placement_pins")
    );
    return new Map(
      rows.map((row) => [Number(row.repository_id), (row.replicas as unknown[]).map(String)]),
    );
  }

  /** Pins a repository to `replicas` (null: unpinned). */
  async setPin(repositoryId: number, replicas: readonly string[] | null): Promise<void> {
    await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        if (replicas === null) {
          await sql.query("DELETE FROM placement_pins WHERE repository_id = $1", [repositoryId]);
        } else {
          await sql.query(
            `INSERT INTO placement_pins(repository_id, replicas) VALUES ($1, $2)
            ON CONFLICT (repository_id) DO UPDATE SET replicas = EXCLUDED.replicas`,
            [repositoryId, JSON.stringify(replicas)],
          );
        }
        await notifyIn(sql, "pins");
      })
    );
  }

  /** When a sync of the repository last succeeded, read from the database itself (ms; null: never). */
  async lastSuccessfulSync(repositoryId: number): Promise<number | null> {
    const { rows } = await unavailableOnFailure(() =>
      this.#pool.query(
        "SELECT updated_at FROM sync_state WHERE repository_id = $1 AND state = 'ready'",
        [repositoryId],
      )
    );
    return rows.length === 0 ? null : Number(rows[0].updated_at);
  }

  /**
   * Runs `work` holding the repository's sync lease, waiting (in short
   * pauses, until `signal` aborts) while another replica holds it. The
   * lease is a session advisory lock: a replica that dies releases it.
   */
  async withSyncLease<T>(
    repositoryId: number,
    options: { signal?: AbortSignal; onWait?: () => void },
    work: () => Promise<T>,
  ): Promise<T> {
    // Only the lease's own statements are the database's failures; the work's are its own.
    let failure: { error: unknown } | null = null;
    const result = await unavailableOnFailure(() =>
      this.#leases.connection(async (sql) => {
        let waited = false;
        for (;;) {
          const { rows } = await sql.query("SELECT pg_try_advisory_lock($1, $2) AS locked", [
            SYNC_LEASE_SPACE,
            repositoryId,
          ]);
          if (rows[0].locked === true) break;
          if (!waited) options.onWait?.();
          waited = true;
          options.signal?.throwIfAborted();
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        try {
          return await work();
        } catch (error) {
          failure = { error };
          return undefined;
        } finally {
          // A lost connection has released the lock already.
          await sql.query("SELECT pg_advisory_unlock($1, $2)", [SYNC_LEASE_SPACE, repositoryId])
            .catch(() => {});
        }
      })
    );
    if (failure !== null) throw (failure as { error: unknown }).error;
    return result as T;
  }
}
