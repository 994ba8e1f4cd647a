/**
 * What Markdown built to be slow to render costs everyone else: token reads
 * (`POST /sourcegraph/v1/repo/read` of a one-line file) on the service as
 * `deno task start` runs it, measured idle, then while one anonymous address
 * reloads six pathological READMEs (tables, emphasis, nesting) on four
 * connections without pause: p50 / p95 of the reads, `/healthz` answers,
 * and the service's peak RSS (from `ps`).
 *
 * ```sh
 * deno run --allow-read --allow-write --allow-run --allow-env --allow-net=127.0.0.1 \
 *   tests/bench/markdown_bench.ts [--seconds 20] [--per-minute 600]
 * ```
 *
 * @module
 */

import { percentile } from "../support/bench_stats.ts";
import { createRepo, removeDir, tempDir } from "../support/git_repo.ts";
import { pathologicalReadmeFiles, pathologicalReadmePages } from "../support/hostile_markdown.ts";
import { rssMib } from "../support/raw_http.ts";
import { readAlpha, startService } from "../support/sourcegraph_service.ts";

const args = Deno.args;
const SECONDS = args.includes("--seconds") ? Number(args[args.indexOf("--seconds") + 1]) : 20;
// The anonymous allowance per minute (the service's default, 600, unless given).
const PER_MINUTE = args.includes("--per-minute") ? args[args.indexOf("--per-minute") + 1] : "600";
const TOKEN = "b".repeat(40);

const parent = await tempDir("sg-markdown-bench-");
const repo = await createRepo(pathologicalReadmeFiles(), { parent, name: "project" });
const service = await startService(repo.path, {
  SOURCEGRAPH_API_TOKEN: TOKEN,
  SOURCEGRAPH_ANONYMOUS_PER_MINUTE: PER_MINUTE,
});
const pages = pathologicalReadmePages(service.url);

async function timedRead(): Promise<number> {
  const started = performance.now();
  if ((await readAlpha(service.url, TOKEN)) !== null) throw new Error("read failed");
  return performance.now() - started;
}

async function reads(seconds: number): Promise<{ ms: number[]; health: number; rss: number }> {
  const ms: number[] = [];
  let health = 0;
  let rss = await rssMib(service.pid);
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    ms.push(await timedRead());
    if ((await fetch(`${service.url}/healthz`).then((r) => r.text())) === "ok\n") health++;
    rss = Math.max(rss, await rssMib(service.pid));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { ms, health, rss };
}

const line = (name: string, run: { ms: number[]; health: number; rss: number }) =>
  `${name.padEnd(28)} reads ${String(run.ms.length).padStart(4)}  p50 ${
    percentile(run.ms, 50).toFixed(1)
  } ms  p95 ${percentile(run.ms, 95).toFixed(1)} ms  healthz ${run.health}  peak RSS ${
    run.rss.toFixed(0)
  } MiB`;

try {
  for (let i = 0; i < 20; i++) await timedRead();
  const idle = await reads(SECONDS / 2);
  console.log(line("idle", idle));
  let stop = false;
  let loaded = 0;
  let limited = 0;
  const loops = Array.from({ length: 4 }, async (_, n) => {
    for (let i = n; !stop; i++) {
      const status = await fetch(pages[i % pages.length])
        .then(async (r) => (await r.arrayBuffer(), r.status)).catch(() => 0);
      if (status === 429) limited++;
      else loaded++;
    }
  });
  const flooded = await reads(SECONDS);
  stop = true;
  await Promise.all(loops);
  console.log(line("anonymous README loop", flooded));
  console.log(
    `pages loaded by the loop: ${loaded} (and ${limited} answered 429); read p50 ratio ${
      (percentile(flooded.ms, 50) / percentile(idle.ms, 50)).toFixed(2)
    }x, p95 ratio ${(percentile(flooded.ms, 95) / percentile(idle.ms, 95)).toFixed(2)}x`,
  );
  const metrics = await fetch(`${service.url}/metrics`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  }).then((r) => r.text());
  console.log(metrics.split("\n").filter((l) => l.startsWith("sourcegraph_markdown")).join("\n"));
} finally {
  await service.stop();
  await removeDir(parent);
}
