/**
 * Connections to the shared PostgreSQL store through the `pg` driver
 * (node-postgres): a small pool for queries and one dedicated client that
 * listens for cache invalidations. `pg` was picked over `postgres` by
 * measurement under `deno run` with narrow flags (the store's README has
 * the figures). 64-bit integers (ids, times in milliseconds) come back as
 * numbers: every value the store keeps is far below 2^53.
 *
 * The connection URL carries a password: it is never logged, and errors
 * are reported by their SQLSTATE code and a message without it.
 *
 * @module
 */

import pg from "pg";
import { SourcegraphError } from "../../errors.ts";
import type { SqlConnection } from "./pg_migrations.ts";

/** The notification channel of cache invalidations. */
export const CONTROL_CHANNEL = "sourcegraph_control";

const INT8_OID = 20;

// BIGINT columns as numbers, every other type as the driver parses it.
const TYPES = {
  getTypeParser(oid: number, format?: string): (value: string) => unknown {
    if (oid === INT8_OID && format !== "binary") return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as "text");
  },
};

/** A pool's query runner: what the store runs its statements through. */
export interface SqlPool extends SqlConnection {
  /** Runs `work` on one connection of the pool (one session), outside a transaction. */
  connection<T>(work: (connection: SqlConnection) => Promise<T>): Promise<T>;
  /** Runs `work` in one transaction on one connection (committed unless it throws). */
  transaction<T>(work: (connection: SqlConnection) => Promise<T>): Promise<T>;
  /** Closes every connection. */
  end(): Promise<void>;
}

/** How the store's connections name themselves (`application_name` in `pg_stat_activity`). */
export const APPLICATION_NAME = "sourcegraph";

/** How long a connection attempt or a statement may take before it fails. */
export const STATEMENT_TIMEOUT_MS = 5_000;

/**
 * A pool of at most `max` connections to `url`; idle connections close
 * after 30 s, and a statement or connection attempt that takes longer than
 * `STATEMENT_TIMEOUT_MS` fails (a stopped server answers writes with an
 * error, not a hang). With `queueForever`, a caller waits for a free
 * connection as long as it takes (the pool of sync leases, whose
 * connections are held for a whole fetch).
 */
export function openPool(
  url: string,
  options: { max: number; queueForever?: boolean },
): SqlPool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    idleTimeoutMillis: 30_000,
    // Waiting for a free connection of a long-held pool (leases) is queueing, not an outage.
    connectionTimeoutMillis: options.queueForever ? 0 : STATEMENT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS,
    application_name: APPLICATION_NAME,
    types: TYPES,
  });
  // An idle connection the server dropped is removed from the pool; the next query opens another.
  pool.on("error", () => {});
  const lost = heardErrors(pool);
  return {
    query: (text, params) => pool.query(text, params),
    async connection(work) {
      const client = await checkOut(pool, lost);
      let broken = false;
      try {
        return await work(client);
      } catch (error) {
        broken = true; // a session left in an unknown state is not reused
        throw error;
      } finally {
        client.checkIn(broken);
      }
    },
    async transaction(work) {
      const client = await checkOut(pool, lost);
      let broken = false;
      try {
        await client.query("BEGIN");
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        client.checkIn(broken);
      }
    },
    end: () => pool.end(),
  };
}

// Every connection of the pool has an error listener from the moment the pool
// has it (its `connect` event) to its end, whoever holds it: an unheard error
// event would end the process. The server may end a session at any time (a
// shutdown says "terminating connection due to administrator command" to each),
// even in the same read as the end of its start-up, before whoever took the
// connection from the pool could listen to it. The connections that heard one.
function heardErrors(pool: pg.Pool): WeakSet<pg.PoolClient> {
  const lost = new WeakSet<pg.PoolClient>();
  pool.on("connect", (client: pg.PoolClient) => {
    client.on("error", () => lost.add(client));
  });
  return lost;
}

// A connection taken from the pool. One the server ended while it was out (a
// restart, an idle one held through a whole fetch) fails its next statement and
// is not reused.
async function checkOut(
  pool: pg.Pool,
  lost: WeakSet<pg.PoolClient>,
): Promise<pg.PoolClient & { checkIn(broken: boolean): void }> {
  const client = await pool.connect();
  return Object.assign(client, {
    checkIn(broken: boolean) {
      client.release(broken || lost.has(client));
    },
  });
}

/** The listening connection: `lost` once the server ended it; `close` ends it. */
export interface Listener {
  /** Whether the connection was lost after it opened. */
  readonly lost: boolean;
  /** Ends the connection (never throws). */
  close(): Promise<void>;
}

/**
 * A client of its own that listens on `channel`. `onEnd` hears, once, when
 * a connection that opened is lost. A connection that fails to open (or to
 * start listening) is closed and the promise rejects: `onEnd` is not
 * called for it, so a failed attempt is reported once, not twice.
 */
export async function openListener(
  url: string,
  options: {
    channel: string;
    onNotification: (payload: string) => void;
    onEnd: () => void;
  },
): Promise<Listener> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: STATEMENT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS,
    keepAlive: true,
    application_name: APPLICATION_NAME,
    types: TYPES,
  });
  let open = false;
  let lost = false;
  let closed = false;
  const end = () => {
    if (!open || lost || closed) return;
    lost = true;
    options.onEnd();
  };
  // Always heard: an unheard error event would end the process.
  client.on("error", end);
  client.on("end", end);
  client.on("notification", (message: pg.Notification) => {
    if (message.channel === options.channel) options.onNotification(message.payload ?? "");
  });
  const close = async () => {
    closed = true;
    await endClient(client);
  };
  try {
    await client.connect();
    await client.query(`LISTEN ${options.channel}`);
  } catch (error) {
    await close();
    throw error;
  }
  open = true;
  return {
    get lost() {
      return lost;
    },
    close,
  };
}

// Ends a client whatever state it is in; a goodbye that does not finish in
// time gives way to closing the socket, so no descriptor outlives it.
async function endClient(client: pg.Client): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), STATEMENT_TIMEOUT_MS);
  });
  const ended = await Promise.race([client.end().then(() => "ended", () => "failed"), late]);
  clearTimeout(timer);
  if (ended !== "ended") {
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream
      ?.destroy();
  }
}

/** The SQLSTATE code of a driver error, if it has one. */
export function sqlState(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

/** Sends `topic` on the control channel inside the transaction of `sql` (delivered at commit). */
export async function notifyIn(sql: SqlConnection, topic: string): Promise<void> {
  await sql.query("SELECT pg_notify($1, $2)", [CONTROL_CHANNEL, topic]);
}

/**
 * Runs `work`; a failure to reach the server (no connection, a lost one, a
 * timeout, a server shutting down) becomes `DEPENDENCY_UNAVAILABLE`; any
 * other failure passes unchanged.
 */
export async function unavailableOnFailure<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!unreachable(error)) throw error;
    throw new SourcegraphError(
      "DEPENDENCY_UNAVAILABLE",
      "the control database cannot be reached; retry shortly",
    );
  }
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
const DRIVER_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection error|Connection ended|Client was closed/i;

/** Whether `error` says the server cannot be reached (rather than that a statement failed). */
export function unreachable(error: unknown): boolean {
  if (error instanceof SourcegraphError) return false;
  const state = sqlState(error);
  if (state !== null) {
    return state.startsWith("08") || state.startsWith("57P") || state === "53300";
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
  const name = (error as { name?: unknown } | null)?.name;
  if (name === "ConnectionRefused" || name === "ConnectionReset" || name === "TimedOut") {
    return true;
  }
  return DRIVER_MESSAGES.test((error as Error | null)?.message ?? "");
}
