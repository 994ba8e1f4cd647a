/**
 * Benchmark of repository plugins end to end over HTTP MCP (the SDK client
 * against the service as `deno task start` runs it), side by side in one run
 * on one repository:
 *
 * - read with plugins off (baseline) vs the same read enriched by a warm
 *   default plugin (the AssemblyScript related-content example);
 * - the first use of a precompiled plugin (a new instance key per call);
 * - 8 concurrent enriched reads (errors and plugin diagnostics counted);
 * - a looping plugin, stopped at TIMEOUT.
 *
 * Targets: warm enrichment adds at most 3 ms to p50, a first use takes at
 * most 100 ms, no errors at full concurrency, a loop stops within
 * TIMEOUT + 50 ms.
 *
 * Run: deno run --allow-read --allow-write --allow-run \
 *   --allow-env --allow-net=127.0.0.1 tests/bench/sourcegraph_plugins_bench.ts
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DIAGNOSTICS_HEADING } from "../../sourcegraph/render/attachment_text.ts";
import { percentile, timed } from "../support/bench_stats.ts";
import { createRepo, removeDir, tempDir } from "../support/git_repo.ts";
import { fixture } from "../support/plugin_service.ts";
import { connectClient, startService } from "../support/sourcegraph_service.ts";
import { texts } from "../support/tool_calls.ts";

const DOCS = 200;
const SAMPLES = Number(Deno.env.get("SG_PLUGIN_BENCH_SAMPLES") ?? 300);
const FIRST_USES = 30;
const CONCURRENT = 8;
const TIMEOUT_MS = 2000;
const TOKEN = "b".repeat(40);

const parent = await tempDir("sg-plugin-bench-");
try {
  const files: Record<string, string | Uint8Array> = {
    ".gitignore": ".sourcegraph/\n",
    "docs/related-content.sourcegraph.wasm": await Deno.readFile(
      new URL(
        "../../sourcegraph/plugins/examples/related_content/related-content.sourcegraph.wasm",
        import.meta.url,
      ),
    ),
    "fixture.sourcegraph.wasm": fixture("fixture"),
  };
  const related: Record<string, string[]> = {};
  for (let i = 0; i < DOCS; i++) {
    const lines = Array.from({ length: 120 }, (_, l) => `doc ${i} line ${l + 1}: lorem ipsum`);
    files[`docs/doc${i}.md`] = lines.join("\n") + "\n";
    related[`doc${i}.md`] = [`doc${(i + 1) % DOCS}.md`, `doc${(i + 7) % DOCS}.md`];
  }
  files["docs/related.json"] = JSON.stringify({ base_url: "https://code.example.org", related });
  const repo = await createRepo(files, { parent, name: "project" });
  await repo.commit("docs");
  const service = await startService(repo.path, {
    SOURCEGRAPH_PLUGINS_TIMEOUT: `${TIMEOUT_MS}ms`,
    SOURCEGRAPH_LOG_LEVEL: "debug",
    SOURCEGRAPH_API_TOKEN: TOKEN,
  });
  const clients: Client[] = [];
  try {
    for (let i = 0; i < 30 && !service.log.some((l) => l.includes("precompiled")); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const off = await connectClient(service.url, { token: TOKEN, query: "?plugins=off" });
    const auto = await connectClient(service.url, { token: TOKEN });
    clients.push(off, auto);
    const read = async (client: Client, args: Record<string, unknown>) => {
      const result = await client.callTool({
        name: "read",
        arguments: { repo: "local/project", ...args },
      });
      const blocks = texts(result);
      if (result.isError || blocks.some((b) => b.startsWith(DIAGNOSTICS_HEADING))) {
        throw new Error(`unexpected result: ${blocks.join("\n").slice(-300)}`);
      }
      return blocks;
    };
    const path = (i: number) => `docs/doc${i % DOCS}.md`;
    // Check the plugin really enriches, then warm both paths.
    const enriched = await read(auto, { path: path(0) });
    if (!enriched[0].includes("related:\n- https://code.example.org/")) {
      throw new Error("the plugin did not attach");
    }
    for (let i = 0; i < 20; i++) {
      await read(off, { path: path(i) });
      await read(auto, { path: path(i) });
    }
    const offTimes: number[] = [];
    const warmTimes: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      offTimes.push(await timed(() => read(off, { path: path(i) })));
      warmTimes.push(await timed(() => read(auto, { path: path(i) })));
    }
    // First use: a new args value is a new instance key; the module is already compiled.
    const firstTimes: number[] = [];
    for (let i = 0; i < FIRST_USES; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250)); // the spare process restarts
      firstTimes.push(
        await timed(() =>
          read(auto, {
            path: path(i),
            plugins: [{ name: "related-content", args: { sample: i } }],
          })
        ),
      );
    }
    const firstRuns = service.log.filter((l) => l.includes('"plugin_run"')).slice(-FIRST_USES)
      .map((l) => JSON.parse(l.slice(l.indexOf("{"))));
    const compileHits = firstRuns.filter((run) => run.compile_hit === true).length;
    const instanceMisses = firstRuns.filter((run) => run.instance_hit === false).length;

    // 8 concurrent clients reading enriched for a while.
    const concurrent: Client[] = [];
    for (let i = 0; i < CONCURRENT; i++) {
      concurrent.push(await connectClient(service.url, { token: TOKEN }));
    }
    clients.push(...concurrent);
    let calls = 0;
    let errors = 0;
    const concurrentTimes: number[] = [];
    const until = performance.now() + 10_000;
    await Promise.all(concurrent.map(async (client, c) => {
      for (let i = 0; performance.now() < until; i++) {
        try {
          concurrentTimes.push(await timed(() => read(client, { path: path(c * 25 + i) })));
        } catch {
          errors++;
        }
        calls++;
      }
    }));

    // A looping plugin is stopped at TIMEOUT.
    const loopTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      loopTimes.push(
        await timed(async () => {
          const result = await auto.callTool({
            name: "read",
            arguments: {
              repo: "local/project",
              path: "docs/doc1.md",
              plugins: [{ name: "fixture", args: { action: "loop" } }],
            },
          });
          if (!texts(result).at(-1)!.includes("PLUGIN_TIMEOUT")) throw new Error("no timeout");
        }),
      );
    }

    const p = (values: number[], q: number) => percentile(values, q).toFixed(2);
    const added = percentile(warmTimes, 50) - percentile(offTimes, 50);
    console.log(`repository: ${DOCS} documents of 120 lines; related-content (AssemblyScript)`);
    console.log("| measure | p50 ms | p95 ms | note |");
    console.log("|---|---|---|---|");
    console.log(
      `| read, plugins off (baseline) | ${p(offTimes, 50)} | ${
        p(offTimes, 95)
      } | ${SAMPLES} reads |`,
    );
    console.log(
      `| read, warm default plugin | ${p(warmTimes, 50)} | ${p(warmTimes, 95)} | adds ${
        added.toFixed(2)
      } ms at p50 (target <= 3) |`,
    );
    console.log(
      `| first use of a precompiled plugin | ${p(firstTimes, 50)} | ${p(firstTimes, 95)} | max ${
        Math.max(...firstTimes).toFixed(1)
      } ms (target <= 100); ${compileHits}/${firstRuns.length} compile hits, ${instanceMisses} new instances |`,
    );
    console.log(
      `| ${CONCURRENT} concurrent enriched reads, 10 s | ${p(concurrentTimes, 50)} | ${
        p(concurrentTimes, 95)
      } | ${calls} calls, ${(calls / 10).toFixed(0)}/s, ${errors} errors (target 0) |`,
    );
    console.log(
      `| looping plugin, TIMEOUT ${TIMEOUT_MS} ms | ${p(loopTimes, 50)} | ${
        Math.max(...loopTimes).toFixed(1)
      } (max) | overshoot ${(Math.max(...loopTimes) - TIMEOUT_MS).toFixed(1)} ms (target <= 50) |`,
    );
  } finally {
    for (const client of clients) await client.close().catch(() => {});
    await service.stop();
  }
} finally {
  await removeDir(parent);
}
