/**
 * Runs a test suite as several `deno test` processes at once, the slowest of
 * the last recorded run first. Modules of one folder share a process and
 * one isolate in groups (`module_groups.ts`, `group_entry.ts`: the process
 * start, Deno's loading and the module graph the modules share are paid once
 * a group); a module that reads its process's memory or changes
 * process-wide state runs alone, so its assertions see only its own
 * process. A group that does not finish (a module that cannot load stops
 * its group) runs again module by module. Each process's output is printed
 * whole when it ends; at the end come a per-folder timing table, the modules
 * that failed with their failed tests, and one summary line in `deno test`'s shape with the counts
 * of every module.
 *
 * ```sh
 * deno run --allow-read=. --allow-run=deno,bash tools/test_suite/main.ts \
 *   [--jobs N] [--group-seconds S] [--check "DENO_ARGS"]... [--doc FOLDER]... \
 *   [--durations FILE] [--record] FOLDER... [-- DENO_TEST_FLAG...]
 * ```
 *
 * Every module runs with `TEST_FLAGS` (and the flags after `--`).
 * `--doc FOLDER` runs the JSDoc examples of the modules under FOLDER (one
 * process per folder). Modules run with `--no-check`: type-check them too,
 * e.g. with `--check "check --doc ."`. `--check` runs a `deno` command (its
 * arguments, split at spaces) beside the tests, started first: the format
 * check, lint and type check keep one core busy for about half a minute, and
 * run before the tests they would leave the other idle; one that exits
 * non-zero counts as one failed test. `--group-seconds` caps a group's
 * recorded seconds (default 60; 0 runs every module alone). `--record` runs
 * every module alone
 * and writes its seconds to the durations file (default
 * `tests/test_durations.json`), which orders and groups the next runs.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import {
  addCounts,
  failedTests,
  formatSummary,
  isSummary,
  NO_TESTS,
  parseSummary,
} from "./deno_summary.ts";
import { splitTimes, TIMED_DENO } from "./cpu_times.ts";
import { findTestFiles } from "./test_files.ts";
import { GROUP_LOAD_FAILURE, groupModules, needsOwnProcess } from "./module_groups.ts";
import { type ModuleTiming, timingTable } from "./timing_table.ts";
import type { TestCounts } from "./deno_summary.ts";

/**
 * The permissions of the test processes. Programs under test are spawned with
 * their own narrow flags; attack tests connect from several loopback
 * addresses; gc is exposed so memory tests measure what is retained.
 */
const TEST_FLAGS = [
  "--v8-flags=--expose-gc",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-env",
  "--allow-sys=uid",
  "--allow-net=127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5",
];

/** The module a group of test modules runs as. */
const GROUP_ENTRY = fileURLToPath(new URL("./group_entry.ts", import.meta.url));

/** One `deno test` run: test modules of one folder, or the JSDoc examples of a folder. */
interface Job {
  /** What the output and the durations file call it. */
  name: string;
  /** Its test modules (none for JSDoc examples). */
  files: string[];
  args: string[];
  /** Environment variables of its process besides the runner's. */
  env?: Record<string, string>;
  /** A check (`--check`): its exit status is its result; it prints no test summary. */
  check?: boolean;
}

interface JobResult {
  job: Job;
  /** Whether `deno test` printed its summary (every module loaded and ran). */
  finished: boolean;
  counts: TestCounts;
  seconds: number;
  cpuSeconds: number | null;
  output: string;
  /** Its failed tests and their errors' first lines (`failedTests`). */
  failures: string[];
}

const split = Deno.args.indexOf("--");
const own = split < 0 ? Deno.args : Deno.args.slice(0, split);
const testFlags = [...TEST_FLAGS, ...(split < 0 ? [] : Deno.args.slice(split + 1))];
const { values, positionals } = parseArgs({
  args: own,
  allowPositionals: true,
  options: {
    jobs: { type: "string" },
    "group-seconds": { type: "string", default: "60" },
    check: { type: "string", multiple: true },
    doc: { type: "string", multiple: true },
    durations: { type: "string", default: "tests/test_durations.json" },
    record: { type: "boolean", default: false },
  },
});

// Most modules wait on the processes they start (services, Git, PostgreSQL,
// Chromium), so two more runs than there are cores keep the cores busy (on 2
// cores the whole suite took 6 min 34 s idle at 4, 7 min 15 s at 3).
const jobs = Number(values.jobs ?? (navigator.hardwareConcurrency ?? 2) + 2);
if (!Number.isInteger(jobs) || jobs < 1) {
  console.error(`--jobs must be a positive whole number, not ${values.jobs}`);
  Deno.exit(2);
}

const capSeconds = Number(values["group-seconds"]);
if (!Number.isFinite(capSeconds) || capSeconds < 0) {
  console.error(`--group-seconds must be a number of seconds, not ${values["group-seconds"]}`);
  Deno.exit(2);
}
const durations = await readDurations(values.durations);
const files = await findTestFiles(positionals, { cwd: Deno.cwd() });
const ownProcess = new Set(
  values.record || capSeconds === 0 ? files : (await Promise.all(
    files.map(async (file) => ({ file, text: await Deno.readTextFile(file) })),
  ))
    .filter(({ text }) => needsOwnProcess(text)).map(({ file }) => file),
);
const groups = groupModules(files, {
  durations,
  alone: (file) => ownProcess.has(file),
  capSeconds,
});
const queue: Job[] = [
  ...(values.check ?? []).map((command) => ({
    name: `./(checks)/deno ${command}`,
    files: [],
    args: command.split(" ").filter((arg) => arg !== ""),
    check: true,
  })),
  ...groups.map(moduleJob),
  ...(values.doc ?? []).map((folder) => ({
    name: `./${folder.replace(/^\.\//, "").replace(/\/$/, "")}/(JSDoc examples)`,
    files: [],
    args: ["test", "--doc", "--no-check", ...testFlags, folder],
  })),
];

const started = performance.now();
const results: JobResult[] = [];
await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, async () => {
  for (let job = queue.shift(); job; job = queue.shift()) {
    const result = await run(job);
    if (result.finished || job.files.length < 2) {
      results.push(result);
      await Deno.stdout.write(new TextEncoder().encode(result.output));
      continue;
    }
    // One module that cannot load stops its whole process: each runs alone, so the rest still run.
    const note = `${job.name}: did not finish together; its modules run one by one\n\n`;
    await Deno.stdout.write(new TextEncoder().encode(note));
    queue.unshift(...job.files.map((file) => moduleJob([file])));
  }
}));

const total = results.reduce((sum, result) => addCounts(sum, result.counts), NO_TESTS);
console.log(`\nseconds per folder (${jobs} processes at a time; processor and wall):`);
for (const line of timingTable(results.map(timing))) console.log(`  ${line}`);
if (values.record) await recordDurations(values.durations, results);
// Last before the summary, so a log cut to its tail still names what failed and why.
const failed = results.filter((result) => result.counts.failed > 0);
if (failed.length > 0) {
  console.log("\nmodules with failures:");
  for (const { job, failures } of failed) {
    console.log([`  ${job.name}`, ...failures.map((failure) => `    ${failure}`)].join("\n"));
  }
}
console.log(`\n${formatSummary(total, { seconds: (performance.now() - started) / 1000 })}`);
Deno.exit(total.failed > 0 ? 1 : 0);

async function run(job: Job): Promise<JobResult> {
  const begun = performance.now();
  const { code, stdout, stderr } = await spawn(job.args, job.env);
  const seconds = (performance.now() - begun) / 1000;
  const { cpuSeconds, rest } = splitTimes(new TextDecoder().decode(stderr));
  const text = new TextDecoder().decode(stdout) + rest;
  if (job.check) return checkResult(job, { code, text, seconds, cpuSeconds });
  const lines = text.split("\n")
    .map((line) => namedGroup(line, job));
  const counts = lines.map(parseSummary).findLast((found) => found !== null) ?? null;
  // A module that ends without a summary (it failed to load, or crashed) is one failure.
  const settled = counts ?? { ...NO_TESTS, failed: 1 };
  const status = counts === null
    ? `did not finish (exit ${code})`
    : `${settled.passed} passed, ${settled.failed} failed`;
  const cpu = cpuSeconds === null ? "" : `, ${cpuSeconds.toFixed(1)}s processor`;
  const kept = lines.filter((line) => !isSummary(line) && line !== "error: Test failed");
  const failures = failedTests(lines);
  const output = `${kept.join("\n").trimEnd()}\n${job.name}: ${status} (${
    seconds.toFixed(1)
  }s${cpu})\n\n`;
  // A group whose module did not load ran none of its tests: it did not finish either.
  const finished = counts !== null &&
    !(job.env && lines.some((line) => line.startsWith(GROUP_LOAD_FAILURE)));
  return { job, finished, counts: settled, seconds, cpuSeconds, output, failures };
}

// A check passes or fails as a whole: no tests of its own, one failure when it fails.
function checkResult(
  job: Job,
  run: { code: number; text: string; seconds: number; cpuSeconds: number | null },
): JobResult {
  const counts = run.code === 0 ? NO_TESTS : { ...NO_TESTS, failed: 1 };
  const status = run.code === 0 ? "passed" : `failed (exit ${run.code})`;
  const cpu = run.cpuSeconds === null ? "" : `, ${run.cpuSeconds.toFixed(1)}s processor`;
  const output = `${run.text.trimEnd()}\n${job.name}: ${status} (${
    run.seconds.toFixed(1)
  }s${cpu})\n\n`;
  return {
    job,
    finished: true,
    counts,
    seconds: run.seconds,
    cpuSeconds: run.cpuSeconds,
    output,
    failures: [],
  };
}

function moduleJob(group: string[]): Job {
  if (group.length === 1) {
    return { name: group[0], files: group, args: ["test", "--no-check", ...testFlags, ...group] };
  }
  const folder = group[0].slice(0, group[0].lastIndexOf("/"));
  const names = group.map((file) => file.slice(folder.length + 1));
  return {
    name: `${folder}/{${names.join(",")}}`,
    files: group,
    args: ["test", "--no-check", ...testFlags, GROUP_ENTRY],
    env: { TEST_SUITE_MODULES: group.join("\n") },
  };
}

// Deno names a group's tests after the module they ran as: the group's own name says more.
function namedGroup(line: string, job: Job): string {
  if (job.env === undefined) return line;
  const running = /^(running \d+ tests? from )(.*)$/.exec(line);
  return running && running[2].endsWith("group_entry.ts") ? `${running[1]}${job.name}` : line;
}

// `deno` under bash, which reports its processor time; plain `deno` where bash is not there.
async function spawn(
  args: string[],
  env: Record<string, string> | undefined,
): Promise<Deno.CommandOutput> {
  const options = { stdin: "null", stdout: "piped", stderr: "piped", env } as const;
  try {
    return await new Deno.Command("bash", { args: ["-c", TIMED_DENO, "deno", ...args], ...options })
      .output();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable)) {
      throw error;
    }
    return await new Deno.Command("deno", { args, ...options }).output();
  }
}

function timing(result: JobResult): ModuleTiming {
  const { passed, failed, ignored } = result.counts;
  return {
    // A check's command may name paths: its row is the checks' own.
    file: result.job.check ? "./(checks)/deno" : result.job.files[0] ?? result.job.name,
    modules: Math.max(1, result.job.files.length),
    seconds: result.seconds,
    cpuSeconds: result.cpuSeconds,
    tests: passed + failed + ignored,
  };
}

async function readDurations(path: string): Promise<Record<string, number>> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return {};
    throw error;
  }
}

async function recordDurations(path: string, done: JobResult[]): Promise<void> {
  const sorted = [...done].sort((a, b) => b.seconds - a.seconds);
  const record = Object.fromEntries(
    sorted.map((r) => [r.job.name, Math.round(r.seconds * 10) / 10]),
  );
  await Deno.writeTextFile(path, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`\nmodule durations written to ${path}`);
}
