/**
 * sourcegraph as 1 and as 3 replicas over one PostgreSQL, on one machine:
 * reads per second and read latency from 16 MCP clients (each replica gets
 * its share of them), PostgreSQL transactions per read (against an idle
 * window of the same length, which counts the heartbeats), mirror bytes
 * per replica, failover (SIGKILL of an owner → the first successful read
 * of one of its repositories, with replication 2 and with 1) and
 * rebalance (restart → every repository on its owners again). The
 * repositories: the Git source tree (the corpus tarball) and 11 small
 * synthetic ones. Heartbeat and expiry are the defaults (2 s, 6 s).
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env --allow-sys=uid \
 *     --allow-net=127.0.0.1 tests/bench/sourcegraph_cluster_bench.ts [--seconds 10] [--corpus PATH]
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { ownersOf } from "../../sourcegraph/cluster/placement.ts";
import { percentile } from "../support/bench_stats.ts";
import {
  CLUSTER_TOKEN,
  type ClusterHarness,
  eventually,
  startCluster,
} from "../support/cluster_harness.ts";
import { startCountingUpstream } from "../support/counting_upstream.ts";
import { createRepo, removeDir, tempDir } from "../support/git_repo.ts";
import { postgresBin } from "../support/postgres_server.ts";
import { adminRequest, connectClient } from "../support/sourcegraph_service.ts";
import { callTool } from "../support/tool_calls.ts";

const args = Deno.args;
const SECONDS = args.includes("--seconds") ? Number(args[args.indexOf("--seconds") + 1]) : 10;
const TARBALL = args.includes("--corpus")
  ? args[args.indexOf("--corpus") + 1]
  : new URL("../../../shared/corpora/git-1a3e64c6c4.tar.gz", import.meta.url).pathname;
const CLIENTS = 16;
const BIN = postgresBin();
if (BIN === null) throw new Error("PostgreSQL is needed (apt-get install postgresql)");

interface Target {
  repo: string;
  path: string;
}

async function git(cwd: string, gitArgs: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: gitArgs,
    cwd,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  if (!out.success) {
    throw new Error(`git ${gitArgs.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

// Bare upstreams: `git` (the corpus) and `syn1`…`syn11`; read targets across them.
async function upstreams(folder: string): Promise<Target[]> {
  await new Deno.Command("tar", { args: ["-xzf", TARBALL, "-C", folder] }).output();
  const tree = join(folder, "git");
  await git(tree, ["init", "-q", "-b", "main"]);
  await git(tree, ["add", "-A"]);
  await git(tree, ["-c", "user.name=b", "-c", "user.email=b@x", "commit", "-q", "-m", "corpus"]);
  await git(folder, ["clone", "-q", "--bare", tree, join(folder, "git.git")]);
  const files = (await git(tree, ["ls-files", "*.c"])).split("\n").filter((line) => line !== "");
  const targets: Target[] = files.filter((_, i) => i % Math.ceil(files.length / 40) === 0)
    .map((path) => ({ repo: "org/git", path }));
  for (let i = 1; i <= 11; i++) {
    const files: Record<string, string> = {};
    for (let f = 0; f < 200; f++) {
      files[`src/f${f}.ts`] = `export const v${f} = ${i * f};\n`.repeat(40);
    }
    const work = await createRepo(files, { parent: folder, name: `work${i}` });
    await work.commit("synthetic");
    await git(folder, ["clone", "-q", "--bare", work.path, join(folder, `syn${i}.git`)]);
    targets.push({ repo: `org/syn${i}`, path: `src/f${i * 7}.ts` });
  }
  return targets;
}

async function register(cluster: ClusterHarness, url: (name: string) => string): Promise<void> {
  for (const name of ["git", ...Array.from({ length: 11 }, (_, i) => `syn${i + 1}`)]) {
    const response = await adminRequest(cluster.replicas[0]!.url, "/repos", {
      token: CLUSTER_TOKEN,
      method: "POST",
      key: `bench-register-${name}`,
      body: {
        name: `org/${name}`,
        source: url(name),
        public_read: true,
        policy: { branches: ["main"] },
      },
    });
    if (response.status !== 202) throw new Error(await response.text());
  }
}

async function transactions(cluster: ClusterHarness): Promise<number> {
  const rows = await cluster.query(
    "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = 'cluster'",
  );
  return Number(rows[0].n);
}

// 16 clients spread over the live replicas read targets for `seconds`.
async function load(cluster: ClusterHarness, targets: Target[], seconds: number) {
  const live = cluster.replicas.filter((replica) => replica !== null);
  const clients: Client[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    clients.push(await connectClient(live[i % live.length]!.url, { token: CLUSTER_TOKEN }));
  }
  const idleBefore = await transactions(cluster);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const idle = (await transactions(cluster)) - idleBefore;
  const latencies: number[] = [];
  let failed = 0;
  const before = await transactions(cluster);
  const end = performance.now() + seconds * 1000;
  await Promise.all(clients.map(async (client, c) => {
    for (let n = 0; performance.now() < end; n++) {
      const target = targets[(c * 7 + n) % targets.length];
      const started = performance.now();
      const outcome = await callTool(client, "read", { repo: target.repo, path: target.path });
      latencies.push(performance.now() - started);
      if (outcome.code !== "OK") failed++;
    }
  }));
  const during = (await transactions(cluster)) - before;
  for (const client of clients) await client.close();
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failed,
    reads: latencies.length,
    queriesPerRead: Math.max(0, during - idle) / latencies.length,
  };
}

async function mirrorBytes(cluster: ClusterHarness, i: number): Promise<number> {
  const folder = join(cluster.replicaFolder(i), ".sourcegraph", "mirrors");
  const out = await new Deno.Command("du", { args: ["-sb", folder], stdout: "piped" }).output();
  return Number(new TextDecoder().decode(out.stdout).split("\t")[0]) || 0;
}

async function ready(cluster: ClusterHarness, targets: Target[]): Promise<void> {
  await eventually(() => cluster.placed(cluster.live()), "placed", 12_000);
  for (const replica of cluster.replicas) {
    if (!replica) continue;
    const client = await connectClient(replica.url, { token: CLUSTER_TOKEN });
    for (const target of targets.slice(0, 3)) {
      await eventually(
        async () => (await callTool(client, "read", { ...target })).code === "OK",
        "read",
        12_000,
      );
    }
    await client.close();
  }
}

// SIGKILL an owner of `repo`; read it through a replica that does not own it.
async function failover(cluster: ClusterHarness, target: Target, replication: number) {
  const owners = ownersOf(target.repo, { replicas: cluster.names, replication });
  const victim = cluster.names.indexOf(owners[0]);
  const readerIndex = cluster.names.findIndex((name) => !owners.includes(name));
  const reader = cluster.replicas[readerIndex >= 0 ? readerIndex : (victim + 1) % 3]!;
  const client = await connectClient(reader.url, { token: CLUSTER_TOKEN });
  const killedAt = performance.now();
  await cluster.kill(victim);
  let failed = 0;
  for (;;) {
    const outcome = await callTool(client, "read", { ...target });
    if (outcome.code === "OK") break;
    failed++;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const recovered = performance.now() - killedAt;
  await client.close();
  const rejoinAt = performance.now();
  await cluster.start(victim);
  await eventually(() => cluster.placed([0, 1, 2], replication), "rebalanced", 24_000);
  return { recovered, failed, rebalance: performance.now() - rejoinAt };
}

// Replicas with the product's heartbeat (2 s) and expiry (6 s).
function defaultCluster(replicas: number, replication: number): Promise<ClusterHarness> {
  return startCluster(BIN!, { replicas, replication, heartbeatMs: 2_000, expiryMs: 6_000 });
}

function tableRow(
  label: string,
  result: Awaited<ReturnType<typeof load>>,
  mirrors: number[],
): string {
  return `| ${label} | ${result.perSecond.toFixed(0)} | ${result.p50.toFixed(1)} / ${
    result.p99.toFixed(1)
  } | ${result.failed} of ${result.reads} | ${result.queriesPerRead.toFixed(3)} | ${
    mirrors.map((bytes) => (bytes / 1048576).toFixed(1)).join(" / ")
  } |`;
}

const folder = await tempDir("sg-cluster-bench-");
try {
  const targets = await upstreams(folder);
  const upstream = startCountingUpstream(folder);
  const rows: string[] = [];
  const one = await defaultCluster(1, 1);
  try {
    await register(one, upstream.url);
    await ready(one, targets);
    const result = await load(one, targets, SECONDS);
    rows.push(tableRow("1 replica ", result, [await mirrorBytes(one, 0)]));
  } finally {
    await one.stop();
  }
  const three = await defaultCluster(3, 2);
  let fail2 = "";
  try {
    await register(three, upstream.url);
    await ready(three, targets);
    const result = await load(three, targets, SECONDS);
    const bytes = await Promise.all([0, 1, 2].map((i) => mirrorBytes(three, i)));
    rows.push(tableRow("3 replicas", result, bytes));
    const f = await failover(three, targets[0], 2);
    fail2 = `replication 2: kill → first successful read of org/git ${
      f.recovered.toFixed(0)
    } ms (${f.failed} failed reads); restart → rebalanced ${(f.rebalance / 1000).toFixed(1)} s`;
  } finally {
    await three.stop();
  }
  const single = await defaultCluster(3, 1);
  let fail1 = "";
  try {
    await register(single, upstream.url);
    await ready(single, targets);
    const target = targets[targets.length - 1];
    const f = await failover(single, target, 1);
    fail1 = `replication 1: kill → first successful read of ${target.repo} ${
      f.recovered.toFixed(0)
    } ms (${f.failed} reads failed with DEPENDENCY_UNAVAILABLE meanwhile); restart → rebalanced ${
      (f.rebalance / 1000).toFixed(1)
    } s`;
  } finally {
    await single.stop();
  }
  await upstream.stop();
  console.log(
    `${CLIENTS} clients, ${SECONDS} s of reads each, 12 repositories (the Git tree and 11 synthetic)\n`,
  );
  console.log(
    "| cluster    | reads/s | read p50 / p99 ms | failed | PostgreSQL transactions per read | mirror MiB per replica |",
  );
  console.log(
    "| ---------- | ------- | ----------------- | ------ | -------------------------------- | ---------------------- |",
  );
  for (const row of rows) console.log(row);
  console.log(`\n${fail2}\n${fail1}`);
} finally {
  await removeDir(folder);
}
