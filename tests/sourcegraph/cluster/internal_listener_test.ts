// The internal listener of a replica attacked as a network client on the private network would:
// unfinished heads held open, then a connection flood past a lowered open-file limit. The
// replica must live on, keep serving its public port, shed the flood (heads are closed by the
// header timeout), and answer the other replicas' forwarded calls and its own Git route again.
import { join } from "node:path";
import type * as net from "node:net";
import { ownersOf } from "../../../sourcegraph/cluster/placement.ts";
import { readSettings } from "../../../sourcegraph/settings.ts";
import { loadKeyFile } from "../../../sourcegraph/store/credential_cipher.ts";
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import {
  CLUSTER_TOKEN,
  eventually,
  NO_SEARCH_INDEX,
  startCluster,
} from "../../support/cluster_harness.ts";
import { startCountingUpstream } from "../../support/counting_upstream.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { postgresBin } from "../../support/postgres_server.ts";
import { alive, connectFrom, socketOutcome } from "../../support/raw_http.ts";
import { adminRequest } from "../../support/sourcegraph_service.ts";

const BIN = postgresBin();
const NAMES = ["replica-0", "replica-1"];
// Where the attacker connects from: the replicas call each other from 127.0.0.1.
const ATTACKER = "127.0.0.2";
const UNFINISHED = "POST /internal/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ";

// A read of `repo`'s a.txt through `base`'s public HTTP API: its status and text.
async function read(base: string, repo: string): Promise<[number, string]> {
  const response = await fetch(`${base}/sourcegraph/v1/repo/read?repo=${repo}`, {
    method: "POST",
    headers: { authorization: `Bearer ${CLUSTER_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ Path: "a.txt" }),
  });
  return [response.status, await response.text()];
}

// The internal listener's connection counters from `base`'s metrics, by outcome.
async function internalConnections(base: string): Promise<Record<string, number>> {
  const response = await fetch(`${base}/metrics`, {
    headers: { authorization: `Bearer ${CLUSTER_TOKEN}` },
  });
  const text = await response.text();
  const counts: Record<string, number> = {};
  for (
    const [, outcome, count] of text.matchAll(
      /^sourcegraph_internal_connections_total\{outcome="(\w+)"\} (\d+)$/gm,
    )
  ) {
    counts[outcome] = Number(count);
  }
  assert("accepted" in counts, text);
  return counts;
}

// Opens `count` connections from the attacker's address, each sending an unfinished head;
// those the kernel or the replica would not even connect are counted, not kept.
async function holdHeads(port: number, count: number): Promise<{
  held: net.Socket[];
  failed: number;
}> {
  const outcomes = await Promise.all(
    Array.from(
      { length: count },
      () =>
        connectFrom(port, { localAddress: ATTACKER }).then((socket) => {
          socket.write(UNFINISHED);
          return socket;
        }, () => null),
    ),
  );
  const held = outcomes.filter((socket) => socket !== null);
  return { held, failed: count - held.length };
}

Deno.test({
  name:
    "internal listener: unfinished heads are closed by the header timeout, and a flood past the open-file limit leaves the replica alive, serving its public port and answering forwarded calls",
  ignore: BIN === null,
  fn: async () => {
    // One repository, owned by the attacked replica alone: a read through the other is forwarded.
    const name = Array.from({ length: 50 }, (_, i) => `up${i}`).find((candidate) =>
      ownersOf(`org/${candidate}`, { replicas: NAMES, replication: 1 })[0] === "replica-1"
    )!;
    const folder = await tempDir("sg-upstream-");
    const work = await createRepo({ "a.txt": "alpha\nword beta\n" }, { parent: folder, name });
    await work.commit("initial");
    await work.git("clone", "-q", "--bare", work.path, join(folder, `${name}.git`));
    const upstream = startCountingUpstream(folder);
    const cluster = await startCluster(BIN!, {
      replicas: 2,
      replication: 1,
      // Reads of a.txt and the Git route only: no search index is built.
      replica: (i) =>
        i === 1
          ? {
            env: {
              ...NO_SEARCH_INDEX,
              SOURCEGRAPH_HEADER_TIMEOUT: "2s",
              // The flood is to reach the open-file limit, not these caps.
              SOURCEGRAPH_INTERNAL_MAX_CONNECTIONS: "5000",
              SOURCEGRAPH_INTERNAL_MAX_CONNECTIONS_PER_ADDRESS: "5000",
            },
            ulimitFiles: 256,
          }
          : { env: NO_SEARCH_INDEX },
    });
    const sockets: net.Socket[] = [];
    try {
      const [entry, attacked] = [cluster.replicas[0]!, cluster.replicas[1]!];
      const registered = await adminRequest(entry.url, "/repos", {
        token: CLUSTER_TOKEN,
        method: "POST",
        key: "register",
        body: {
          name: `org/${name}`,
          source: upstream.url(name),
          public_read: true,
          policy: { branches: ["main"] },
        },
      });
      assertEquals(registered.status, 202, await registered.text());
      await eventually(() => cluster.placed([0, 1], 1), "the repository on its owner");
      const repo = `org/${name}`;
      await eventually(async () => (await read(entry.url, repo))[0] === 200, "a forwarded read");
      const port = cluster.internalPorts[1];

      // Unfinished heads (fewer than the open-file limit takes): each is closed by the header
      // timeout. Before, they were held for as long as the client liked.
      const first = await holdHeads(port, 40);
      assertEquals(first.failed, 0, "the heads could not even connect");
      const cut = await Promise.all(first.held.map((socket) => socketOutcome(socket, 30_000)));
      assertEquals(
        cut.filter((outcome) => outcome.closed).length,
        40,
        "unfinished heads still open long after the header timeout",
      );
      for (const socket of first.held) socket.destroy();
      // By the header timeout: none was evicted to make room, none refused.
      const after = await internalConnections(attacked.url);
      assert(after.timed_out >= 40, JSON.stringify(after));
      assertEquals([after.evicted, after.refused], [0, 0], JSON.stringify(after));

      // A flood far past the open-file limit, every connection holding an unfinished head, while
      // a client of the public port reads over its keep-alive connection.
      assertEquals((await read(attacked.url, repo))[0], 200);
      const flood = await holdHeads(port, 1_500);
      sockets.push(...flood.held);
      assert(flood.failed < 1_500, "no connection of the flood got through at all");
      for (let i = 0; i < 20; i++) {
        const [status, text] = await read(attacked.url, repo);
        assertEquals(status, 200, `a public read failed during the flood: ${text}`);
        assertIncludes(text, "word beta");
      }
      assert(await alive(attacked.pid), "the replica died");
      assert(
        attacked.log.some((line) =>
          line.includes("open file limit reached on the internal listener")
        ),
        `the flood never reached the open-file limit:\n${attacked.log.slice(-20).join("\n")}`,
      );

      // The flood is shed: every connection of it is closed by the replica.
      const shed = await Promise.all(flood.held.map((socket) => socketOutcome(socket, 120_000)));
      assertEquals(
        shed.filter((outcome) => outcome.closed).length,
        flood.held.length,
        "connections of the flood still open",
      );
      for (const socket of flood.held) socket.destroy();
      assert(await alive(attacked.pid), "the replica died");

      // Forwarded calls are answered again, and so is a request with the cluster secret.
      await eventually(
        async () => (await read(entry.url, repo))[0] === 200,
        "a forwarded read after the flood",
      );
      const { clusterSecret } = await loadKeyFile(cluster.keyFile);
      const id = Number((await cluster.query("SELECT id FROM repositories"))[0].id);
      // A new connection may still be closed while the replica counts the flood's closed
      // sockets down below the cap it lowered (as a client that retries sees): it is answered soon.
      await eventually(async () => {
        const refs = await fetch(
          `http://127.0.0.1:${port}/internal/v1/git/${id}/info/refs?service=git-upload-pack`,
          { headers: { authorization: `Bearer ${clusterSecret}` } },
        ).catch(() => null);
        if (refs === null) return false;
        const text = await refs.text();
        return refs.status === 200 && text.includes("git-upload-pack");
      }, "a request with the cluster secret after the flood");
      const stranger = await fetch(`http://127.0.0.1:${port}/internal/v1/git/${id}/info/refs`);
      assertEquals(stranger.status, 401);
      await stranger.body?.cancel();
      assertEquals((await read(attacked.url, repo))[0], 200);

      // The other replica's internal listener has the default caps: one address gets a quarter
      // of 256; the next connection from it is refused, one from another address is not.
      const other = cluster.internalPorts[0];
      const crowd = await Promise.all(
        Array.from({ length: 64 }, () => connectFrom(other, { localAddress: "127.0.0.3" })),
      );
      sockets.push(...crowd);
      for (const socket of crowd) socket.write(UNFINISHED);
      const extra = await connectFrom(other, { localAddress: "127.0.0.3" });
      sockets.push(extra);
      extra.write(`${UNFINISHED}${clusterSecret}\r\n\r\n`);
      const refused = await socketOutcome(extra, 30_000);
      assert(refused.text.startsWith("HTTP/1.1 503"), refused.text);
      assertIncludes(refused.text, "TOO_MANY_CONNECTIONS");
      assertEquals((await internalConnections(entry.url)).refused, 1);
      const elsewhere = await fetch(
        `http://127.0.0.1:${other}/internal/v1/git/${id}/info/refs?service=git-upload-pack`,
        { headers: { authorization: `Bearer ${clusterSecret}` } },
      );
      // Past the front and the secret: replica-0 holds nothing of the repository.
      assertEquals(elsewhere.status, 404);
      await elsewhere.body?.cancel();
      assertEquals(
        attacked.log.filter((line) => line.includes("unexpectedly")),
        [],
        "an unexpected failure was logged",
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${cluster.logTail(40)}`, { cause: error });
    } finally {
      for (const socket of sockets) socket.destroy();
      await cluster.stop();
      await upstream.stop();
      await removeDir(folder);
    }
  },
});

Deno.test("internal listener: its caps default to 256 connections and a quarter from one address, and a bad value stops the start with one line", () => {
  const replica: Record<string, string> = {
    SOURCEGRAPH_DATABASE_URL: "postgres://u:p@db.internal:5432/sg",
    SOURCEGRAPH_CREDENTIAL_KEY_FILE: "/etc/sourcegraph/credential.key",
    SOURCEGRAPH_REPLICA_NAME: "sg-1",
    SOURCEGRAPH_INTERNAL_URL: "http://10.0.0.11:9001",
  };
  const limits = (env: Record<string, string>) => {
    const read = readSettings((name) => ({ ...replica, ...env })[name], "/");
    return read.ok ? read.settings.database!.cluster.internalLimits : read.problems;
  };
  assertEquals(limits({}), { maxConnections: 256, maxConnectionsPerAddress: 64 });
  assertEquals(limits({ SOURCEGRAPH_INTERNAL_MAX_CONNECTIONS: "40" }), {
    maxConnections: 40,
    maxConnectionsPerAddress: 10,
  });
  assertEquals(limits({ SOURCEGRAPH_INTERNAL_MAX_CONNECTIONS_PER_ADDRESS: "3" }), {
    maxConnections: 256,
    maxConnectionsPerAddress: 3,
  });
  const problems = limits({ SOURCEGRAPH_INTERNAL_MAX_CONNECTIONS: "0" }) as string[];
  assertEquals(problems.length, 1, problems.join("\n"));
  assertIncludes(problems[0], "SOURCEGRAPH_INTERNAL_MAX_CONNECTIONS");
});
