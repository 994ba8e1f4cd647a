/**
 * OAuth state in PostgreSQL (`../oauth_records.ts`), so a client signed in
 * through one replica is served by every replica. Nothing is cached: a
 * revoked token or a used code must be refused at once everywhere, and
 * each lookup is one indexed row.
 *
 * @module
 */

import {
  clientFromRow,
  clientMetadataColumn,
  issuedOrder,
  type OAuthClientRecord,
  type OAuthSecretRecord,
  type OAuthStore,
  type OAuthTokenRecord,
  secretFromRow,
  type TokenPruning,
} from "../oauth_records.ts";
import { type SqlPool, unavailableOnFailure } from "./pg_connection.ts";

/** The OAuth tables of the PostgreSQL store. */
export class PostgresOAuthRecords implements OAuthStore {
  #pool: SqlPool;

  /** The OAuth state in `pool`'s database. */
  constructor(pool: SqlPool) {
    this.#pool = pool;
  }

  /** Registers `client`, first dropping the oldest past `max`. */
  async saveClient(client: OAuthClientRecord, options: { max: number }): Promise<void> {
    await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        await sql.query(
          "INSERT INTO oauth_clients(client_id, metadata, created_at) VALUES ($1, $2, $3)",
          [client.clientId, clientMetadataColumn(client), client.createdAt],
        );
        await sql.query(
          `DELETE FROM oauth_clients WHERE client_id IN (SELECT client_id FROM oauth_clients
          ORDER BY created_at DESC, client_id DESC OFFSET $1)`,
          [options.max],
        );
      })
    );
  }

  /** The client `clientId`, or null. */
  async client(clientId: string): Promise<OAuthClientRecord | null> {
    const { rows } = await unavailableOnFailure(() =>
      this.#pool.query("SELECT * FROM oauth_clients WHERE client_id = $1", [clientId])
    );
    return rows.length === 0
      ? null
      : clientFromRow(rows[0] as unknown as Parameters<typeof clientFromRow>[0]);
  }

  /** Stores a new code, first dropping expired codes and tokens. */
  async saveCode(code: OAuthSecretRecord, options: { now: number }): Promise<void> {
    await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        await sql.query("DELETE FROM oauth_codes WHERE expires_at <= $1", [options.now]);
        await sql.query("DELETE FROM oauth_tokens WHERE expires_at <= $1", [options.now]);
        await sql.query(
          `INSERT INTO oauth_codes(code_hash, grant_json, family_id, used, expires_at)
          VALUES ($1, $2, $3, 0, $4)`,
          [code.hash, JSON.stringify(code.grant), code.familyId, code.expiresAt],
        );
      })
    );
  }

  /** Marks the code used; whether this call was the first to. */
  async takeCode(hash: string): Promise<{ code: OAuthSecretRecord; first: boolean } | null> {
    return await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        const changed = await sql.query(
          "UPDATE oauth_codes SET used = 1 WHERE code_hash = $1 AND used = 0 RETURNING code_hash",
          [hash],
        );
        const { rows } = await sql.query("SELECT * FROM oauth_codes WHERE code_hash = $1", [hash]);
        if (rows.length === 0) return null;
        const code = secretFromRow(hash, rows[0] as unknown as Parameters<typeof secretFromRow>[1]);
        return { code, first: changed.rows.length === 1 };
      })
    );
  }

  /** Stores new tokens of one family, dropping expired ones and the family's oldest past `keep`. */
  async saveTokens(tokens: OAuthTokenRecord[], options: TokenPruning): Promise<void> {
    await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        await sql.query("DELETE FROM oauth_tokens WHERE expires_at <= $1", [options.now]);
        for (const token of tokens) {
          await sql.query(
            `INSERT INTO oauth_tokens(token_hash, kind, grant_json, family_id, used, expires_at)
            VALUES ($1, $2, $3, $4, 0, $5)`,
            [token.hash, token.kind, JSON.stringify(token.grant), token.familyId, token.expiresAt],
          );
        }
        const family = tokens[0]?.familyId;
        if (family === undefined) return;
        await sql.query(
          `DELETE FROM oauth_tokens WHERE token_hash IN (SELECT token_hash FROM oauth_tokens
          WHERE family_id = $1 ORDER BY ${issuedOrder("$2::bigint", "$3::bigint")} OFFSET $4)`,
          [family, options.refreshTtlMs, options.accessTtlMs, options.keep],
        );
      })
    );
  }

  /** The token `hash`, or null. */
  async token(hash: string): Promise<OAuthTokenRecord | null> {
    const { rows } = await unavailableOnFailure(() =>
      this.#pool.query("SELECT * FROM oauth_tokens WHERE token_hash = $1", [hash])
    );
    if (rows.length === 0) return null;
    const row = rows[0] as unknown as Parameters<typeof secretFromRow>[1] & { kind: string };
    return { ...secretFromRow(hash, row), kind: row.kind === "refresh" ? "refresh" : "access" };
  }

  /** Marks the refresh token used; whether this call was the first to. */
  async useToken(hash: string): Promise<boolean> {
    const { rows } = await unavailableOnFailure(() =>
      this.#pool.query(
        "UPDATE oauth_tokens SET used = 1 WHERE token_hash = $1 AND used = 0 RETURNING token_hash",
        [hash],
      )
    );
    return rows.length === 1;
  }

  /** Ends every token of a family. */
  async revokeFamily(familyId: string): Promise<void> {
    await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        await sql.query("DELETE FROM oauth_tokens WHERE family_id = $1", [familyId]);
        await sql.query("UPDATE oauth_codes SET used = 1 WHERE family_id = $1", [familyId]);
      })
    );
  }
}
