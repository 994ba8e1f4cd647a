/**
 * Soak of the sourcegraph service under hostile traffic, in one run: 32
 * authenticated MCP clients (SDK `Client`, 9 reads to 1 search) for a
 * measured period alone, then for the same period beside a hostile
 * background from the same machine: 200 slow sockets dripping header bytes
 * (reopened when closed), 8 loops of anonymous JSON-RPC batches of 100
 * `read_many` calls, 8 loops of initialize requests with distinct `plugins`
 * values, and 4 loops of 100 MB chunked request bodies. Prints authenticated errors (must be 0), the
 * throughput ratio hostile/clean (target >= 0.8), read p50/p99 in both
 * phases, and the service's peak and settled RSS.
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env \
 *   --allow-net=127.0.0.1 tests/bench/sourcegraph_soak.ts [--seconds 60]
 *
 * @module
 */

import { join } from "node:path";
import { parseArgs } from "node:util";
import { percentile } from "../support/bench_stats.ts";
import { initializeMessage, postMcp, toolCall } from "../support/mcp_messages.ts";
import { git, removeDir, tempDir } from "../support/git_repo.ts";
import { rssMib } from "../support/raw_http.ts";
import {
  connectClient,
  type RunningService,
  startService,
} from "../support/sourcegraph_service.ts";

const { values } = parseArgs({ args: Deno.args, options: { seconds: { type: "string" } } });
const SECONDS = Number(values.seconds ?? 60);
const CLIENTS = 32;
const FILES = 2_000;
const TOKEN = "s".repeat(40);

interface Phase {
  calls: number;
  errors: number;
  reads: number[];
  searches: number[];
  errorKinds: Map<string, number>;
}

async function clients(service: RunningService, paths: string[], seconds: number): Promise<Phase> {
  const phase: Phase = { calls: 0, errors: 0, reads: [], searches: [], errorKinds: new Map() };
  const until = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
    const client = await connectClient(service.url, { token: TOKEN });
    try {
      for (let i = c; performance.now() < until; i++) {
        const search = i % 10 === 9;
        const started = performance.now();
        const result = await client.callTool(
          search
            ? {
              name: "search",
              arguments: { repo: "local/project", pattern: `needle${i % 50}`, fixed_strings: true },
            }
            : { name: "read", arguments: { repo: "local/project", path: paths[i % paths.length] } },
        ).catch((error: Error) => ({ isError: true, content: [{ text: String(error) }] }));
        const ms = performance.now() - started;
        phase.calls++;
        if (result.isError) {
          phase.errors++;
          const text = JSON.stringify(result.content).slice(0, 200);
          phase.errorKinds.set(text, (phase.errorKinds.get(text) ?? 0) + 1);
        }
        (search ? phase.searches : phase.reads).push(ms);
      }
    } finally {
      await client.close();
    }
  }));
  return phase;
}

/** Starts the hostile background; returns its stop function and counters. */
function hostile(service: RunningService): { stop: () => Promise<Record<string, number>> } {
  const port = Number(new URL(service.url).port);
  const counts = { slowReopened: 0, batches: 0, pluginValues: 0, bigBodies: 0 };
  let running = true;
  const encoder = new TextEncoder();
  const slow = Array.from({ length: 200 }, async () => {
    while (running) {
      try {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port });
        counts.slowReopened++;
        try {
          for (const ch of "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: ") {
            if (!running) break;
            await conn.write(encoder.encode(ch));
            await new Promise((resolve) => setTimeout(resolve, 1000));
          }
          while (running) {
            await conn.write(encoder.encode("a"));
            await new Promise((resolve) => setTimeout(resolve, 1000));
          }
        } finally {
          try {
            conn.close();
          } catch {
            // closed by the server
          }
        }
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  });
  // Its own connection pool: the attacker's closed connections never reach the clients' pool.
  const pool = Deno.createHttpClient({});
  const post = (query: string, body: string) =>
    postMcp(service.url, body, { query, client: pool }).then((r) => r.body?.cancel()).catch(
      () => {},
    );
  const batch = JSON.stringify(Array.from(
    { length: 100 },
    (_, id) =>
      toolCall(id, "read_many", { repo: "local/project", files: [{ path: "f0/file0000.ts" }] }),
  ));
  const abuse = Array.from({ length: 8 }, async () => {
    while (running) {
      await post("", batch);
      counts.batches++;
    }
  });
  const init = JSON.stringify(initializeMessage());
  let pluginValue = 0;
  const plugins = Array.from({ length: 8 }, async () => {
    while (running) {
      await post(`?plugins=p-${pluginValue++}`, init);
      counts.pluginValues++;
    }
  });
  const chunk = new Uint8Array(1024 * 1024).fill(0x20);
  const bodies = Array.from({ length: 4 }, async () => {
    while (running) {
      try {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port });
        try {
          await conn.write(encoder.encode(
            "POST /sourcegraph/v1/repo/read?repo=local/project HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
              "Transfer-Encoding: chunked\r\n\r\n",
          ));
          for (let i = 0; i < 100 && running; i++) {
            await conn.write(encoder.encode(`${chunk.length.toString(16)}\r\n`));
            await conn.write(chunk);
            await conn.write(encoder.encode("\r\n"));
          }
        } catch {
          // refused and closed by the server, as it should be
        } finally {
          try {
            conn.close();
          } catch {
            // closed
          }
        }
        counts.bigBodies++;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all([...slow, ...abuse, ...plugins, ...bodies]);
      pool.close();
      return counts;
    },
  };
}

const parent = await tempDir("sg-soak-");
try {
  const repo = join(parent, "project");
  await Deno.mkdir(repo);
  await git(repo, ["init", "-q", "-b", "main"]);
  await Deno.writeTextFile(join(repo, ".gitignore"), ".sourcegraph/\n");
  const paths: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const path = `f${i % 20}/file${String(i).padStart(4, "0")}.ts`;
    // Each needle word stands in 1 file of 50, as a specific identifier would.
    const lines = Array.from(
      { length: 200 },
      (_, l) =>
        `export const v${l} = ${i * l}; // ${l === 0 ? `needle${i % 50}` : "x".repeat(l % 60)}`,
    );
    await Deno.mkdir(join(repo, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(repo, path), lines.join("\n") + "\n");
    paths.push(path);
  }
  await git(repo, ["add", "-A"]);
  await git(repo, ["commit", "-q", "-m", "corpus"]);
  // Attacker and clients share 127.0.0.1 here, where in a deployment they have their own
  // addresses: the per-address connection cap is set to the global one so that it does not
  // refuse the clients' own connections (the global cap, 512, still applies).
  const service = await startService(repo, {
    SOURCEGRAPH_API_TOKEN: TOKEN,
    SOURCEGRAPH_MAX_CONNECTIONS_PER_ADDRESS: "512",
  });
  let peak = await rssMib(service.pid);
  const sampler = setInterval(async () => {
    peak = Math.max(peak, await rssMib(service.pid).catch(() => 0));
  }, 500);
  try {
    await clients(service, paths, 5); // warm-up: search corpus, pooled servers
    const start = await rssMib(service.pid);
    console.log(`corpus: ${FILES} files; ${CLIENTS} clients, ${SECONDS} s per phase`);
    const clean = await clients(service, paths, SECONDS);
    const background = hostile(service);
    const attacked = await clients(service, paths, SECONDS);
    const counts = await background.stop();
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    const settled = await rssMib(service.pid);
    const rate = (phase: Phase) => phase.calls / SECONDS;
    const row = (name: string, phase: Phase) =>
      `| ${name} | ${rate(phase).toFixed(0)} calls/s | ${phase.errors} | ${
        percentile(phase.reads, 50).toFixed(1)
      } / ${percentile(phase.reads, 99).toFixed(1)} ms | ${
        percentile(phase.searches, 50).toFixed(1)
      } ms |`;
    console.log("| phase | throughput | authenticated errors | read p50 / p99 | search p50 |");
    console.log("| --- | --- | --- | --- | --- |");
    console.log(row("clean", clean));
    console.log(row("hostile", attacked));
    console.log(
      `throughput ratio hostile/clean: ${
        (rate(attacked) / rate(clean)).toFixed(2)
      } (target >= 0.8)`,
    );
    console.log(
      `service RSS: ${start.toFixed(0)} MiB after warm-up, peak ${peak.toFixed(0)} MiB, ` +
        `settled ${settled.toFixed(0)} MiB 15 s after the hostile phase`,
    );
    console.log(`hostile background: ${JSON.stringify(counts)}`);
    for (const [kind, count] of [...clean.errorKinds, ...attacked.errorKinds]) {
      console.log(`authenticated error x${count}: ${kind}`);
    }
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    console.log(
      metrics.split("\n").filter((l) => l.startsWith("sourcegraph_connections")).join("\n"),
    );
  } finally {
    clearInterval(sampler);
    await service.stop();
  }
} finally {
  await removeDir(parent);
}
