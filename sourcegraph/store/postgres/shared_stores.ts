/**
 * The stores of a replica that shares a PostgreSQL database with others:
 * the control store and the sealed fetch credentials. Loaded only when
 * `SOURCEGRAPH_DATABASE_URL` is set, so the single process never loads
 * the driver.
 *
 * @example
 * ```ts ignore
 * // Not run with the tests: it needs a PostgreSQL server.
 * const { store, credentials } = await openSharedStores(url, {
 *   keyFile: "/etc/sourcegraph/credential.key",
 *   dataDir: "/var/lib/sourcegraph",
 *   log: console.error,
 * });
 * ```
 *
 * @module
 */

import { loadKeyFile } from "../credential_cipher.ts";
import { PostgresControlStore } from "./postgres_control_store.ts";
import { SealedCredentials } from "./sealed_credentials.ts";

/** The stores of a replica. */
export interface SharedStores {
  store: PostgresControlStore;
  credentials: SealedCredentials;
  /** What replicas authenticate their internal calls with (derived from the key file). */
  clusterSecret: string;
}

/**
 * Reads the credential key (refusing to go on without it), then opens the
 * store at `url` (migrating it) and the credentials sealed in it.
 */
export async function openSharedStores(
  url: string,
  options: {
    keyFile: string;
    dataDir: string;
    log: (line: string) => void;
    refreshMs?: number;
    /** The longest wait between two attempts to reach a lost database again (default 5 s). */
    reconnectMaxWaitMs?: number;
  },
): Promise<SharedStores> {
  const { key, clusterSecret } = await loadKeyFile(options.keyFile);
  const store = await PostgresControlStore.open(url, {
    log: options.log,
    refreshMs: options.refreshMs,
    reconnect: { capMs: options.reconnectMaxWaitMs },
  });
  try {
    const credentials = await SealedCredentials.open(store.pool, {
      key,
      dataDir: options.dataDir,
      subscribe: (listener) => store.subscribe(listener),
    });
    return { store, credentials, clusterSecret };
  } catch (error) {
    await store.close();
    throw error;
  }
}
