/**
 * OAuth state in the control store: registered clients, authorization
 * codes and tokens. Codes and tokens are kept under the SHA-256 of their
 * value, never the value: a copy of the store signs nobody in. A code or a
 * rotated refresh token stays (marked used) until it expires, so a second
 * use is recognised and ends its whole family (every token descended from
 * one sign-in). Expired rows are deleted as new ones are written, and the
 * registered clients are capped (the oldest go first).
 *
 * @module
 */

import type { DatabaseSync } from "node:sqlite";

/** Who a grant acts for: the identity signed in on the consent page. */
export type GrantIdentity = { kind: "service" } | { kind: "key"; id: string };

/** What a code or a token grants. */
export interface OAuthGrant {
  clientId: string;
  identity: GrantIdentity;
  /** The scopes granted (a subset of the identity's rights). */
  scopes: string[];
  /** The protected resource (the MCP URL) the grant is for. */
  resource: string;
  /** Codes only: the redirect URI and the PKCE challenge (S256) it was issued with. */
  redirectUri?: string;
  codeChallenge?: string;
}

/** A registered client. */
export interface OAuthClientRecord {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  createdAt: number;
}

/** A stored authorization code or token. */
export interface OAuthSecretRecord {
  /** SHA-256 hex of the code or token. */
  hash: string;
  grant: OAuthGrant;
  /** Every token descended from one code shares it. */
  familyId: string;
  expiresAt: number;
  /** A code exchanged, or a refresh token rotated. */
  used: boolean;
}

/** A stored token. */
export interface OAuthTokenRecord extends OAuthSecretRecord {
  kind: "access" | "refresh";
}

/** Where OAuth state is kept (both control stores). */
export interface OAuthStore {
  /** Registers `client`, first dropping the oldest past `max`. */
  saveClient(client: OAuthClientRecord, options: { max: number }): Promise<void>;
  /** The client `clientId`, or null. */
  client(clientId: string): Promise<OAuthClientRecord | null>;
  /** Stores a new code, first dropping expired codes and tokens. */
  saveCode(code: OAuthSecretRecord, options: { now: number }): Promise<void>;
  /**
   * Marks the code `hash` used and answers it with whether this call was the
   * first to use it; null when there is no such code.
   */
  takeCode(hash: string): Promise<{ code: OAuthSecretRecord; first: boolean } | null>;
  /**
   * Stores new tokens of one family, first dropping expired tokens, then
   * keeping only the family's `keep` newest (by issue time, `issuedAt`
   * reading it from a row), so a client rotating in a loop cannot grow the
   * store without bound.
   */
  saveTokens(tokens: OAuthTokenRecord[], options: TokenPruning): Promise<void>;
  /** The token `hash`, or null. */
  token(hash: string): Promise<OAuthTokenRecord | null>;
  /** Marks the refresh token `hash` used; whether this call was the first to. */
  useToken(hash: string): Promise<boolean>;
  /** Ends every token of a family. */
  revokeFamily(familyId: string): Promise<void>;
}

/** How `saveTokens` prunes. */
export interface TokenPruning {
  now: number;
  keep: number;
  /** Lifetimes by kind, to order a family's tokens by issue time (expiry minus lifetime). */
  accessTtlMs: number;
  refreshTtlMs: number;
}

/** The SQL ordering a family's tokens newest issue first (both dialects; parameters as given). */
export function issuedOrder(refreshTtl: string, accessTtl: string): string {
  return `(expires_at - CASE kind WHEN 'refresh' THEN ${refreshTtl} ELSE ${accessTtl} END) DESC, token_hash`;
}

interface SecretRow {
  grant_json: string;
  family_id: string;
  used: number;
  expires_at: number | string;
}

/** A stored row's record (both dialects name the columns alike). */
export function secretFromRow(hash: string, row: SecretRow): OAuthSecretRecord {
  return {
    hash,
    grant: JSON.parse(row.grant_json) as OAuthGrant,
    familyId: row.family_id,
    expiresAt: Number(row.expires_at),
    used: Number(row.used) !== 0,
  };
}

/** A stored client row's record. */
export function clientFromRow(
  row: { client_id: string; metadata: string; created_at: number | string },
): OAuthClientRecord {
  const metadata = JSON.parse(row.metadata) as { clientName: string; redirectUris: string[] };
  return {
    clientId: row.client_id,
    clientName: metadata.clientName,
    redirectUris: metadata.redirectUris,
    createdAt: Number(row.created_at),
  };
}

/** A client's metadata column. */
export function clientMetadataColumn(client: OAuthClientRecord): string {
  return JSON.stringify({ clientName: client.clientName, redirectUris: client.redirectUris });
}

/** The OAuth tables of a SQLite control store. */
export class SqliteOAuthRecords implements OAuthStore {
  #db: DatabaseSync;

  /** The OAuth state in `db` (a migrated control store). */
  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Registers `client`, first dropping the oldest past `max`. */
  saveClient(client: OAuthClientRecord, options: { max: number }): Promise<void> {
    this.#db.prepare(
      "INSERT INTO oauth_clients(client_id, metadata, created_at) VALUES (?, ?, ?)",
    ).run(client.clientId, clientMetadataColumn(client), client.createdAt);
    this.#db.prepare(
      `DELETE FROM oauth_clients WHERE client_id IN (SELECT client_id FROM oauth_clients
      ORDER BY created_at DESC, client_id DESC LIMIT -1 OFFSET ?)`,
    ).run(options.max);
    return Promise.resolve();
  }

  /** The client `clientId`, or null. */
  client(clientId: string): Promise<OAuthClientRecord | null> {
    const row = this.#db.prepare("SELECT * FROM oauth_clients WHERE client_id = ?").get(
      clientId,
    ) as { client_id: string; metadata: string; created_at: number } | undefined;
    return Promise.resolve(row ? clientFromRow(row) : null);
  }

  /** Stores a new code, first dropping expired codes and tokens. */
  saveCode(code: OAuthSecretRecord, options: { now: number }): Promise<void> {
    this.#db.prepare("DELETE FROM oauth_codes WHERE expires_at <= ?").run(options.now);
    this.#db.prepare("DELETE FROM oauth_tokens WHERE expires_at <= ?").run(options.now);
    this.#db.prepare(
      "INSERT INTO oauth_codes(code_hash, grant_json, family_id, used, expires_at) VALUES (?, ?, ?, 0, ?)",
    ).run(code.hash, JSON.stringify(code.grant), code.familyId, code.expiresAt);
    return Promise.resolve();
  }

  /** Marks the code used; whether this call was the first to. */
  takeCode(hash: string): Promise<{ code: OAuthSecretRecord; first: boolean } | null> {
    const changed = this.#db.prepare(
      "UPDATE oauth_codes SET used = 1 WHERE code_hash = ? AND used = 0",
    ).run(hash).changes;
    const row = this.#db.prepare("SELECT * FROM oauth_codes WHERE code_hash = ?").get(hash) as
      | SecretRow
      | undefined;
    return Promise.resolve(
      row ? { code: secretFromRow(hash, row), first: Number(changed) === 1 } : null,
    );
  }

  /** Stores new tokens of one family, dropping expired ones and the family's oldest past `keep`. */
  saveTokens(tokens: OAuthTokenRecord[], options: TokenPruning): Promise<void> {
    this.#db.prepare("DELETE FROM oauth_tokens WHERE expires_at <= ?").run(options.now);
    const insert = this.#db.prepare(
      "INSERT INTO oauth_tokens(token_hash, kind, grant_json, family_id, used, expires_at) VALUES (?, ?, ?, ?, 0, ?)",
    );
    for (const token of tokens) {
      insert.run(
        token.hash,
        token.kind,
        JSON.stringify(token.grant),
        token.familyId,
        token.expiresAt,
      );
    }
    const family = tokens[0]?.familyId;
    if (family !== undefined) {
      this.#db.prepare(
        `DELETE FROM oauth_tokens WHERE token_hash IN (SELECT token_hash FROM oauth_tokens
        WHERE family_id = ? ORDER BY ${issuedOrder("?", "?")} LIMIT -1 OFFSET ?)`,
      ).run(family, options.refreshTtlMs, options.accessTtlMs, options.keep);
    }
    return Promise.resolve();
  }

  /** The token `hash`, or null. */
  token(hash: string): Promise<OAuthTokenRecord | null> {
    const row = this.#db.prepare("SELECT * FROM oauth_tokens WHERE token_hash = ?").get(hash) as
      | (SecretRow & { kind: string })
      | undefined;
    if (!row) return Promise.resolve(null);
    const kind = row.kind === "refresh" ? "refresh" : "access";
    return Promise.resolve({ ...secretFromRow(hash, row), kind });
  }

  /** Marks the refresh token used; whether this call was the first to. */
  useToken(hash: string): Promise<boolean> {
    const changed = this.#db.prepare(
      "UPDATE oauth_tokens SET used = 1 WHERE token_hash = ? AND used = 0",
    ).run(hash).changes;
    return Promise.resolve(Number(changed) === 1);
  }

  /** Ends every token of a family. */
  revokeFamily(familyId: string): Promise<void> {
    this.#db.prepare("DELETE FROM oauth_tokens WHERE family_id = ?").run(familyId);
    this.#db.prepare("UPDATE oauth_codes SET used = 1 WHERE family_id = ?").run(familyId);
    return Promise.resolve();
  }
}
