/**
 * A cluster for tests: a private PostgreSQL server, a credential key file
 * and N replicas of the service as real processes, each started as the
 * README starts a replica (its own data folder, name, internal listener
 * and the narrow flags of `serviceFlags`), with a fast heartbeat (500 ms,
 * against 2 s by default) and an expiry of at least 4 s: a busy machine (the
 * suite runs beside other modules on two cores) stalls a replica's beats for
 * more than a second at times, and an expiry shorter than that declared live
 * replicas dead, moved their repositories back and forth (fills and index
 * builds: more processor) and could leave a read with no live holder
 * (DEPENDENCY_UNAVAILABLE).
 *
 * @module
 */

import { join } from "node:path";
import pg from "pg";
import { ownersOf } from "../../sourcegraph/cluster/placement.ts";
import { removeDir, tempDir } from "./git_repo.ts";
import { type PostgresServer, startPostgres } from "./postgres_server.ts";
import { freePort, type RunningService, startService } from "./sourcegraph_service.ts";

/** The service token of every replica. */
export const CLUSTER_TOKEN = "c".repeat(40);

/**
 * The environment of a replica whose case reads files only: no search index
 * (every search would go through `git grep`), so none of its fills starts an
 * index builder process (about half a processor-second each, with the
 * symbol parser for a TypeScript file) for answers the case never asks for.
 */
export const NO_SEARCH_INDEX: Readonly<Record<string, string>> = {
  SOURCEGRAPH_SEARCH_INDEX: "false",
};

/** A running test cluster. */
export interface ClusterHarness {
  server: PostgresServer;
  /** The credential key file every replica reads (the cluster secret derives from it). */
  keyFile: string;
  /** The port of replica `i`'s internal listener. */
  internalPorts: number[];
  /** The database URL. */
  url: string;
  /** The replicas by index (`replica-0` …); null while stopped. */
  replicas: (RunningService | null)[];
  names: string[];
  /** Starts (or restarts) replica `i`. */
  start(i: number): Promise<RunningService>;
  /** SIGKILLs replica `i`. */
  kill(i: number): Promise<void>;
  /** Stops replica `i` as an operator would (SIGTERM), waiting for it to exit. */
  terminate(i: number): Promise<void>;
  /** Runs `sql` on the database. */
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /**
   * Whether every repository is held in full by exactly its owners among
   * the replicas `live` (by index), as placement computes them.
   */
  placed(live: number[], replication?: number): Promise<boolean>;
  /** The indexes of the running replicas. */
  live(): number[];
  /** Replica `i`'s working folder (its data folder is `.sourcegraph` in it). */
  replicaFolder(i: number): string;
  /** The last log lines of every replica that ran (for a failure's message). */
  logTail(lines?: number): string;
  /** The mirror folders replica `i` has on disk (repository ids). */
  mirrorIds(i: number): Promise<number[]>;
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL (or uses `options.server`, a server the caller stops, in
 * a new database `options.database`) and `replicas` replicas.
 */
export async function startCluster(
  pgBin: string,
  options: {
    /** A running server to use (the caller stops it); by default one of the cluster's own. */
    server?: PostgresServer;
    /** The name of the cluster's database in it (default `cluster`). */
    database?: string;
    replicas: number;
    replication?: number;
    heartbeatMs?: number;
    expiryMs?: number;
    /** More environment, and a lowered open-file limit, for replica `i`. */
    replica?: (i: number) => { env?: Record<string, string>; ulimitFiles?: number };
  },
): Promise<ClusterHarness> {
  const server = options.server ?? await startPostgres(pgBin);
  const parent = await tempDir("sg-cluster-");
  const keyFile = join(parent, "credential.key");
  const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  await Deno.writeTextFile(keyFile, `${key}\n`, { mode: 0o600 });
  const url = await server.createDatabase(options.database ?? "cluster");
  const heartbeatMs = options.heartbeatMs ?? 500;
  const expiryMs = options.expiryMs ?? Math.max(heartbeatMs * 4, 4_000);
  const names = Array.from({ length: options.replicas }, (_, i) => `replica-${i}`);
  const internalPorts = names.map(() => freePort());
  const replicas: (RunningService | null)[] = names.map(() => null);
  const logs: string[][] = names.map(() => []);
  const folder = (i: number) => join(parent, names[i]);
  // The connection being opened or open, shared by concurrent queries.
  let connection: Promise<pg.Client> | null = null;
  const connected = (): Promise<pg.Client> => {
    if (connection !== null) return connection;
    const client = new pg.Client({ connectionString: url });
    const opened: Promise<pg.Client> = client.connect().then(
      () => client,
      async (error: unknown) => {
        if (connection === opened) connection = null;
        await client.end().catch(() => {});
        throw error;
      },
    );
    client.on("error", () => {
      if (connection === opened) connection = null;
    });
    connection = opened;
    return opened;
  };
  const disconnect = async (): Promise<void> => {
    const opened = connection;
    connection = null;
    await opened?.then((client) => client.end()).catch(() => {});
  };
  const harness: ClusterHarness = {
    server,
    keyFile,
    internalPorts,
    url,
    replicas,
    names,
    async start(i) {
      await Deno.mkdir(folder(i), { recursive: true });
      const extra = options.replica?.(i) ?? {};
      // The start's default allowance between log lines (120 s), not 60 s: a hang detector,
      // and a replica's start on two cores shared by dozens of busy processes outlasted 60 s.
      const service = await startService(folder(i), {
        SOURCEGRAPH_API_TOKEN: CLUSTER_TOKEN,
        SOURCEGRAPH_DATABASE_URL: url,
        SOURCEGRAPH_CREDENTIAL_KEY_FILE: keyFile,
        SOURCEGRAPH_REPLICA_NAME: names[i],
        SOURCEGRAPH_INTERNAL_URL: `http://127.0.0.1:${internalPorts[i]}`,
        SOURCEGRAPH_HEARTBEAT_INTERVAL: `${heartbeatMs}ms`,
        SOURCEGRAPH_HEARTBEAT_EXPIRY: `${expiryMs}ms`,
        SOURCEGRAPH_REPLICATION: String(options.replication ?? 2),
        SOURCEGRAPH_MAX_CONNECTIONS_PER_ADDRESS: "256",
        ...extra.env,
      }, { shared: { keyFile }, ulimitFiles: extra.ulimitFiles });
      replicas[i] = service;
      logs[i] = service.log;
      return service;
    },
    async kill(i) {
      const service = replicas[i];
      if (!service) return;
      Deno.kill(service.pid, "SIGKILL");
      await service.stop();
      replicas[i] = null;
    },
    async terminate(i) {
      await replicas[i]?.stop();
      replicas[i] = null;
    },
    async query(sql, params) {
      // One connection for the polls (a new one costs the test process about 7 ms, 20 times a
      // query's cost); the server is stopped and started by some tests: a connection that broke
      // meanwhile is replaced once.
      const reused = connection !== null;
      try {
        return (await (await connected()).query(sql, params)).rows;
      } catch (error) {
        await disconnect();
        if (!reused) throw error;
        return (await (await connected()).query(sql, params)).rows;
      }
    },
    async placed(live, replication = options.replication ?? 2) {
      const rows = await harness.query(
        `SELECT r.name, h.replica, jsonb_array_length(h.commits) AS n FROM repositories r
        LEFT JOIN holdings h ON h.repository_id = r.id`,
      );
      const held = new Map<string, string[]>();
      for (const row of rows) {
        const holders = held.get(String(row.name)) ?? [];
        if (row.replica !== null && Number(row.n) > 0) holders.push(String(row.replica));
        held.set(String(row.name), holders);
      }
      const alive = live.map((i) => names[i]);
      // A killed replica's rows stay until it comes back; nobody routes to it meanwhile.
      return [...held].every(([name, all]) =>
        JSON.stringify(all.filter((holder) => alive.includes(holder)).sort()) ===
          JSON.stringify(ownersOf(name, { replicas: alive, replication }).sort())
      );
    },
    live: () => replicas.flatMap((replica, i) => replica ? [i] : []),
    replicaFolder: (i) => folder(i),
    logTail(lines = 25) {
      return logs.map((log, i) => `--- ${names[i]}\n${log.slice(-lines).join("\n")}`).join("\n");
    },
    async mirrorIds(i) {
      const entries = await Array.fromAsync(
        Deno.readDir(join(folder(i), ".sourcegraph", "mirrors")),
      )
        .catch(() => []);
      return entries.map((entry) => /^(\d+)\.git$/.exec(entry.name)).filter((m) => m !== null)
        .map((m) => Number(m![1])).sort((a, b) => a - b);
    },
    async stop() {
      await disconnect();
      for (const service of replicas) await service?.stop();
      if (options.server === undefined) await server.stop();
      await removeDir(parent);
    },
  };
  try {
    // Side by side, as an operator's replicas start: they migrate one at a time under the
    // schema lock, and the rest of a start (loading the service's modules, opening its stores)
    // overlaps the others' waits for the disk and the database.
    const starts = names.map((_, i) => harness.start(i));
    const failed = (await Promise.allSettled(starts)).find((start) => start.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  } catch (error) {
    await harness.stop();
    throw error;
  }
  return harness;
}

/**
 * Waits for `condition` (a bounded number of short pauses, not a time budget: enough for the
 * builds of a cluster's first placement on a busy machine, with queries that take no time).
 * The pauses start at 50 ms and grow to 200 ms: a condition asks a replica or the database,
 * and asking often while it waits for builds or a heartbeat expiry only takes processor
 * time from the replicas' builds; a condition that holds soon is seen as soon as before.
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  tries = 1_600,
): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(200, 50 + 10 * i)));
  }
  throw new Error(`never happened: ${what}`);
}
