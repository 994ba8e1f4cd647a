/**
 * Starting this process as one replica of a cluster: join (heartbeat,
 * routing, owner syncs, rebalancing) and open the internal listener other
 * replicas call. The internal listener takes only requests that carry the
 * cluster secret, derived from the credential key file every replica has
 * (read once, with the shared stores).
 *
 * @module
 */

import { joinCluster } from "../cluster/cluster_member.ts";
import { internalApp } from "../http/internal_app.ts";
import type { Services } from "../service/compose.ts";
import type { DatabaseSettings } from "../settings.ts";
import type { PostgresControlStore } from "../store/postgres/postgres_control_store.ts";

/** A running replica. */
export interface RunningReplica {
  /** Rebalances now (after the first syncs). */
  rebalance(): Promise<void>;
  /** Leaves the cluster cleanly: the others take over this replica's repositories at once. */
  leave(): Promise<void>;
  /** Closes the internal listener. */
  close(): Promise<void>;
}

/** Joins the cluster of `store` and listens for the other replicas. */
export async function startReplica(
  services: Services,
  options: {
    store: PostgresControlStore;
    /** The secret of internal calls (`SharedStores.clusterSecret`). */
    clusterSecret: string;
    database: DatabaseSettings;
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
    log,
  });
  const { hostname, port } = database.cluster.internalListen;
  let server: Deno.HttpServer;
  try {
    server = Deno.serve(
      { hostname, port, onListen: () => {} },
      internalApp(member.internal).fetch,
    );
  } catch (error) {
    await member.leave();
    throw new Error(
      `cannot listen on the internal address ${hostname}:${port}: ${(error as Error).message}`,
    );
  }
  const live = member.cluster.live().map((replica) => replica.name);
  log(
    `replica ${database.cluster.replicaName} joined (${live.length} alive: ${live.join(", ")}); ` +
      `internal listener on ${hostname}:${port}`,
  );
  return {
    rebalance: () => member.rebalancer.run(),
    leave: () => member.leave(),
    close: () => server.shutdown(),
  };
}
