/**
 * The deep-JSON flood against the service started as its README says (the
 * narrow start flags): a token holder reads a file back to back, first
 * alone, then for `--seconds` beside 16 loops of anonymous 3.9 MB MCP bodies
 * nested 1.9 million arrays deep, from 4 loopback source addresses, all on
 * the same machine. Prints the reader's p50/p95 quiet and under the flood,
 * their ratio (target: p50 under 3x), failed reads (target 0), and the
 * service's RSS before, at its peak and 30 s after (targets: growth under
 * 300 MiB, back near the start).
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env \
 *   --allow-net=127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5 \
 *   tests/bench/sourcegraph_flood_bench.ts [--seconds 12]
 *
 * @module
 */

import { parseArgs } from "node:util";
import { percentile } from "../support/bench_stats.ts";
import { deepJsonFlood } from "../support/deep_json_flood.ts";
import { createRepo, removeDir, tempDir } from "../support/git_repo.ts";
import { portOf, rssMib } from "../support/raw_http.ts";
import { startService } from "../support/sourcegraph_service.ts";

const { values } = parseArgs({ args: Deno.args, options: { seconds: { type: "string" } } });
const SECONDS = Number(values.seconds ?? 12);
const TOKEN = "b".repeat(40);

const parent = await tempDir("sg-flood-bench-");
const repo = await createRepo({
  "a.txt": "alpha\n".repeat(200),
  ".gitignore": ".sourcegraph/\n",
}, { parent, name: "pub" });
const service = await startService(repo.path, { SOURCEGRAPH_API_TOKEN: TOKEN });
try {
  const read = async (): Promise<string | null> => {
    const response = await fetch(`${service.url}/sourcegraph/v1/repo/read?repo=local/pub`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ Path: "a.txt", EndLine: 50 }),
    });
    await response.arrayBuffer();
    return response.status === 200 ? null : String(response.status);
  };
  for (let i = 0; i < 50; i++) await read();
  const quiet: number[] = [];
  for (const until = performance.now() + 3_000; performance.now() < until;) {
    const started = performance.now();
    await read();
    quiet.push(performance.now() - started);
  }
  const before = await rssMib(service.pid);
  const flood = await deepJsonFlood(portOf(service.url), {
    pid: service.pid,
    addresses: ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"],
    threads: 16,
    seconds: SECONDS,
    read,
  });
  let settled = 0;
  for (let i = 0; i < 30; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    settled = await rssMib(service.pid);
  }
  const ms = (value: number) => `${value.toFixed(2)} ms`;
  const quietP50 = percentile(quiet, 50);
  const floodP50 = percentile(flood.latencies, 50);
  console.log(`deep-JSON flood, ${SECONDS} s, 16 loops from 4 addresses (${flood.attacks} bodies)`);
  console.log(
    `  reads quiet:  ${quiet.length}, p50 ${ms(quietP50)}, p95 ${ms(percentile(quiet, 95))}`,
  );
  console.log(
    `  reads flood:  ${flood.latencies.length}, p50 ${ms(floodP50)}, p95 ${
      ms(percentile(flood.latencies, 95))
    }, failed ${flood.failures.length}`,
  );
  console.log(`  p50 ratio flood/quiet: ${(floodP50 / quietP50).toFixed(2)}x (target < 3x)`);
  console.log(
    `  RSS: before ${before.toFixed(0)} MiB, peak ${flood.peakRssMib.toFixed(0)} MiB (growth ${
      (flood.peakRssMib - before).toFixed(0)
    }, target < 300), 30 s after ${settled.toFixed(0)} MiB`,
  );
} finally {
  await service.stop();
  await removeDir(parent);
}
