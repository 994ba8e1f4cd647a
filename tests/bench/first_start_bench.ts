/**
 * A newcomer's first start: a fresh clone of a commit of this repository,
 * `deno task start` with an empty Deno cache (a new `DENO_DIR`), measured as
 * the seconds to its first output line, to its first line of its own
 * (`preparing the service …`) and to the first answer of `/sourcegraph/`
 * (polled every 200 ms), and the size of the Deno cache it filled; warning
 * lines are printed. Downloads from the npm registry, so the network counts.
 *
 * Run: deno run --allow-read --allow-write --allow-run=git,deno,du --allow-env \
 *   --allow-net=127.0.0.1 tests/bench/first_start_bench.ts [--commit REV] [--port N]
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LineReader } from "../support/processes.ts";

const args = Deno.args;
const option = (name: string) => args.includes(name) ? args[args.indexOf(name) + 1] : undefined;
const COMMIT = option("--commit") ?? "HEAD";
const PORT = Number(option("--port") ?? 8797);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function run(command: string, commandArgs: string[], cwd?: string): Promise<string> {
  const out = await new Deno.Command(command, { args: commandArgs, cwd, stderr: "inherit" })
    .output();
  if (!out.success) throw new Error(`${command} ${commandArgs.join(" ")} failed`);
  return new TextDecoder().decode(out.stdout);
}

async function answered(): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${PORT}/sourcegraph/`);
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

const scratch = await Deno.makeTempDir({ prefix: "first-start-" });
try {
  const clone = join(scratch, "checkout");
  const denoDir = join(scratch, "deno_dir");
  await run("git", ["clone", "-q", ROOT, clone]);
  await run("git", ["checkout", "-q", COMMIT], clone);
  await Deno.mkdir(denoDir);
  const started = performance.now();
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
  const child = new Deno.Command("deno", {
    args: ["task", "start", "--port", String(PORT)],
    cwd: clone,
    env: { DENO_DIR: denoDir, NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let firstLine: string | undefined;
  let ownLine: string | undefined;
  const warnings: string[] = [];
  const reading = (async () => {
    const lines = new LineReader(child.stderr);
    for (let line = await lines.next(); line !== null; line = await lines.next()) {
      firstLine ??= seconds();
      if (line.startsWith("context-sourcegraph:")) ownLine ??= seconds();
      if (/warning|╭/i.test(line)) warnings.push(line);
    }
  })();
  while (!(await answered())) await new Promise((resolve) => setTimeout(resolve, 200));
  const answer = seconds();
  child.kill("SIGTERM");
  await child.status;
  await reading.catch(() => {});
  const cache = (await run("du", ["-sm", denoDir])).split("\t")[0];
  console.log(`commit ${(await run("git", ["rev-parse", "--short", COMMIT], clone)).trim()}`);
  console.log(`first output ${firstLine} s, first own line ${ownLine} s, first answer ${answer} s`);
  console.log(`Deno cache ${cache} MiB; warning lines: ${warnings.length}`);
  for (const warning of warnings) console.log(`  ${warning}`);
} finally {
  await Deno.remove(scratch, { recursive: true });
}
