/**
 * Starting this process as one replica of a cluster: join (heartbeat,
 * routing, owner syncs, rebalancing) and open the internal listener other
 * replicas call. The internal listener takes only requests that carry the
 * cluster secret, derived from the credential key file every replica has
 * (read once, with the shared stores). Its socket belongs to a front of its
 * own (`http/front_door.ts`), with the public front's time limits and the
 * internal caps, in front of HTTP servers of its own (`http/serve.ts`).
 *
 * @module
 */

import { joinCluster } from "../cluster/cluster_member.ts";
import { FrontDoor, type FrontDoorStats } from "../http/front_door.ts";
import { INTERNAL_BODY_TIMEOUT_MS, internalApp } from "../http/internal_app.ts";
import { InnerServer } from "../http/serve.ts";
import type { Services } from "../service/compose.ts";
import type { ConnectionSettings, DatabaseSettings } from "../settings.ts";
import type { PostgresControlStore } from "../store/postgres/postgres_control_store.ts";

/** A running replica. */
export interface RunningReplica {
  /** Rebalances now (after the first syncs). */
  rebalance(): Promise<void>;
  /** Leaves the cluster cleanly: the others take over this replica's repositories at once. */
  leave(): Promise<void>;
  /** Closes the internal listener. */
  close(): Promise<void>;
  /** The internal listener's connection counters. */
  stats(): FrontDoorStats;
}

/** Joins the cluster of `store` and listens for the other replicas. */
export async function startReplica(
  services: Services,
  options: {
    store: PostgresControlStore;
    /** The secret of internal calls (`SharedStores.clusterSecret`). */
    clusterSecret: string;
    database: DatabaseSettings;
    /** The public front's limits: the internal front takes its time limits. */
    connections: ConnectionSettings;
    dataDir: string;
    log: (line: string) => void;
  },
): Promise<RunningReplica> {
  const { database, log } = options;
  const secret = options.clusterSecret;
  const member = await joinCluster(services, {
    store: options.store,
    cluster: database.cluster,
    dataDir: options.dataDir,
    secret,
    peerIdleMs: options.connections.idleTimeoutMs,
    log,
  });
  const { hostname, port } = database.cluster.internalListen;
  let listener: Deno.TcpListener;
  try {
    listener = Deno.listen({ hostname, port });
  } catch (error) {
    await member.leave();
    throw new Error(
      `cannot listen on the internal address ${hostname}:${port}: ${(error as Error).message}`,
    );
  }
  const internal = await serveInternal(listener, {
    handler: internalApp(member.internal).fetch,
    limits: internalLimits(options.connections, database),
    log,
  });
  const live = member.cluster.live().map((replica) => replica.name);
  log(
    `replica ${database.cluster.replicaName} joined (${live.length} alive: ${live.join(", ")}); ` +
      `internal listener on ${hostname}:${port}`,
  );
  return {
    rebalance: () => member.rebalancer.run(),
    leave: () => member.leave(),
    close: () => internal.close(),
    stats: () => internal.stats(),
  };
}

// Serves `handler` on `listener` behind a front of its own with `limits`;
// `close` stops it (connections are cut: the replica left the cluster first).
async function serveInternal(
  listener: Deno.TcpListener,
  options: {
    handler: (request: Request) => Response | Promise<Response>;
    limits: ConnectionSettings;
    log: (line: string) => void;
  },
): Promise<{ close(): Promise<void>; stats(): FrontDoorStats }> {
  const { limits, log } = options;
  let inner: InnerServer | null = null;
  const front = new FrontDoor(limits, {
    upstream: { port: () => inner!.port(), retired: (at) => inner!.retired(at) },
    log,
    name: { listener: "internal listener", capSetting: "SOURCEGRAPH_INTERNAL_MAX_CONNECTIONS" },
  });
  inner = new InnerServer(front, {
    handler: async (request) => await options.handler(request),
    // Its lines name the listener: the public one's servers log the same ones.
    log: (line) => log(`internal listener: ${line}`),
    rotateMs: Math.max(1_000, limits.headerTimeoutMs),
    drainMs: limits.headerTimeoutMs + INTERNAL_BODY_TIMEOUT_MS,
  });
  await inner.start();
  void front.serve(listener);
  return {
    async close() {
      front.close();
      await inner.shutdown();
    },
    stats: () => front.stats(),
  };
}

// The internal front's limits: the public time limits, the internal caps.
function internalLimits(
  connections: ConnectionSettings,
  database: DatabaseSettings,
): ConnectionSettings {
  const caps = database.cluster.internalLimits;
  return {
    ...connections,
    maxConnections: caps.maxConnections,
    maxConnectionsPerAddress: caps.maxConnectionsPerAddress,
    bodyTimeoutMs: INTERNAL_BODY_TIMEOUT_MS,
  };
}
