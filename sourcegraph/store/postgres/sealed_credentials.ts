/**
 * Fetch credentials in the shared PostgreSQL store, sealed with AES-256-GCM
 * (`../credential_cipher.ts`) under the key file every replica reads; the
 * key never enters the database or a log. The database holds the sealed
 * value and its kind (https or ssh, not secret). A replica that fetches
 * opens the value and writes it to its own data folder's credential files
 * (`store/fetch_credentials.ts`: 0600, renamed into place), which is where
 * Git reads it; a credential removed on any replica is removed from every
 * replica's files when the change is notified.
 *
 * @module
 */

import {
  type CredentialStore,
  FETCH_CREDENTIAL,
  type FetchCredential,
  FetchCredentials,
} from "../fetch_credentials.ts";
import { openCredential, sealCredential } from "../credential_cipher.ts";
import { notifyIn, type SqlPool, unavailableOnFailure } from "./pg_connection.ts";

type Kind = "https" | "ssh";

/** The sealed credentials of the shared store. */
export class SealedCredentials implements CredentialStore {
  #pool: SqlPool;
  #key: CryptoKey;
  #files: FetchCredentials;
  #kinds = new Map<number, Kind>();

  private constructor(pool: SqlPool, options: { key: CryptoKey; dataDir: string }) {
    this.#pool = pool;
    this.#key = options.key;
    this.#files = new FetchCredentials(options.dataDir);
  }

  /**
   * The credentials in `pool`'s database, opened with `key`, written out
   * below `dataDir` when a fetch needs them; `subscribe` delivers the
   * control store's change topics (`credential:<id>`, `all`).
   */
  static async open(
    pool: SqlPool,
    options: { key: CryptoKey; dataDir: string; subscribe: (fn: (topic: string) => void) => void },
  ): Promise<SealedCredentials> {
    const credentials = new SealedCredentials(pool, options);
    await credentials.#reloadKinds();
    options.subscribe((topic) => void credentials.#changed(topic).catch(() => {}));
    return credentials;
  }

  /** Seals and stores (replacing any) `credential` for repository `id`. */
  async set(id: number, credential: FetchCredential): Promise<void> {
    const sealed = await sealCredential(this.#key, JSON.stringify(credential), {
      repositoryId: id,
    });
    await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        await sql.query(
          `INSERT INTO credentials(repository_id, kind, sealed, updated_at) VALUES ($1, $2, $3, $4)
          ON CONFLICT (repository_id) DO UPDATE SET kind = EXCLUDED.kind,
          sealed = EXCLUDED.sealed, updated_at = EXCLUDED.updated_at`,
          [id, credential.kind, sealed, Date.now()],
        );
        await notifyIn(sql, `credential:${id}`);
      })
    );
    this.#kinds.set(id, credential.kind);
  }

  /** Removes repository `id`'s credential everywhere; resolves whether there was one. */
  async remove(id: number): Promise<boolean> {
    const removed = await unavailableOnFailure(() =>
      this.#pool.transaction(async (sql) => {
        const result = await sql.query(
          "DELETE FROM credentials WHERE repository_id = $1 RETURNING repository_id",
          [id],
        );
        await notifyIn(sql, `credential:${id}`);
        return result.rows.length > 0;
      })
    );
    this.#kinds.delete(id);
    await this.#files.remove(id);
    return removed;
  }

  /** Which credential repository `id` has, never its value. */
  kind(id: number): Kind | null {
    return this.#kinds.get(id) ?? null;
  }

  /**
   * Opens repository `id`'s credential, writes it to this replica's files
   * and answers the Git configuration for fetching `source` with it;
   * `CREDENTIAL_UNREADABLE` when it does not open with this replica's key.
   */
  async gitArgs(id: number, source: string): Promise<string[]> {
    const { rows } = await unavailableOnFailure(() =>
      this.#pool.query("SELECT sealed FROM credentials WHERE repository_id = $1", [id])
    );
    if (rows.length === 0) {
      await this.#files.remove(id);
      return [];
    }
    const opened = await openCredential(this.#key, String(rows[0].sealed), { repositoryId: id });
    this.#files.write(id, FETCH_CREDENTIAL.parse(JSON.parse(opened)));
    return await this.#files.gitArgs(id, source);
  }

  async #changed(topic: string): Promise<void> {
    if (topic === "all") return await this.#reloadKinds();
    if (!topic.startsWith("credential:")) return;
    const id = Number(topic.slice("credential:".length));
    const { rows } = await this.#pool.query(
      "SELECT kind FROM credentials WHERE repository_id = $1",
      [id],
    );
    if (rows.length > 0) {
      this.#kinds.set(id, rows[0].kind as Kind);
    } else {
      this.#kinds.delete(id);
      await this.#files.remove(id);
    }
  }

  async #reloadKinds(): Promise<void> {
    const { rows } = await this.#pool.query("SELECT repository_id, kind FROM credentials");
    this.#kinds = new Map(rows.map((row) => [Number(row.repository_id), row.kind as Kind]));
  }
}
