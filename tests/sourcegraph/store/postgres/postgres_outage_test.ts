// A replica process (started as the README starts one) through a
// PostgreSQL outage: while the server is stopped it retries in one loop
// whose attempts the log counts, its descriptors stay bounded, and once the
// server is back it holds its usual connections (one listening), says
// "reachable again" once and takes writes without a restart.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { assert, assertEquals } from "../../../support/assert.ts";
import {
  CLUSTER_TOKEN,
  type ClusterHarness,
  NO_SEARCH_INDEX,
  startCluster,
} from "../../../support/cluster_harness.ts";
import { startCountingUpstream } from "../../../support/counting_upstream.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";
import { postgresBin } from "../../../support/postgres_server.ts";
import { adminRequest, connectClient } from "../../../support/sourcegraph_service.ts";
import { callTool } from "../../../support/tool_calls.ts";

const BIN = postgresBin();
// The replica's pools: one listening connection, 4 for statements, 8 for sync leases.
const POOL_BOUND = 1 + 4 + 8;
// Attempts the replica makes while the server is down before the test brings it back.
const ATTEMPTS_DOWN = 9;
// The longest wait between attempts (5 s by default): 2 s reaches the cap by the fifth attempt
// and still leaves a log line time to arrive, on a busy machine, before the next attempt.
const MAX_WAIT_S = 2;

// Polls `condition` with short pauses, a bounded number of times (not a time budget).
async function until(
  condition: () => Promise<boolean> | boolean,
  what: string,
  tries = 3_000,
): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never happened: ${what}`);
}

// The replica's connections to the cluster's database (the test's own query excluded).
async function connections(cluster: ClusterHarness): Promise<{ all: number; listening: number }> {
  const rows = await cluster.query(
    `SELECT count(*)::int AS n, count(*) FILTER (WHERE query ILIKE 'LISTEN %')::int AS l
    FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
    AND backend_type = 'client backend'`,
  );
  return { all: Number(rows[0].n), listening: Number(rows[0].l) };
}

// The replica's open descriptors. Deno reads /proc only with --allow-all: ls reads it for us.
async function descriptors(pid: number): Promise<number> {
  const out = await new Deno.Command("ls", { args: ["-1", `/proc/${pid}/fd`], stdout: "piped" })
    .output();
  assert(out.success, `ls /proc/${pid}/fd`);
  return new TextDecoder().decode(out.stdout).split("\n").filter((line) => line !== "").length;
}

// The waits the replica logged before its next attempts, in seconds.
function waitsLogged(log: string[]): number[] {
  return log.flatMap((line) => {
    const match = /still unreachable \(attempt \d+, next in ([\d.]+) s\)/.exec(line);
    return match ? [Number(match[1])] : [];
  });
}

function attemptsLogged(log: string[]): number[] {
  return log.flatMap((line) => {
    const match = /control store is still unreachable \(attempt (\d+),/.exec(line);
    return match ? [Number(match[1])] : [];
  });
}

Deno.test({
  name:
    "PostgreSQL outage: a replica retries in one loop with bounded descriptors, then holds its usual connections, says so once and takes writes without a restart",
  ignore: BIN === null,
  fn: async () => {
    const folder = await tempDir("sg-outage-up-");
    const work = await createRepo({ "a.txt": "alpha\n" }, { parent: folder, name: "work" });
    await work.git("clone", "-q", "--bare", work.path, join(folder, "up.git"));
    const upstream = startCountingUpstream(folder);
    const cluster = await startCluster(BIN!, {
      replicas: 1,
      // Reads of a.txt only: no search index is built.
      replica: () => ({
        env: { ...NO_SEARCH_INDEX, SOURCEGRAPH_RECONNECT_MAX_WAIT: `${MAX_WAIT_S}s` },
      }),
    });
    const replica = cluster.replicas[0]!;
    const register = (name: string) =>
      adminRequest(replica.url, "/repos", {
        token: CLUSTER_TOKEN,
        method: "POST",
        key: `register-${name}`,
        body: {
          name,
          source: upstream.url("up"),
          public_read: true,
          policy: { branches: ["main"] },
        },
      });
    let reader: Client | null = null;
    try {
      const before = await register("org/before");
      assertEquals(before.status, 202, await before.text());
      reader = await connectClient(replica.url, { token: CLUSTER_TOKEN });
      const read = async () =>
        (await callTool(reader!, "read", { repo: "org/before", path: "a.txt" })).code;
      await until(async () => (await read()) === "OK", "org/before reads");
      // The usual connections: the most seen over a while of heartbeats, one of them listening.
      let usual = 0;
      for (let i = 0; i < 20; i++) {
        const now = await connections(cluster);
        assertEquals(now.listening, 1, "one listening connection");
        usual = Math.max(usual, now.all);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const usualDescriptors = await descriptors(replica.pid);
      assert(usual <= POOL_BOUND, `${usual} connections`);

      await cluster.server.halt();
      let mostDescriptors = 0;
      // Counted once per failed attempt, not per poll (each count runs ls): what an attempt
      // leaks stays open, so the count after each one shows any growth.
      let counted = -1;
      await until(
        async () => {
          const failed = attemptsLogged(replica.log).length;
          if (failed !== counted) {
            counted = failed;
            mostDescriptors = Math.max(mostDescriptors, await descriptors(replica.pid));
          }
          return failed >= ATTEMPTS_DOWN;
        },
        `${ATTEMPTS_DOWN} reconnection attempts logged`,
        1_200,
      );
      const down = await register("org/during");
      assertEquals(down.status, 503);
      assertEquals((await down.json()).code, "DEPENDENCY_UNAVAILABLE");
      assertEquals(await read(), "OK", "reads answer from the cache through the outage");

      await cluster.server.start();
      const failedBeforeStart = attemptsLogged(replica.log).length;
      await until(
        () => replica.log.some((line) => line.includes("control store is reachable again")),
        "the log says the store is reachable again",
      );
      // Attempts counted once each, in order: one loop, not a chain per failure.
      const attempts = attemptsLogged(replica.log);
      assertEquals(attempts, attempts.map((_, i) => i + 1));
      assert(attempts.length >= ATTEMPTS_DOWN, attempts.join(","));
      // The waits double up to the configured longest one.
      const waits = waitsLogged(replica.log);
      assert(waits.every((wait) => wait <= MAX_WAIT_S), waits.join(","));
      assert(
        waits.slice(4, ATTEMPTS_DOWN).every((wait) => wait >= MAX_WAIT_S / 2),
        waits.join(","),
      );
      // Back at the next attempt: at most the one under way when the server came back failed.
      assert(attempts.length <= failedBeforeStart + 1, `${failedBeforeStart} -> ${attempts}`);

      // Back to the usual connections, and staying there for a run of polls.
      let steady = 0;
      await until(async () => {
        const now = await connections(cluster);
        mostDescriptors = Math.max(mostDescriptors, await descriptors(replica.pid));
        steady = now.listening === 1 && now.all <= usual ? steady + 1 : 0;
        return steady >= 20;
      }, `the usual ${usual} connections, one listening`);
      assert(
        mostDescriptors <= usualDescriptors + 16,
        `descriptors ${usualDescriptors} before, up to ${mostDescriptors} through the outage`,
      );

      const after = await register("org/after");
      assertEquals(after.status, 202, await after.text());
      const now = await connections(cluster);
      assertEquals(now.listening, 1);
      assert(now.all <= POOL_BOUND, `${now.all} connections`);
      const said = (part: string) => replica.log.filter((line) => line.includes(part)).length;
      assertEquals(said("control store is reachable again"), 1);
      assertEquals(said("control store is unreachable; serving from the cache"), 1);
      assertEquals(await read(), "OK");
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${cluster.logTail(40)}`, { cause: error });
    } finally {
      await reader?.close();
      await cluster.stop();
      await upstream.stop();
      await removeDir(folder);
    }
  },
});
