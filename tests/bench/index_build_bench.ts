/**
 * The index builder alone, as the service starts it (`builder_command.ts`:
 * the same flags and arguments), pinned to one core with `taskset`: a
 * fresh index of a tree's HEAD, `--runs` times (default 3), printing each
 * build's time and MiB/s of new blob bytes (the builder's own measure,
 * symbols included), the process's processor time (user and system) and
 * peak resident memory (from GNU `time`, its symbol workers' threads
 * included), then the medians. On a machine other work shares, the
 * processor time says more than the wall time.
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env \
 *   tests/bench/index_build_bench.ts --tree PATH [--runs N] [--held-postings-mib N] [--cpus LIST]
 *   [--digest]
 *
 * `--digest` prints a digest of each build's index (`index_digest.ts`: every
 * table, symbols by name text), to check that a change to the builder leaves
 * the index the same.
 *
 * @module
 */

import { join } from "node:path";
import { denoProgram } from "../../shared/child_lifetime.ts";
import { builderCommand } from "../../sourcegraph/search/build/builder_command.ts";
import type { BuildEvent } from "../../sourcegraph/search/build/build_main.ts";
import { percentile } from "../support/bench_stats.ts";
import { formatDigest, indexDigest } from "./index_digest.ts";

const args = Deno.args;
const option = (name: string) => args.includes(name) ? args[args.indexOf(name) + 1] : undefined;
const TREE = option("--tree");
const RUNS = Number(option("--runs") ?? 3);
const HELD = option("--held-postings-mib");
const CPUS = option("--cpus") ?? "0";
const DIGEST = args.includes("--digest");
if (!TREE) {
  console.error("usage: index_build_bench.ts --tree PATH (a Git work tree) [--runs N]");
  Deno.exit(2);
}

interface Run {
  ms: number;
  mibPerSecond: number;
  peakMib: number;
  /** User and system processor seconds of the builder process, all its threads. */
  processorSeconds: number;
  /** The built index's digest (`--digest`). */
  digest?: string;
}

// How many CPUs a `taskset` list names (`0`, `0,1`, `0-3`).
function cpuCount(list: string): number {
  return list.split(",").reduce((sum, part) => {
    const [from, to] = part.split("-").map(Number);
    return sum + (to === undefined ? 1 : to - from + 1);
  }, 0);
}

async function buildOnce(tree: string): Promise<Run> {
  const folder = await Deno.makeTempDir({ prefix: "index-build-bench-" });
  try {
    const head = new TextDecoder().decode(
      (await new Deno.Command("git", { args: ["rev-parse", "HEAD"], cwd: tree }).output()).stdout,
    ).trim();
    const { args, env } = builderCommand({
      mirror: join(tree, ".git"),
      indexFile: join(folder, "index.sqlite3"),
      commits: [head],
      ...(HELD === undefined ? {} : { heldPostingsMib: Number(HELD) }),
      // As the service starts it on a machine of as many cores as `taskset` gives it.
      cores: cpuCount(CPUS),
    });
    // GNU time reports the builder's peak resident memory (Deno reads /proc only with -A).
    const output = await new Deno.Command("taskset", {
      args: ["-c", CPUS, "/usr/bin/time", "-f", "peak %M\nprocessor %U %S", denoProgram(), ...args],
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    const peak = Number(/^peak (\d+)$/m.exec(stderr)?.[1] ?? NaN) / 1024;
    const processor = /^processor ([\d.]+) ([\d.]+)$/m.exec(stderr);
    const processorSeconds = processor === null ? NaN : Number(processor[1]) + Number(processor[2]);
    const events = new TextDecoder().decode(output.stdout).trim().split("\n")
      .map((line) => JSON.parse(line) as BuildEvent);
    const built = events.find((event) => event.event === "built");
    if (built?.event !== "built") throw new Error(`no build: ${stderr}`);
    const mib = built.newBytes / 1024 / 1024;
    const digest = DIGEST ? formatDigest(indexDigest(join(folder, "index.sqlite3"))) : undefined;
    return {
      ms: built.ms,
      mibPerSecond: mib / (built.ms / 1000),
      peakMib: peak,
      processorSeconds,
      digest,
    };
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

if (import.meta.main) {
  console.log(`tree ${TREE}, cpus ${CPUS}, held postings ${HELD ?? "default"} MiB`);
  const runs: Run[] = [];
  for (let run = 0; run < RUNS; run++) {
    const result = await buildOnce(TREE);
    runs.push(result);
    console.log(
      `run ${run + 1}: ${(result.ms / 1000).toFixed(2)} s, ${
        result.mibPerSecond.toFixed(1)
      } MiB/s, ` +
        `processor ${result.processorSeconds.toFixed(1)} s, peak RSS ${
          result.peakMib.toFixed(0)
        } MiB`,
    );
    if (result.digest !== undefined) console.log(result.digest);
  }
  const median = (values: number[]) => percentile(values, 50);
  console.log(
    `median: ${(median(runs.map((r) => r.ms)) / 1000).toFixed(2)} s, ` +
      `${median(runs.map((r) => r.mibPerSecond)).toFixed(1)} MiB/s, ` +
      `processor ${median(runs.map((r) => r.processorSeconds)).toFixed(1)} s, ` +
      `peak RSS ${median(runs.map((r) => r.peakMib)).toFixed(0)} MiB`,
  );
}
