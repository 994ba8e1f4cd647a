/**
 * Web sign-in sessions in PostgreSQL, so a sign-in works on every replica
 * and survives restarts. As in SQLite, a row is keyed by the SHA-256 of the
 * session id. Found sessions are cached (at most `MAX_CACHED`, the oldest
 * dropped first), so pages keep working from the cache while the server
 * is unreachable; ending a session notifies every replica to drop it.
 *
 * @module
 */

import { sessionCaller, type SessionRecord, type SessionStore } from "../session_records.ts";
import type { SqlConnection } from "./pg_migrations.ts";
import { type SqlPool, unavailableOnFailure } from "./pg_connection.ts";
import { RecentMap } from "../../../shared/recent_map.ts";

const MAX_CACHED = 10_000;

/** The sessions table of the PostgreSQL store. */
export class PostgresSessions implements SessionStore {
  #pool: SqlPool;
  #notify: (sql: SqlConnection, topic: string) => Promise<void>;
  #cache = new RecentMap<string, SessionRecord>(MAX_CACHED);

  /** Sessions in `pool`'s database; `notify` sends a change inside a transaction. */
  constructor(
    pool: SqlPool,
    options: { notify: (sql: SqlConnection, topic: string) => Promise<void> },
  ) {
    this.#pool = pool;
    this.#notify = options.notify;
  }

  /** Stores `record`, first dropping expired rows and, past `max`, the ones that expire first. */
  async save(record: SessionRecord, options: { now: number; max: number }): Promise<void> {
    await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        await sql.query("DELETE FROM sessions WHERE expires_at <= $1", [options.now]);
        await sql.query(
          `INSERT INTO sessions(id_hash, caller_kind, caller_id, csrf, expires_at)
        VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id_hash) DO UPDATE SET
        caller_kind = EXCLUDED.caller_kind, caller_id = EXCLUDED.caller_id,
        csrf = EXCLUDED.csrf, expires_at = EXCLUDED.expires_at`,
          [
            record.idHash,
            record.caller.kind,
            record.caller.kind === "key" ? record.caller.id : null,
            record.csrf,
            record.expiresAt,
          ],
        );
        const dropped = await sql.query(
          `DELETE FROM sessions WHERE id_hash IN (SELECT id_hash FROM sessions
        ORDER BY expires_at DESC, id_hash DESC OFFSET $1) RETURNING id_hash`,
          [options.max],
        );
        // Another replica may have cached a session the cap just ended.
        if (dropped.rows.length > 0) await this.#notify(sql, "sessions");
      })
    );
    this.#remember(record);
  }

  /** The session of `idHash`, or null. */
  async find(idHash: string): Promise<SessionRecord | null> {
    const cached = this.#cache.get(idHash);
    if (cached) return cached;
    const { rows } = await unavailableOnFailure(() =>
      this.#pool.query("SELECT * FROM sessions WHERE id_hash = $1", [idHash])
    );
    if (rows.length === 0) return null;
    const row = rows[0];
    const record: SessionRecord = {
      idHash: String(row.id_hash),
      caller: sessionCaller(String(row.caller_kind), row.caller_id as string | null),
      csrf: String(row.csrf),
      expiresAt: Number(row.expires_at),
    };
    this.#remember(record);
    return record;
  }

  /** Ends the session of `idHash` on every replica. */
  async remove(idHash: string): Promise<void> {
    this.#cache.delete(idHash);
    await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        await sql.query("DELETE FROM sessions WHERE id_hash = $1", [idHash]);
        await this.#notify(sql, `session:${idHash}`);
      })
    );
  }

  /** How many sessions are stored. */
  async count(): Promise<number> {
    return Number((await this.#pool.query("SELECT count(*) AS n FROM sessions")).rows[0].n);
  }

  /** Drops cached sessions: `session:<hash>` one, `sessions` all. */
  forget(topic: string): void {
    if (topic === "sessions") this.#cache.clear();
    else if (topic.startsWith("session:")) this.#cache.delete(topic.slice("session:".length));
  }

  #remember(record: SessionRecord): void {
    this.#cache.set(record.idHash, record);
  }
}
