// Three replicas over one PostgreSQL as real processes, each repository on
// one owner: a killed owner's repositories are unavailable, and say so,
// until another owner has filled them.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ownersOf } from "../../../sourcegraph/cluster/placement.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { eventually, NO_SEARCH_INDEX } from "../../support/cluster_harness.ts";
import { register, withClient, withCluster } from "../../support/cluster_fixture.ts";
import { postgresBin } from "../../support/postgres_server.ts";
import { callTool } from "../../support/tool_calls.ts";

const BIN = postgresBin();
const READY_ONCE = { state: "ready", holders: 1 };

Deno.test({
  name:
    "cluster: with replication 1 a killed owner's repositories fail with DEPENDENCY_UNAVAILABLE (availability says so) until another owner has filled them",
  ignore: BIN === null,
  fn: () =>
    withCluster(
      BIN!,
      // Reads and availability only: no replica builds a search index of what it fills. One
      // repository, the one read: of the three replicas its owner dies, the one read from holds
      // nothing of it before or after, and the third fills it and answers the forwarded reads.
      {
        upstreams: 1,
        replicas: 3,
        replication: 1,
        heartbeatMs: 1_000,
        env: NO_SEARCH_INDEX,
      },
      async (cluster, up) => {
        await register(cluster, up, [...up.heads.keys()]);
        await eventually(() => cluster.placed([0, 1, 2], 1), "placed on its owner");
        const [owner] = ownersOf("org/up0", { replicas: cluster.names, replication: 1 });
        const victim = cluster.names.indexOf(owner);
        const reader = cluster.replicas[(victim + 1) % 3]!;
        // The one read from holds nothing of it after the kill either: the third replica fills
        // it, and the reads are forwarded there.
        const [next] = ownersOf("org/up0", {
          replicas: cluster.names.filter((name) => name !== owner),
          replication: 1,
        });
        assertEquals(next, cluster.names[(victim + 2) % 3], "the new owner is the third replica");
        const availability = (client: Client) =>
          callTool(client, "availability", { repo: "org/up0" }).then((outcome) =>
            JSON.parse(outcome.texts[0]).serving
          );
        // The reader learns of holdings by notification: its view may lag the database's rows.
        const servedOnce = async (client: Client) =>
          JSON.stringify(await availability(client)) === JSON.stringify(READY_ONCE);
        await withClient(reader.url, async (client) => {
          await eventually(() => servedOnce(client), "the reader sees the owner's copy");
          await cluster.kill(victim);
          const codes = new Set<string>();
          await eventually(async () => {
            const outcome = await callTool(client, "read", { repo: "org/up0", path: "a.txt" });
            codes.add(outcome.code);
            if (outcome.code === "DEPENDENCY_UNAVAILABLE") {
              // After a failed read, availability says the repository is not served, unless
              // an owner has filled it meanwhile (then a read works).
              const said = (await availability(client)).state;
              const read = () => callTool(client, "read", { repo: "org/up0", path: "a.txt" });
              assert(said !== "ready" || (await read()).code === "OK", `availability: ${said}`);
            }
            return outcome.code === "OK";
          }, "the repository is back once another owner has filled it");
          assert(
            [...codes].every((code) => code === "OK" || code === "DEPENDENCY_UNAVAILABLE"),
            [...codes].join(","),
          );
          // Until the victim's heartbeat expires in the reader's view, it counts as a holder
          // again once it is no longer suspect (no call failed on it lately).
          await eventually(() => servedOnce(client), "one live holder once the view settles");
        });
        const survivors = [0, 1, 2].filter((i) => i !== victim);
        await eventually(() => cluster.placed(survivors, 1), "re-placed");
      },
    ),
});
