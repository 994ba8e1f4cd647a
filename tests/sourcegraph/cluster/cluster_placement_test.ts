// Three replicas over one PostgreSQL as real processes: placement by owners,
// the same answers from every replica, one fetch for racing syncs, deletes
// that reach every disk, and a SCIP upload to any replica kept by every owner
// (and by one that joins later).
import { join } from "node:path";
import { ownersOf } from "../../../sourcegraph/cluster/placement.ts";
import { SCIP_ROLES } from "../../../sourcegraph/search/scip/scip_derived.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { CLUSTER_TOKEN, type ClusterHarness, eventually } from "../../support/cluster_harness.ts";
import { admin, register, withClient, withCluster } from "../../support/cluster_fixture.ts";
import { postgresBin } from "../../support/postgres_server.ts";
import { encodeScip, type FixtureDocument } from "../../support/scip_fixtures.ts";
import { callTool, textOrError } from "../../support/tool_calls.ts";

const BIN = postgresBin();

const SCIP_SYMBOL = "npm up 1.0.0 src/`b.ts`/b1.";

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/**
 * Uploads a SCIP index of org/up1 to replica `at.at` (a refused one first,
 * which stores nothing anywhere), waits until `availability` on every
 * replica lists it, checks that `references` is precise and the same from
 * every replica and that each owner keeps a copy; the path of a replica's
 * copy.
 */
async function uploadScipToCluster(
  cluster: ClusterHarness,
  at: { at: number; id: number; commit: string; owners: string[] },
): Promise<(replica: number) => string> {
  const upload = (documents: FixtureDocument[]) =>
    fetch(
      `${
        cluster.replicas[at.at]!.url
      }/sourcegraph/api/admin/v1/repo/scip?repo=org/up1&commit=${at.commit}`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${CLUSTER_TOKEN}` },
        body: encodeScip(documents),
      },
    );
  const refused = await upload([{ path: "src/none.ts", occurrences: [] }]);
  assertEquals(`${refused.status} ${(await refused.json()).code}`, "422 SCIP_UNKNOWN_FILE");
  assertEquals(await cluster.query("SELECT commit_id FROM scip_indexes"), [], "nothing shared");
  const accepted = await upload([{
    path: "src/b.ts",
    occurrences: [{ range: [0, 13, 15], symbol: SCIP_SYMBOL, roles: SCIP_ROLES.definition }],
  }]);
  assertEquals(accepted.status, 201, await accepted.clone().text());
  assertEquals((await accepted.json()).documents, 1);
  const stored = (replica: number) =>
    join(
      cluster.replicaFolder(replica),
      ".sourcegraph",
      "scip_index",
      `${at.id}`,
      `${at.commit}.json`,
    );
  const answers = await Promise.all(
    cluster.replicas.map((replica) =>
      withClient(replica!.url, async (client) => {
        await eventually(async () =>
          textOrError(await callTool(client, "availability", { repo: "org/up1" })).includes(
            '"scip":{"tool":"test-indexer"',
          ), "availability lists the SCIP index");
        return textOrError(
          await callTool(client, "references", {
            repo: "org/up1",
            path: "src/b.ts",
            line: 1,
            column: 14,
          }),
        );
      })
    ),
  );
  assert(answers[0].includes('Precision: "precise"; Tool: "test-indexer 1.2.3"'), answers[0]);
  assertEquals(new Set(answers).size, 1, answers.join("\n---\n"));
  for (const [i, name] of cluster.names.entries()) {
    assertEquals(await exists(stored(i)), at.owners.includes(name), `${name}'s copy`);
  }
  return stored;
}

Deno.test({
  name:
    "cluster: 3 repositories placed on their two owners, byte-identical answers from each of 3 replicas, one fetch for two racing syncs, a delete gone from every disk, a SCIP upload kept by every owner",
  ignore: BIN === null,
  fn: () =>
    // Three repositories, one on each pair of replicas: each replica owns two and is the one
    // holding nothing of the third (up0: replica-1; up1: replica-0; up2: replica-2), so every
    // replica forwards some of the calls below; each more one only cost two more fills and index
    // builds (each a builder process). Symbols are asked of up1 and up2 (held by different
    // pairs); read_many reads up2's src/b.ts, the SCIP upload names up1's (after its racing
    // syncs). up0 has no TypeScript file: no index build of it starts the symbol parser.
    withCluster(
      BIN!,
      { upstreams: 3, typescript: [1, 2], replicas: 3 },
      async (cluster, up) => {
        const names = [...up.heads.keys()];
        const pairs = names.map((name) =>
          ownersOf(`org/${name}`, { replicas: cluster.names, replication: 2 }).sort().join("+")
        );
        assertEquals(new Set(pairs).size, 3, `one repository on each pair: ${pairs}`);
        await register(cluster, up, names);
        await eventually(() => cluster.placed([0, 1, 2]), "every repository on its owners");
        // Owners hold the mirror; the other replica holds nothing of it.
        const ids = new Map(
          (await cluster.query("SELECT id, name FROM repositories")).map((row) => [
            String(row.name),
            Number(row.id),
          ]),
        );
        for (const [i, replica] of cluster.names.entries()) {
          const owned = names.filter((name) =>
            ownersOf(`org/${name}`, { replicas: cluster.names, replication: 2 }).includes(replica)
          ).map((name) => ids.get(`org/${name}`)!).sort((a, b) => a - b);
          await eventually(
            async () => JSON.stringify(await cluster.mirrorIds(i)) === JSON.stringify(owned),
            `${replica}'s disk holds its own repositories only`,
          );
        }

        const calls: [string, Record<string, unknown>][] = [];
        for (const i of [0, 1, 2]) {
          calls.push(["read", { repo: `org/up${i}`, path: "a.txt" }]);
          calls.push(["search", { repo: `org/up${i}`, pattern: `word${i}` }]);
          calls.push(["list", { repo: `org/up${i}`, first: 10 }]);
        }
        calls.push(["read_many", {
          repo: "org/up2",
          files: [{ path: "a.txt" }, { path: "src/b.ts" }],
        }]);
        calls.push(["availability", { repo: "org/up2" }]);
        calls.push(["resolve", { repo: "org/up1" }]);
        calls.push(["repositories", {}]);
        calls.push(["read", { repo: "org/none", path: "a.txt" }]);
        // Symbols come from each replica's own index: byte-identical too.
        calls.push(["symbols", { repo: "org/up1", query: "b1" }]);
        calls.push(["symbols", { repo: "org/up2", query: "b", match: "prefix" }]);
        // A lookup that finds nothing says what it may have meant, wherever it ran.
        calls.push(["symbols", { repo: "org/up1", query: "B1" }]);
        assertEquals(calls.length, 17);
        // Every replica builds its own indexes: wait until each search says ready.
        for (const base of cluster.replicas.map((replica) => replica!.url)) {
          await withClient(base, async (client) => {
            for (const [name, args] of calls.filter(([name]) => name === "search")) {
              await eventually(
                async () =>
                  textOrError(await callTool(client, name, args)).includes('Index: "ready"'),
                "index ready",
              );
            }
            for (const [name, args] of calls.filter(([name]) => name === "symbols")) {
              await eventually(
                async () => (await callTool(client, name, args)).code === "OK",
                "symbols ready",
              );
            }
            // availability and resolve say whether the holder asked has built its index.
            for (
              const [name, args] of calls.filter(([name]) => /^(availability|resolve)$/.test(name))
            ) {
              await eventually(
                async () =>
                  textOrError(await callTool(client, name, args)).includes('"index":"ready"'),
                `${name} ready`,
              );
            }
          });
        }
        const answers = await Promise.all(
          cluster.replicas.map((replica) =>
            withClient(replica!.url, async (client) => {
              const out: string[] = [];
              for (const [name, args] of calls) {
                out.push(textOrError(await callTool(client, name, args)));
              }
              return out;
            })
          ),
        );
        const unexpected = cluster.replicas.flatMap((replica) =>
          replica!.log.filter((line) => line.includes("unexpectedly"))
        );
        assertEquals(unexpected, [], "no unexpected failure on any replica");
        assertEquals(answers[1], answers[0], "replica-1 answers as replica-0");
        assertEquals(answers[2], answers[0], "replica-2 answers as replica-0");
        assert(answers[0][0].includes("word0 beta"), answers[0][0]);
        assertEquals(answers[0][13], "ERROR REPOSITORY_NOT_FOUND");
        assert(answers[0][14].includes('"name":"b1","kind":"variable"'), answers[0][14]);
        assert(answers[0][15].includes('"name":"b2"'), answers[0][15]);
        assert(answers[0][14].includes('"signature":"'), answers[0][14]);
        assert(answers[0][16].includes('"ignore_case_names":["b1"]'), answers[0][16]);
        // A raw file from each replica (one of the three holds no mirror of it and forwards: replica-1
        // for up0, replica-0 for up1, replica-2 for up2): the same bytes.
        for (const i of [0, 1, 2]) {
          const raws = await Promise.all(cluster.replicas.map(async (replica) => {
            const answer = await fetch(`${replica!.url}/sourcegraph/org/up${i}/-/raw/main/a.txt`, {
              headers: { authorization: `Bearer ${CLUSTER_TOKEN}` },
            });
            return `${answer.status} ${answer.headers.get("content-type")} ${await answer.text()}`;
          }));
          assertEquals(new Set(raws).size, 1, raws.join(" | "));
          assert(raws[0].startsWith("200 text/plain; charset=utf-8 "), raws[0]);
          assert(raws[0].includes(`word${i}`), raws[0]);
        }

        // Two owners asked to sync one repository at once: one fetch from upstream.
        const raced = "up1";
        const owners = ownersOf(`org/${raced}`, { replicas: cluster.names, replication: 2 });
        const before = up.upstream.fetches(raced);
        const outcomes = await Promise.all(
          owners.map((owner) =>
            admin(
              cluster.replicas[cluster.names.indexOf(owner)]!.url,
              `/repo/prepare?repo=org/${raced}`,
              {
                method: "POST",
              },
            ).then(async (response) => [response.status, await response.json()])
          ),
        );
        assertEquals(outcomes.map(([status]) => status), [200, 200], JSON.stringify(outcomes));
        assertEquals(up.upstream.fetches(raced) - before, 1, "one fetch for both syncs");

        // A repository deleted through one replica is gone from every disk.
        const gone = ids.get("org/up2")!;
        const deleted = await admin(cluster.replicas[1]!.url, "/repo?repo=org/up2", {
          method: "DELETE",
        });
        assertEquals(deleted.status, 204);
        for (const i of [0, 1, 2]) {
          await eventually(
            async () => !(await cluster.mirrorIds(i)).includes(gone),
            "mirror removed",
          );
        }

        // A pin names the owners; without it the hash places the repository again.
        const hashed = ownersOf("org/up1", { replicas: cluster.names, replication: 2 });
        const pin = [cluster.names.find((name) => !hashed.includes(name))!, hashed[0]];
        // A SCIP upload to the replica that holds nothing of org/up1 reaches both owners.
        const stored = await uploadScipToCluster(cluster, {
          at: cluster.names.indexOf(pin[0]),
          id: ids.get("org/up1")!,
          commit: up.heads.get("up1")!,
          owners: hashed,
        });
        const holders = async () =>
          (await cluster.query(
            `SELECT h.replica FROM holdings h JOIN repositories r ON r.id = h.repository_id
          WHERE r.name = 'org/up1' AND jsonb_array_length(h.commits) > 0 ORDER BY 1`,
          )).map((row) => String(row.replica));
        const pinned = await admin(cluster.replicas[2]!.url, "/repo/pin?repo=org/up1", {
          method: "PUT",
          body: { replicas: pin },
        });
        assertEquals(await pinned.json(), { repo: "org/up1", pinned: pin });
        await eventually(
          async () => JSON.stringify(await holders()) === JSON.stringify([...pin].sort()),
          "held by the pinned replicas",
        );
        // The owner that joined copied the index before it held the repository; the one that
        // left dropped its copy with the mirror.
        assert(await exists(stored(cluster.names.indexOf(pin[0]))), `${pin[0]} has the SCIP index`);
        const left = cluster.names.indexOf(hashed[1]);
        await eventually(async () => !(await exists(stored(left))), `${hashed[1]} dropped it`);
        assertEquals(
          (await admin(cluster.replicas[0]!.url, "/repo/pin?repo=org/up1", {
            method: "DELETE",
          })).status,
          204,
        );
        await eventually(
          async () => JSON.stringify(await holders()) === JSON.stringify([...hashed].sort()),
          "held by the hashed owners again",
        );

        // SIGTERM: the replica removes its heartbeat and holdings before it exits.
        await cluster.terminate(2);
        const after = await cluster.query(
          "SELECT (SELECT count(*) FROM replicas WHERE name = 'replica-2') AS beat, " +
            "(SELECT count(*) FROM holdings WHERE replica = 'replica-2') AS held",
        );
        assertEquals([Number(after[0].beat), Number(after[0].held)], [0, 0]);
      },
    ),
});
