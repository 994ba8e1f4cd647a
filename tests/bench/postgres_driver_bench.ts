/**
 * Which PostgreSQL driver the store uses, by measurement: a private
 * PostgreSQL server (`tests/support/postgres_server.ts`), then the same
 * workload (`postgres/driver_workload.ts`) under `deno run` with the
 * narrowest flags each driver accepts (the net permission of the one
 * address, and `--allow-env=PG*`, which both read for libpq-style defaults),
 * for npm `pg` and npm `postgres`, alternating, three rounds each. Prints
 * the flags each needed and a table of medians.
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env --allow-sys=uid --allow-net=127.0.0.1 \
 *   tests/bench/postgres_driver_bench.ts
 *
 * @module
 */

import { postgresBin, startPostgres } from "../support/postgres_server.ts";

const bin = postgresBin();
if (bin === null) Deno.exit(1);
const server = await startPostgres(bin);
const WORKLOAD = new URL("./postgres/driver_workload.ts", import.meta.url).pathname;
// The development configuration: postgres.js is a package only this comparison uses.
const CONFIG = new URL("../../deno.dev.json", import.meta.url).pathname;
const FLAG_SETS = [
  [`--allow-net=127.0.0.1:${server.port}`],
  [`--allow-net=127.0.0.1:${server.port}`, "--allow-env=PG*"],
];

interface Result {
  connectMs: number;
  insertMs: number;
  p50: number;
  p99: number;
  concurrentPerSecond: number;
  concurrentP99: number;
  rssMiB: number;
}

async function runOnce(driver: string, flags: string[]): Promise<Result | string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--config",
      CONFIG,
      ...flags,
      WORKLOAD,
      driver,
      server.url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr);
    return /NotCapable: ([^\n]*)/.exec(text)?.[1] ?? text.split("\n")[0];
  }
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  const flagsOf = new Map<string, string[]>();
  for (const driver of ["pg", "postgres"]) {
    for (const flags of FLAG_SETS) {
      const result = await runOnce(driver, flags);
      if (typeof result !== "string") {
        flagsOf.set(driver, flags);
        break;
      }
      console.log(`${driver} with ${flags.join(" ")}: refused (${result})`);
    }
    console.log(`${driver} runs with: ${flagsOf.get(driver)?.join(" ") ?? "no flag set tried"}`);
  }
  const results = new Map<string, Result[]>();
  for (let round = 0; round < 3; round++) {
    for (const driver of flagsOf.keys()) {
      const result = await runOnce(driver, flagsOf.get(driver)!);
      if (typeof result === "string") throw new Error(`${driver}: ${result}`);
      results.set(driver, [...(results.get(driver) ?? []), result]);
    }
  }
  console.log(
    "| driver | connect + DDL ms | 1,000 inserts in a transaction ms | point query p50 / p99 ms | 16 callers, queries/s (p99 ms) | RSS MiB |",
  );
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const [driver, runs] of results) {
    const m = (key: keyof Result) => median(runs.map((run) => run[key]));
    console.log(
      `| ${driver} | ${m("connectMs").toFixed(0)} | ${m("insertMs").toFixed(0)} | ${
        m("p50").toFixed(3)
      } / ${m("p99").toFixed(3)} | ${m("concurrentPerSecond").toFixed(0)} (${
        m("concurrentP99").toFixed(1)
      }) | ${m("rssMiB").toFixed(0)} |`,
    );
  }
} finally {
  await server.stop();
}
