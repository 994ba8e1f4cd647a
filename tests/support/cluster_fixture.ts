/**
 * What the cluster tests share: bare upstream repositories behind a
 * counting git server, a cluster of replicas over them (its own PostgreSQL
 * server), registration and admin calls with the service token, MCP clients,
 * and readers that read in a loop around a replica's death. Each case is a
 * module of its own, so the suite runs the cases side by side.
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { assertEquals } from "./assert.ts";
import { CLUSTER_TOKEN, type ClusterHarness, eventually, startCluster } from "./cluster_harness.ts";
import { type CountingUpstream, startCountingUpstream } from "./counting_upstream.ts";
import { createRepo, removeDir, tempDir } from "./git_repo.ts";
import { adminRequest, connectClient } from "./sourcegraph_service.ts";
import { callTool } from "./tool_calls.ts";

/** Bare upstream repositories served by a counting git server. */
export interface Upstreams {
  folder: string;
  upstream: CountingUpstream;
  heads: Map<string, string>;
}

/**
 * `count` bare upstream repositories `up<i>`, each with its own word in a.txt and a second
 * file, `src/b.ts` in those listed in `typescript` and `src/b.txt` in the others: each
 * replica's index build of a TypeScript file starts the symbol parser, which only the symbol
 * answers need.
 */
export async function upstreams(count: number, typescript: number[] = []): Promise<Upstreams> {
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

/** The admin API of one replica, with the service token. */
export function admin(
  url: string,
  path: string,
  init: { method: string; body?: unknown; key?: string },
): Promise<Response> {
  return adminRequest(url, path, { token: CLUSTER_TOKEN, ...init });
}

/** Registers `org/<name>` of `up` for each of `names` through replica 0. */
export async function register(
  cluster: ClusterHarness,
  up: Upstreams,
  names: string[],
): Promise<void> {
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

/** Runs `fn` with an MCP client of `base` (the service token), closing it after. */
export async function withClient<T>(base: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = await connectClient(base, { token: CLUSTER_TOKEN });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/**
 * A cluster over `options.upstreams` repositories for `fn`, with a PostgreSQL
 * server of its own; on a failure the replicas' last log lines.
 */
export async function withCluster(
  bin: string,
  options: {
    upstreams: number;
    /** The upstreams whose second file is TypeScript (default none). */
    typescript?: number[];
    replicas: number;
    replication?: number;
    heartbeatMs?: number;
    /** More environment for every replica. */
    env?: Record<string, string>;
  },
  fn: (cluster: ClusterHarness, up: Upstreams) => Promise<void>,
): Promise<void> {
  const up = await upstreams(options.upstreams, options.typescript);
  const cluster = await startCluster(bin, { ...options, replica: () => ({ env: options.env }) });
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

/** Clients reading `a.txt` of the repositories in turn until stopped, counting what failed. */
export interface Readers {
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
export const PACE_MS = 400;

/** Starts a reader loop on each of `clients` over `repositories` in turn. */
export function startReaders(clients: Client[], repositories: string[]): Readers {
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
