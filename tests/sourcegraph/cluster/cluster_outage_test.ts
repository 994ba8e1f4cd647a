// Three replicas over one PostgreSQL as real processes: reads that never
// fail while a replica dies and comes back, or the database is away, read
// directly and through nginx.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ownersOf } from "../../../sourcegraph/cluster/placement.ts";
import { assertEquals } from "../../support/assert.ts";
import {
  CLUSTER_TOKEN,
  type ClusterHarness,
  eventually,
  NO_SEARCH_INDEX,
} from "../../support/cluster_harness.ts";
import {
  admin,
  PACE_MS,
  register,
  startReaders,
  withCluster,
} from "../../support/cluster_fixture.ts";
import { nginxBin, startNginx } from "../../support/nginx_server.ts";
import { postgresBin } from "../../support/postgres_server.ts";
import { connectClient } from "../../support/sourcegraph_service.ts";

const BIN = postgresBin();
const NGINX = nginxBin();
// Longer than the cluster's heartbeat expiry (4 s) by more than a heartbeat (500 ms): when the
// server is back every beat has expired, and a replica that took the others for dead would move
// their repositories under the readers.
const OUTAGE_MS = 6_000;

Deno.test({
  name:
    "cluster: SIGKILL of a replica under 16 readers, its restart and rebalancing, PostgreSQL away for longer than the heartbeat expiry, then another SIGKILL under 4 readers through nginx: zero failed reads",
  ignore: BIN === null,
  fn: () =>
    // Reads of a.txt only: no replica builds a search index of what it fills. Three
    // repositories, one on each pair of replicas: each kill below moves two of them and leaves
    // one in place, and every replica holds some and forwards the reads of another.
    withCluster(BIN!, { upstreams: 3, replicas: 3, env: NO_SEARCH_INDEX }, async (cluster, up) => {
      const repositories = [...up.heads.keys()].map((name) => `org/${name}`);
      const pairs = repositories.map((name) =>
        ownersOf(name, { replicas: cluster.names, replication: 2 }).sort().join("+")
      );
      assertEquals(new Set(pairs).size, 3, `one repository on each pair: ${pairs}`);
      await register(cluster, up, [...up.heads.keys()]);
      await eventually(() => cluster.placed([0, 1, 2]), "placed");
      // 16 readers through replicas 0 and 1; replica 2 is the one that dies.
      const clients: Client[] = [];
      for (let i = 0; i < 16; i++) {
        clients.push(await connectClient(cluster.replicas[i % 2]!.url, { token: CLUSTER_TOKEN }));
      }
      const readers = startReaders(clients, repositories);
      try {
        // All 16 read without a pause around each event (reads in flight as the replica dies),
        // and paced while the test waits for the cluster: a wait of seconds read at full speed
        // only takes the processor from the replicas the test waits for.
        await readers.more(50);
        await cluster.kill(2);
        await readers.more(100);
        readers.pace(PACE_MS);
        await eventually(() => cluster.placed([0, 1]), "re-placed on the two survivors");
        readers.pace(0);
        await readers.more(50);
        readers.pace(PACE_MS);
        await cluster.start(2);
        await eventually(() => cluster.placed([0, 1, 2]), "rebalanced after the rejoin");
        readers.pace(0);
        await readers.more(50);

        // PostgreSQL away for longer than the heartbeat expiry (4 s), so every beat is stale
        // when it comes back: reads go on from the caches; writes fail with a code.
        await cluster.server.halt();
        const downAt = Date.now();
        await readers.more(50);
        const write = await admin(cluster.replicas[0]!.url, "/keys", {
          method: "POST",
          body: { name: "during outage" },
          key: "outage-key-0001",
        });
        assertEquals(write.status, 503);
        assertEquals((await write.json()).code, "DEPENDENCY_UNAVAILABLE");
        // The outage lasts OUTAGE_MS whatever the machine's speed: paced readers go on reading
        // through it (16 reads every PACE_MS) without keeping both cores busy.
        readers.pace(PACE_MS);
        while (Date.now() - downAt < OUTAGE_MS) await readers.more(10);
        await cluster.server.start();
        await eventually(async () => {
          const again = await admin(cluster.replicas[1]!.url, "/keys", {
            method: "POST",
            body: { name: "after outage" },
            key: "outage-key-0002",
          });
          return again.status === 201;
        }, "writes work again without a restart");
        readers.pace(0);
        await readers.more(50);
      } finally {
        await readers.stop();
      }
      assertEquals(
        readers.failures,
        [],
        `${readers.failures.length} of ${readers.count()} reads failed`,
      );
      // The same cluster behind nginx (one cluster less to start, place and index).
      if (NGINX !== null) await readThroughNginx(cluster, repositories);
    }),
});

// A client reading through nginx over the three replicas while replica 1 is killed: nginx
// passes a read the dead replica cannot answer to another, so no read fails.
async function readThroughNginx(cluster: ClusterHarness, repositories: string[]): Promise<void> {
  const nginx = await startNginx(
    NGINX!,
    cluster.replicas.map((replica) => new URL(replica!.url).host),
  );
  try {
    const clients: Client[] = await Promise.all(
      Array.from({ length: 4 }, () => connectClient(nginx.url, { token: CLUSTER_TOKEN })),
    );
    const readers = startReaders(clients, repositories);
    try {
      await readers.more(40);
      await cluster.kill(1);
      await readers.more(100);
      readers.pace(PACE_MS / 4);
      await eventually(() => cluster.placed([0, 2]), "re-placed");
      readers.pace(0);
      await readers.more(40);
    } finally {
      await readers.stop();
    }
    assertEquals(
      readers.failures,
      [],
      `${readers.failures.length} of ${readers.count()} reads through nginx failed`,
    );
  } finally {
    await nginx.stop();
  }
}
