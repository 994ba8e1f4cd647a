/**
 * Uploaded SCIP indexes shared by the replicas of a cluster, in
 * PostgreSQL: per repository and retained commit, the derived form's
 * digest (SHA-256), size and time, and its bytes in pieces of at most a
 * MiB. An index is written in one transaction (its earlier pieces replaced
 * with it) and notified as `scip:<repository id>`, so a replica reads the
 * whole of one index or none of it. Each index belongs to a row of
 * `versions`: when the commit is no longer retained, or the repository is
 * deleted, the index goes with it (`ON DELETE CASCADE`); one whose version
 * went before it was written is refused (`REVISION_NOT_ELIGIBLE`).
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { SourcegraphError } from "../../errors.ts";
import { notifyIn, type SqlPool, sqlState, unavailableOnFailure } from "./pg_connection.ts";
import type { SqlConnection } from "./pg_migrations.ts";

/** Most bytes of one piece of a stored index. */
export const SCIP_PIECE_BYTES = 1 << 20;

/** One shared index, as listed. */
export interface SharedScip {
  repositoryId: number;
  commit: string;
  digest: string;
  size: number;
}

/** The shared SCIP indexes of a cluster. */
export class ScipIndexRows {
  #pool: SqlPool;

  /** Indexes in `pool`'s database (migrated by the control store). */
  constructor(pool: SqlPool) {
    this.#pool = pool;
  }

  /**
   * Stores the index of a retained commit, replacing an earlier one: its
   * pieces (each at most `SCIP_PIECE_BYTES`) in order, all or nothing.
   */
  async put(
    index: SharedScip,
    pieces: () => Iterable<Uint8Array>,
  ): Promise<void> {
    const key = [index.repositoryId, index.commit];
    try {
      await unavailableOnFailure(() =>
        this.#pool.transaction(async (sql) => {
          await sql.query(
            "DELETE FROM scip_indexes WHERE repository_id = $1 AND commit_id = $2",
            key,
          );
          await insertScipIndex(sql, index, pieces());
          await notifyIn(sql, `scip:${index.repositoryId}`);
        })
      );
    } catch (error) {
      // The commit stopped being retained while the index was checked.
      if (sqlState(error) !== "23503") throw error;
      throw new SourcegraphError("REVISION_NOT_ELIGIBLE", "the commit is not a retained version");
    }
  }

  /** Every shared index. */
  async list(): Promise<SharedScip[]> {
    const { rows } = await unavailableOnFailure(() =>
      this.#pool.query("SELECT repository_id, commit_id, digest, size FROM scip_indexes")
    );
    return rows.map((row) => ({
      repositoryId: Number(row.repository_id),
      commit: String(row.commit_id),
      digest: String(row.digest),
      size: Number(row.size),
    }));
  }

  /**
   * Hands the pieces of `index` to `write` in order, as of one snapshot;
   * false when the stored index is no longer that one (replaced or gone).
   */
  async read(index: SharedScip, write: (bytes: Uint8Array) => void): Promise<boolean> {
    const key = [index.repositoryId, index.commit];
    return await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        await sql.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
        const { rows } = await sql.query(
          `SELECT digest, (SELECT count(*) FROM scip_index_pieces p
            WHERE p.repository_id = i.repository_id AND p.commit_id = i.commit_id) AS pieces
          FROM scip_indexes i WHERE repository_id = $1 AND commit_id = $2`,
          key,
        );
        if (rows.length === 0 || rows[0].digest !== index.digest) return false;
        for (let piece = 0; piece < Number(rows[0].pieces); piece++) {
          const found = await sql.query(
            `SELECT bytes FROM scip_index_pieces
            WHERE repository_id = $1 AND commit_id = $2 AND piece = $3`,
            [...key, piece],
          );
          write(found.rows[0].bytes as Uint8Array);
        }
        return true;
      })
    );
  }
}

/**
 * Inserts one index and its pieces in the transaction of `sql` (none of
 * that repository and commit may be stored yet); its version must be a
 * row of `versions`.
 */
export async function insertScipIndex(
  sql: SqlConnection,
  index: SharedScip,
  pieces: Iterable<Uint8Array>,
): Promise<void> {
  const key = [index.repositoryId, index.commit];
  await sql.query(
    `INSERT INTO scip_indexes(repository_id, commit_id, digest, size, uploaded_at)
    VALUES ($1, $2, $3, $4, $5)`,
    [...key, index.digest, index.size, Date.now()],
  );
  let piece = 0;
  for (const bytes of pieces) {
    await sql.query(
      `INSERT INTO scip_index_pieces(repository_id, commit_id, piece, bytes)
      VALUES ($1, $2, $3, $4)`,
      [...key, piece++, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
    );
  }
}
