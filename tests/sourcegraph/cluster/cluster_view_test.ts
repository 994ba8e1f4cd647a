// The cluster view applies notified changes in the order they came: a
// registration notified just after a join is decided on the view that has it.
import { Cluster } from "../../../sourcegraph/cluster/cluster.ts";
import type {
  ClusterTables,
  HoldingRows,
  ReplicaRow,
} from "../../../sourcegraph/store/postgres/pg_cluster_tables.ts";
import type { RepositoryRecord } from "../../../sourcegraph/store/control_store.ts";
import { assertEquals } from "../../support/assert.ts";

// Replica `name`'s view of `tables`, joined (a heartbeat too slow to run in a test).
async function joined(tables: ClusterTables, name: string): Promise<Cluster> {
  const cluster = new Cluster(tables, {
    replicaName: name,
    internalUrl: `http://${name}.invalid`,
    heartbeatMs: 60_000,
    expiryMs: 240_000,
    replication: 1,
  }, { log: () => {} });
  await cluster.join();
  return cluster;
}

function row(name: string): ReplicaRow {
  return { name, internalUrl: `http://${name}.invalid`, startedAt: 1, heartbeatAt: 1 };
}

// Tables whose reads of the live replicas wait until released, as a slow query would.
function slowTables(live: ReplicaRow[][]) {
  const releases: (() => void)[] = [];
  let reads = 0;
  const tables = {
    heartbeat: () => Promise.resolve(),
    liveReplicas: async () => {
      const answer = live[Math.min(reads++, live.length - 1)];
      if (reads > 1) await new Promise<void>((resolve) => releases.push(resolve));
      return answer;
    },
    holdings: (): Promise<HoldingRows> => Promise.resolve(new Map()),
    pins: () => Promise.resolve(new Map<number, string[]>()),
    leave: () => Promise.resolve(),
  };
  return { tables: tables as unknown as ClusterTables, release: () => releases.shift()?.() };
}

Deno.test("cluster view: a change notified after a join is applied once the join's view is", async () => {
  const { tables, release } = slowTables([[row("replica-1"), row("replica-2")], [
    row("replica-0"),
    row("replica-1"),
    row("replica-2"),
  ]]);
  const cluster = await joined(tables, "replica-2");
  try {
    const repo = { id: 7, name: "org/up0" } as RepositoryRecord;
    const owners: string[][] = [];
    const joined = cluster.changed("replicas");
    // What the member does on a registration's notification: decide once the view has it.
    const registered = cluster.changed("repository:7").then(() =>
      owners.push(cluster.owners(repo))
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    assertEquals(owners, [], "nothing is decided while the join is being read");
    release();
    await Promise.all([joined, registered]);
    assertEquals(cluster.live().map((replica) => replica.name), [
      "replica-0",
      "replica-1",
      "replica-2",
    ]);
    assertEquals(owners, [cluster.owners(repo)]);
  } finally {
    await cluster.leave();
  }
});

Deno.test("cluster view: a change that fails to apply does not stop the ones after it", async () => {
  let fail = true;
  const tables = {
    heartbeat: () => Promise.resolve(),
    liveReplicas: () => Promise.resolve([row("replica-0")]),
    holdings: (id?: number): Promise<HoldingRows> => {
      if (id !== undefined && fail) {
        fail = false;
        return Promise.reject(new Error("database away"));
      }
      return Promise.resolve(
        new Map(id === undefined ? [] : [[id, new Map([["replica-0", ["c1"]]])]]),
      );
    },
    pins: () => Promise.resolve(new Map<number, string[]>()),
    leave: () => Promise.resolve(),
  } as unknown as ClusterTables;
  const cluster = await joined(tables, "replica-0");
  try {
    const failed = cluster.changed("holding:3").then(() => "applied", () => "failed");
    const next = cluster.changed("holding:3");
    assertEquals(await failed, "failed");
    await next;
    assertEquals(cluster.held(3), ["c1"]);
  } finally {
    await cluster.leave();
  }
});
