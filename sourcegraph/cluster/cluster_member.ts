/**
 * Turns the composed service into one replica of a cluster: it announces
 * itself, routes mirror reads to the repositories' holders, syncs as one
 * owner among several (asking an owner when it owns nothing of a
 * repository), rebalances its disk after every change, shares SCIP
 * uploads and keeps copies of those of what it holds (`scip_copies.ts`),
 * and serves the internal listener's parts. Built once by `main.ts` after the services.
 *
 * @example
 * ```ts ignore
 * // Not run with the tests: it needs a PostgreSQL server and replicas to call.
 * const member = await joinCluster(services, {
 *   store, cluster: settings.database.cluster, dataDir, secret, peerIdleMs: 60_000, log,
 * });
 * Deno.serve({ port: 9001 }, internalApp(member.internal).fetch);
 * // … on SIGTERM:
 * await member.leave();
 * ```
 *
 * @module
 */

import * as fs from "node:fs";
import { join } from "node:path";
import { SourcegraphError } from "../errors.ts";
import { FetchCredentials } from "../store/fetch_credentials.ts";
import { mirrorPath } from "../git/repository_sync.ts";
import type { Caller } from "../access/caller.ts";
import type { Services } from "../service/compose.ts";
import { type RoutedMethod, routedMethods, runRoutedCall } from "../service/routed_calls.ts";
import type { RepositoryRecord } from "../store/control_store.ts";
import { ClusterTables } from "../store/postgres/pg_cluster_tables.ts";
import { ScipIndexRows } from "../store/postgres/pg_scip_indexes.ts";
import type { PostgresControlStore } from "../store/postgres/postgres_control_store.ts";
import { Cluster, type ClusterSettings } from "./cluster.ts";
import { ClusterRouter } from "./cluster_router.ts";
import { Rebalancer } from "./rebalancer.ts";
import { RemoteCalls, ReplicaUnreachable } from "./remote_calls.ts";
import { missingCommits, ReplicaSync } from "./replica_sync.ts";
import { ScipCopies } from "./scip_copies.ts";

/** What the internal listener serves from. */
export interface InternalParts {
  secret: string;
  /** Whether this replica serves a forwarded call (it holds the repository). */
  accepts(call: { repo: string; caller: Caller; partial: boolean }): boolean;
  /** The names of the calls another replica may forward (the keys of the routed calls). */
  methods: readonly RoutedMethod[];
  /** Runs a forwarded call here (its copy is not dropped meanwhile). */
  serve(call: { method: string; repo: string; caller: Caller; request: unknown }): Promise<unknown>;
  /** The mirror of a repository this replica holds, or null. */
  heldMirror(repositoryId: number): { repo: RepositoryRecord; path: string } | null;
  /** Syncs a repository this replica owns, now (another replica asked); null: it does not own it. */
  sync(repositoryId: number): Promise<unknown | null>;
  log: (line: string) => void;
}

/** A replica in its cluster. */
export interface ClusterMember {
  cluster: Cluster;
  rebalancer: Rebalancer;
  /** What the internal listener serves from. */
  internal: InternalParts;
  /** Stops rebalancing and the heartbeat and removes this replica's rows. */
  leave(): Promise<void>;
}

/** Joins the cluster of `options.store` with `services`. */
export async function joinCluster(
  services: Services,
  options: {
    store: PostgresControlStore;
    cluster: ClusterSettings;
    dataDir: string;
    secret: string;
    /**
     * How long the other replicas' internal listeners keep an idle connection
     * (the cluster's replicas share their settings).
     */
    peerIdleMs: number;
    log: (line: string) => void;
  },
): Promise<ClusterMember> {
  const { store, dataDir, secret, peerIdleMs, log } = options;
  const tables = new ClusterTables(store.pool, store.leasePool);
  const cluster = new Cluster(tables, options.cluster, { log });
  await cluster.join();
  const { remote, router } = routeThrough(services, { store, cluster, secret, peerIdleMs });
  const scip = shareScip(services, { store, cluster, log });
  const replicaSync = new ReplicaSync(store, {
    cluster,
    tables,
    dataDir,
    credentials: services.credentials,
    secret,
    log,
    beforeHold: (repo) => scip.fill(repo),
  });
  // An owner syncs as one of several; any other replica asks an owner.
  services.scheduler.coordinate({
    owns: (repo) => cluster.owns(repo),
    runner: (repo, at) =>
      cluster.owns(repo) ? replicaSync.sync(repo, at) : askOwner(cluster, remote, repo),
  });
  const rebalancer = new Rebalancer(store, {
    cluster,
    scheduler: services.scheduler,
    lifecycle: services.lifecycle,
    files: new FetchCredentials(dataDir),
    dataDir,
    log,
    drained: (id) => router.drained(id),
  });
  await reconcileHoldings(store, { cluster, dataDir });
  listen(store, { cluster, rebalancer, scip });
  return {
    cluster,
    rebalancer,
    internal: internalParts(services, { store, cluster, router, dataDir, secret, log }),
    async leave() {
      await Promise.all([rebalancer.stop(), scip.stop()]);
      await cluster.leave();
    },
  };
}

// SCIP uploads are shared through the store; each holder keeps a copy.
function shareScip(
  services: Services,
  at: { store: PostgresControlStore; cluster: Cluster; log: (line: string) => void },
): ScipCopies {
  const scip = new ScipCopies(new ScipIndexRows(at.store.pool), {
    cluster: at.cluster,
    store: at.store,
    scip: services.scip,
    log: at.log,
  });
  services.admin.useScipShare(scip);
  return scip;
}

// Every change rebalances, updates the view or copies SCIP indexes, as it concerns them.
function listen(
  store: PostgresControlStore,
  at: { cluster: Cluster; rebalancer: Rebalancer; scip: ScipCopies },
): void {
  const { cluster, rebalancer, scip } = at;
  cluster.onChange(() => rebalancer.trigger());
  store.subscribe((topic) => {
    // After the view has taken this change and every one notified before it (a join just
    // before a registration: the new repository is placed among replicas that include it).
    const applied = cluster.changed(topic).catch(() => {});
    if (topic.startsWith("repository:")) void applied.then(() => rebalancer.trigger());
    if (/^(scip:|holding:|all$)/.test(topic)) void applied.then(() => scip.trigger());
  });
  scip.trigger(); // what changed while this replica was away
}

// Mirror reads go through the cluster's router; pins to the cluster.
function routeThrough(
  services: Services,
  at: { store: PostgresControlStore; cluster: Cluster; secret: string; peerIdleMs: number },
): { remote: RemoteCalls; router: ClusterRouter } {
  const remote = new RemoteCalls(at.secret, { peerIdleMs: at.peerIdleMs });
  const router = new ClusterRouter(at.store, {
    cluster: at.cluster,
    visibility: services.repositories,
    remote,
  });
  services.repositories.useRouter(router);
  services.admin.usePlacement(at.cluster);
  return { remote, router };
}

// What this replica's rows say it holds is made true of its disk (a replica
// that restarts may have lost its data folder, or missed changes).
async function reconcileHoldings(
  store: PostgresControlStore,
  at: { cluster: Cluster; dataDir: string },
): Promise<void> {
  for (const repo of store.repositories()) {
    const mirror = mirrorPath(at.dataDir, repo);
    const retained = store.versions(repo.id).map((version) => version.commit);
    let present: string[] = [];
    if (fs.existsSync(join(mirror, "HEAD"))) {
      const missing = new Set(await missingCommits(mirror, retained));
      present = retained.filter((commit) => !missing.has(commit));
    }
    const held = at.cluster.held(repo.id);
    if (held.length !== present.length || held.some((commit) => !present.includes(commit))) {
      await at.cluster.hold(repo.id, present);
    }
  }
}

// Asks the owners of `repo`, best first, to sync it (this replica holds nothing of it).
async function askOwner(
  cluster: Cluster,
  remote: RemoteCalls,
  repo: Parameters<Cluster["owners"]>[0],
) {
  const live = new Map(cluster.live().map((replica) => [replica.name, replica]));
  for (const name of cluster.owners(repo)) {
    const owner = live.get(name);
    if (!owner || name === cluster.self) continue;
    try {
      return await remote.sync(owner, repo.id);
    } catch (error) {
      if (!(error instanceof ReplicaUnreachable)) throw error;
    }
  }
  throw new SourcegraphError(
    "DEPENDENCY_UNAVAILABLE",
    "no owner of this repository answers right now; retry shortly",
  );
}

function internalParts(
  services: Services,
  at: {
    store: PostgresControlStore;
    cluster: Cluster;
    router: ClusterRouter;
    dataDir: string;
    secret: string;
    log: (line: string) => void;
  },
): InternalParts {
  const { store, cluster } = at;
  return {
    secret: at.secret,
    accepts: (call) => at.router.accepts(call),
    methods: routedMethods(services.localCalls),
    // Here and only here: a forwarded call is never forwarded again.
    serve: (call) => {
      const repo = store.repository(call.repo);
      const run = () => runRoutedCall(services.localCalls, call);
      return repo ? at.router.runLocal(repo.id, run) : run();
    },
    heldMirror(repositoryId) {
      const repo = store.repositories().find((candidate) => candidate.id === repositoryId);
      if (!repo || cluster.held(repo.id).length === 0) return null;
      return { repo, path: mirrorPath(at.dataDir, repo) };
    },
    async sync(repositoryId) {
      const repo = store.repositories().find((candidate) => candidate.id === repositoryId);
      if (!repo) throw new SourcegraphError("REPOSITORY_NOT_FOUND", "no such repository");
      // Views of placement differ for a moment after a change: never pass the request on again.
      if (!cluster.owns(repo)) return null;
      return await services.scheduler.sync(repo);
    },
    log: at.log,
  };
}
