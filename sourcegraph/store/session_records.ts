/**
 * Web sign-in sessions in the control store, so a sign-in survives a
 * restart. A row is keyed by the SHA-256 of the session id (the cookie's
 * value), never the id itself: a copy of the store signs nobody in.
 * Expired rows are deleted as new sessions start, and the count is capped
 * (the sessions that expire first go first).
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";

/** One stored session. */
export interface SessionRecord {
  /** SHA-256 hex of the session id. */
  idHash: string;
  caller: { kind: "service" } | { kind: "key"; id: string };
  csrf: string;
  expiresAt: number;
}

interface Row {
  id_hash: string;
  caller_kind: string;
  caller_id: string | null;
  csrf: string;
  expires_at: number;
}

/** Where sessions are kept (the control store's sessions table). */
export interface SessionStore {
  /** Stores `record`, first dropping expired rows and, past `max`, the ones that expire first. */
  save(record: SessionRecord, options: { now: number; max: number }): Promise<void>;
  /** The session of `idHash`, or null. */
  find(idHash: string): Promise<SessionRecord | null>;
  /** Ends the session of `idHash`. */
  remove(idHash: string): Promise<void>;
  /** How many sessions are stored. */
  count(): Promise<number>;
}

/** The caller a stored row stands for. */
export function sessionCaller(
  kind: string,
  id: string | null,
): SessionRecord["caller"] {
  return kind === "key" && id !== null ? { kind: "key", id } : { kind: "service" };
}

/** The sessions table of a SQLite control store. */
export class SqliteSessionRecords implements SessionStore {
  #db: DatabaseSync;

  /** The sessions in `db` (a migrated control store). */
  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Stores `record`, first dropping expired rows and, past `max`, the ones that expire first. */
  save(record: SessionRecord, options: { now: number; max: number }): Promise<void> {
    this.#db.prepare("DELETE FROM sessions WHERE expires_at <= ?").run(options.now);
    this.#db.prepare(
      "INSERT OR REPLACE INTO sessions(id_hash, caller_kind, caller_id, csrf, expires_at) VALUES (?, ?, ?, ?, ?)",
    ).run(
      record.idHash,
      record.caller.kind,
      record.caller.kind === "key" ? record.caller.id : null,
      record.csrf,
      record.expiresAt,
    );
    const excess = this.#count() - options.max;
    if (excess > 0) {
      this.#db.prepare(
        "DELETE FROM sessions WHERE id_hash IN (SELECT id_hash FROM sessions ORDER BY expires_at LIMIT ?)",
      ).run(excess);
    }
    return Promise.resolve();
  }

  /** The session of `idHash`, or null. */
  find(idHash: string): Promise<SessionRecord | null> {
    const row = this.#db.prepare("SELECT * FROM sessions WHERE id_hash = ?").get(idHash) as
      | Row
      | undefined;
    if (!row) return Promise.resolve(null);
    const caller = sessionCaller(row.caller_kind, row.caller_id);
    return Promise.resolve({
      idHash: row.id_hash,
      caller,
      csrf: row.csrf,
      expiresAt: row.expires_at,
    });
  }

  /** Ends the session of `idHash`. */
  remove(idHash: string): Promise<void> {
    this.#db.prepare("DELETE FROM sessions WHERE id_hash = ?").run(idHash);
    return Promise.resolve();
  }

  /** How many sessions are stored. */
  count(): Promise<number> {
    return Promise.resolve(this.#count());
  }

  #count(): number {
    return (this.#db.prepare("SELECT count(*) AS n FROM sessions").get() as { n: number }).n;
  }
}
