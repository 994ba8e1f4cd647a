// Three replicas over one PostgreSQL as real processes: placement by owners,
// the same answers from every replica, one fetch for racing syncs, deletes
// that reach every disk, a SCIP upload to any replica kept by every owner
// (and by one that joins later), and reads that never fail while a replica
// dies, comes back, or the database is away. One PostgreSQL server serves
// every case (each cluster has a database of its own in it).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { ownersOf } from "../../../sourcegraph/cluster/placement.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import {
  CLUSTER_TOKEN,
  type ClusterHarness,
  eventually,
  startCluster,
} from "../../support/cluster_harness.ts";
import { type CountingUpstream, startCountingUpstream } from "../../support/counting_upstream.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { nginxBin, startNginx } from "../../support/nginx_server.ts";
import { postgresBin, type PostgresServer, startPostgres } from "../../support/postgres_server.ts";
import { encodeScip, type FixtureDocument } from "../../support/scip_fixtures.ts";
import { SCIP_ROLES } from "../../../sourcegraph/search/scip/scip_derived.ts";
import { adminRequest, connectClient } from "../../support/sourcegraph_service.ts";
import { callTool, textOrError } from "../../support/tool_calls.ts";

const BIN = postgresBin();
const NGINX = nginxBin();

interface Upstreams {
  folder: string;
  upstream: CountingUpstream;
  heads: Map<string, string>;
}

// `count` bare upstream repositories `up<i>`, each with its own word in a.txt and a second file,
// `src/b.ts` in those listed in `typescript` and `src/b.txt` in the others: each replica's index
// build of a TypeScript file starts the symbol parser, which only the symbol answers need.
async function upstreams(count: number, typescript: number[] = []): Promise<Upstreams> {
  const folder = await tempDir("sg-upstream-");
  const heads = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const work = await createRepo({
      "a.txt": `alpha ${i}\nword${i} beta\n`,
      [`src/b.${typescript.includes(i) ? "ts" : "txt"}`]: `export const b${i} = ${i};\n`,
    }, { parent: folder, name: `work${i}` });
    heads.set(`up${i}`, await work.commit("initial"));
    await work.git("clone", "-q", "--bare", work.path, join(folder, `up${i}.git`));
  }
  return { folder, upstream: startCountingUpstream(folder), heads };
}

// The admin API of one replica, with the service token.
function admin(
  url: string,
  path: string,
  init: { method: string; body?: unknown; key?: string },
): Promise<Response> {
  return adminRequest(url, path, { token: CLUSTER_TOKEN, ...init });
}

async function register(cluster: ClusterHarness, up: Upstreams, names: string[]): Promise<void> {
  for (const name of names) {
    const response = await admin(cluster.replicas[0]!.url, "/repos", {
      method: "POST",
      key: `register-${name}`,
      body: {
        name: `org/${name}`,
        source: up.upstream.url(name),
        public_read: true,
        policy: { branches: ["main"] },
      },
    });
    assertEquals(
      response.status,
      202,
      `${await response.text()}\n${cluster.replicas[0]!.log.slice(-20).join("\n")}`,
    );
  }
}

async function withClient<T>(base: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = await connectClient(base, { token: CLUSTER_TOKEN });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

// The file's PostgreSQL server (started by the test, stopped after its last case).
let server: PostgresServer | null = null;
let databases = 0;

// A cluster over `upstreams` repositories for `fn`; on a failure the replicas' last log lines.
async function withCluster(
  options: {
    upstreams: number;
    /** The upstreams whose second file is TypeScript (default none). */
    typescript?: number[];
    replicas: number;
    replication?: number;
    heartbeatMs?: number;
  },
  fn: (cluster: ClusterHarness, up: Upstreams) => Promise<void>,
): Promise<void> {
  const up = await upstreams(options.upstreams, options.typescript);
  const cluster = await startCluster(BIN!, {
    ...options,
    server: server!,
    database: `cluster_${++databases}`,
  });
  try {
    await fn(cluster, up);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${cluster.logTail()}`, { cause: error });
  } finally {
    await cluster.stop();
    await up.upstream.stop();
    await removeDir(up.folder);
  }
}

const SCIP_SYMBOL = "npm up 1.0.0 src/`b.ts`/b0.";

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/**
 * Uploads a SCIP index of org/up0 to replica `at.at` (a refused one first,
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
      }/sourcegraph/api/admin/v1/repo/scip?repo=org/up0&commit=${at.commit}`,
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
          textOrError(await callTool(client, "availability", { repo: "org/up0" })).includes(
            '"scip":{"tool":"test-indexer"',
          ), "availability lists the SCIP index");
        return textOrError(
          await callTool(client, "references", {
            repo: "org/up0",
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

/** Clients reading `a.txt` of the repositories in turn until stopped, counting what failed. */
interface Readers {
  failures: string[];
  count(): number;
  /** Resolves after `reads` more reads (of all clients together). */
  more(reads: number): Promise<void>;
  /** Each client pauses `ms` after each of its reads from now on (0: none). */
  pace(ms: number): void;
  /** Stops reading and closes the clients. */
  stop(): Promise<void>;
}

/**
 * The pause of each of 16 readers after a read while the test waits for the cluster (about 40
 * reads a second in all: still over a thousand reads in the waits of a run, and each read costs
 * the replicas and the test process a few milliseconds of processor time, which twice as many
 * only took from the cluster the test waits for); 4 readers pause a quarter of it.
 */
const PACE_MS = 400;

function startReaders(clients: Client[], repositories: string[]): Readers {
  const failures: string[] = [];
  let reads = 0;
  let reading = true;
  let pauseMs = 0;
  const loops = clients.map(async (client, i) => {
    for (let n = 0; reading; n++) {
      const repo = repositories[(i + n) % repositories.length];
      const outcome = await callTool(client, "read", { repo, path: "a.txt" })
        .catch((error) => ({ code: `THROWN ${(error as Error).message}`, texts: [] as string[] }));
      reads++;
      if (outcome.code !== "OK") {
        failures.push(`${repo}: ${outcome.code} ${outcome.texts[0] ?? ""}`);
      }
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  });
  return {
    failures,
    count: () => reads,
    async more(count) {
      const target = reads + count;
      await eventually(() => reads >= target, `${count} more reads`);
    },
    pace(ms) {
      pauseMs = ms;
    },
    async stop() {
      reading = false;
      await Promise.all(loops);
      for (const client of clients) await client.close().catch(() => {});
    },
  };
}

const placement: Deno.TestStepDefinition = {
  name:
    "cluster: 12 repositories placed on their two owners, byte-identical answers from each of 3 replicas, one fetch for two racing syncs, a delete gone from every disk, a SCIP upload kept by every owner",
  ignore: BIN === null,
  fn: () =>
    // Symbols are asked of up4 and up8; read_many reads up5's src/b.ts, the SCIP upload names up0's.
    withCluster({ upstreams: 12, typescript: [0, 4, 5, 8], replicas: 3 }, async (cluster, up) => {
      const names = [...up.heads.keys()];
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
      for (const i of [0, 3, 7, 10, 11]) {
        calls.push(["read", { repo: `org/up${i}`, path: "a.txt" }]);
        calls.push(["search", { repo: `org/up${i}`, pattern: `word${i}` }]);
        calls.push(["list", { repo: `org/up${i}`, first: 10 }]);
      }
      calls.push(["read_many", {
        repo: "org/up5",
        files: [{ path: "a.txt" }, { path: "src/b.ts" }],
      }]);
      calls.push(["availability", { repo: "org/up9" }]);
      calls.push(["resolve", { repo: "org/up11" }]);
      calls.push(["repositories", {}]);
      calls.push(["read", { repo: "org/none", path: "a.txt" }]);
      // Symbols come from each replica's own index: byte-identical too.
      calls.push(["symbols", { repo: "org/up4", query: "b4" }]);
      calls.push(["symbols", { repo: "org/up8", query: "b", match: "prefix" }]);
      // A lookup that finds nothing says what it may have meant, wherever it ran.
      calls.push(["symbols", { repo: "org/up4", query: "B4" }]);
      assertEquals(calls.length, 23);
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
      assertEquals(answers[0][19], "ERROR REPOSITORY_NOT_FOUND");
      assert(answers[0][20].includes('"name":"b4","kind":"variable"'), answers[0][20]);
      assert(answers[0][21].includes('"name":"b8"'), answers[0][21]);
      assert(answers[0][20].includes('"signature":"'), answers[0][20]);
      assert(answers[0][22].includes('"ignore_case_names":["b4"]'), answers[0][22]);
      // A raw file from each replica (one of the three holds no mirror of it and forwards): the same bytes.
      for (const i of [0, 3, 10]) {
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
      const raced = "up4";
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
      const gone = ids.get("org/up7")!;
      const deleted = await admin(cluster.replicas[1]!.url, "/repo?repo=org/up7", {
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
      const hashed = ownersOf("org/up0", { replicas: cluster.names, replication: 2 });
      const pin = [cluster.names.find((name) => !hashed.includes(name))!, hashed[0]];
      // A SCIP upload to the replica that holds nothing of org/up0 reaches both owners.
      const stored = await uploadScipToCluster(cluster, {
        at: cluster.names.indexOf(pin[0]),
        id: ids.get("org/up0")!,
        commit: up.heads.get("up0")!,
        owners: hashed,
      });
      const holders = async () =>
        (await cluster.query(
          `SELECT h.replica FROM holdings h JOIN repositories r ON r.id = h.repository_id
          WHERE r.name = 'org/up0' AND jsonb_array_length(h.commits) > 0 ORDER BY 1`,
        )).map((row) => String(row.replica));
      const pinned = await admin(cluster.replicas[2]!.url, "/repo/pin?repo=org/up0", {
        method: "PUT",
        body: { replicas: pin },
      });
      assertEquals(await pinned.json(), { repo: "org/up0", pinned: pin });
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
        (await admin(cluster.replicas[0]!.url, "/repo/pin?repo=org/up0", {
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
    }),
};

const killAndOutage: Deno.TestStepDefinition = {
  name:
    "cluster: SIGKILL of a replica under 16 readers, its restart and rebalancing, 10 s without PostgreSQL, then another SIGKILL under 4 readers through nginx: zero failed reads",
  ignore: BIN === null,
  fn: () =>
    withCluster({ upstreams: 6, replicas: 3 }, async (cluster, up) => {
      const repositories = [...up.heads.keys()].map((name) => `org/${name}`);
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

        // PostgreSQL away for 10 s: reads go on from the caches; writes fail with a code.
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
        // The outage lasts 10 s whatever the machine's speed: paced readers go on reading
        // through it (16 reads every PACE_MS) without keeping both cores busy.
        readers.pace(PACE_MS);
        while (Date.now() - downAt < 10_000) await readers.more(10);
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
};

const replicationOne: Deno.TestStepDefinition = {
  name:
    "cluster: with replication 1 a killed owner's repositories fail with DEPENDENCY_UNAVAILABLE (availability says so) until another owner has filled them",
  ignore: BIN === null,
  fn: () =>
    withCluster(
      { upstreams: 3, replicas: 3, replication: 1, heartbeatMs: 1_000 },
      async (cluster, up) => {
        await register(cluster, up, [...up.heads.keys()]);
        await eventually(() => cluster.placed([0, 1, 2], 1), "placed on one owner each");
        const [owner] = ownersOf("org/up0", { replicas: cluster.names, replication: 1 });
        const victim = cluster.names.indexOf(owner);
        const reader = cluster.replicas[(victim + 1) % 3]!;
        const availability = (client: Client) =>
          callTool(client, "availability", { repo: "org/up0" }).then((outcome) =>
            JSON.parse(outcome.texts[0]).serving
          );
        await withClient(reader.url, async (client) => {
          assertEquals(await availability(client), { state: "ready", holders: 1 });
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
          assertEquals(await availability(client), { state: "ready", holders: 1 });
        });
        const survivors = [0, 1, 2].filter((i) => i !== victim);
        await eventually(() => cluster.placed(survivors, 1), "re-placed");
      },
    ),
};

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

Deno.test({
  name: "cluster: three replicas as processes over one PostgreSQL server, case by case",
  ignore: BIN === null,
  fn: async (t) => {
    server = await startPostgres(BIN!);
    try {
      for (const step of [placement, killAndOutage, replicationOne]) {
        await t.step(step);
      }
    } finally {
      await server.stop();
      server = null;
    }
  },
});
