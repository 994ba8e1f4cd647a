import { copyFileSync, cpSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertEquals, waitFor } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { LineReader } from "../../support/processes.ts";
import { StopSignals } from "../../../sourcegraph/startup/stop_signals.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** One process as `ps` shows it. */
interface ProcessRow {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  args: string;
}

/** Every process, from `ps` (Deno reads /proc only with every permission). */
async function processes(): Promise<ProcessRow[]> {
  const out = await new Deno.Command("ps", {
    args: ["-e", "-o", "pid=,ppid=,pgid=,stat=,args="],
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((line) => line.trim() !== "")
    .map((line) => {
      const [pid, ppid, pgid, state, ...args] = line.trim().split(/\s+/);
      return {
        pid: Number(pid),
        ppid: Number(ppid),
        pgid: Number(pgid),
        state,
        args: args.join(" "),
      };
    });
}

/** The live processes of group `pgid` or below `root` (zombies are dead already). */
async function tree(root: number, pgid: number): Promise<ProcessRow[]> {
  const rows = (await processes()).filter((row) => !row.state.startsWith("Z"));
  const found = new Map<number, ProcessRow>();
  for (const row of rows) if (row.pgid === pgid || row.pid === root) found.set(row.pid, row);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) {
      if (found.has(row.ppid) && !found.has(row.pid)) {
        found.set(row.pid, row);
        grew = true;
      }
    }
  }
  return [...found.values()];
}

/**
 * A throwaway copy of this project (the service's code, the task and the npm
 * script) whose own checkout is one small committed file, so `npm start` and
 * `deno task start` run there exactly as in a checkout and serve a tiny repository.
 */
async function projectCopy(parent: string): Promise<string> {
  const repo = await createRepo({
    "a.txt": "alpha\n",
    ".gitignore": ".sourcegraph/\nsourcegraph/\nshared/\ndeno.json\ndeno.lock\npackage.json\n",
  }, { parent, name: "project" });
  for (const file of ["deno.json", "deno.lock", "package.json"]) {
    copyFileSync(join(ROOT, file), join(repo.path, file));
  }
  for (const folder of ["sourcegraph", "shared"]) {
    cpSync(join(ROOT, folder), join(repo.path, folder), { recursive: true });
  }
  return repo.path;
}

type Launcher = "npm start" | "deno task start";

/** Starts `launcher` in its own process group (as a terminal would), on a free port. */
async function launch(project: string, launcher: Launcher) {
  const args = launcher === "npm start"
    ? ["npm", "start", "--", "--port", "0"]
    : ["deno", "task", "start", "--port", "0"];
  const child = new Deno.Command("setsid", {
    args,
    cwd: project,
    clearEnv: true,
    env: {
      PATH: `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
      HOME: Deno.env.get("HOME") ?? project,
      NO_COLOR: "1",
      SOURCEGRAPH_STOP_GRACE: "2s",
      ...inherited("DENO_DIR", "XDG_CACHE_HOME"),
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const lines = new LineReader(child.stderr);
  const log: string[] = [];
  let port = 0;
  while (true) {
    const line = await lines.next(120_000);
    if (line === null) throw new Error(`${launcher} exited:\n${log.join("\n")}`);
    log.push(line);
    const listening = line.match(/listening on http:\/\/127\.0\.0\.1:(\d+)$/);
    if (listening) port = Number(listening[1]);
    if (line.includes("connect an MCP client")) break;
  }
  const drained = (async () => {
    for (;;) {
      const line = await lines.next(3_600_000).catch(() => null);
      if (line === null) break;
      log.push(line);
    }
  })();
  return { child, log, port, drained };
}

function inherited(...names: string[]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of names) {
    const value = Deno.env.get(name);
    if (value !== undefined) found[name] = value;
  }
  return found;
}

async function portOpen(port: number): Promise<boolean> {
  return await Deno.connect({ hostname: "127.0.0.1", port }).then(
    (conn) => (conn.close(), true),
    () => false,
  );
}

function killAll(rows: ProcessRow[]): void {
  for (const row of rows) {
    try {
      Deno.kill(row.pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/**
 * Starts `launcher`, sends `signal` to it or to its group once the service
 * serves, and returns what went wrong with the stop (nothing when it stopped
 * once, gracefully, closing the port and leaving no process behind).
 */
async function stopOnce(
  project: string,
  launcher: Launcher,
  how: { signal: "SIGTERM" | "SIGINT"; target: "launcher" | "group" },
): Promise<string[]> {
  const { child, log, port, drained } = await launch(project, launcher);
  const pgid = child.pid;
  const before = await tree(child.pid, pgid);
  const problems: string[] = [];
  if (!before.every((row) => row.pgid === pgid)) problems.push("not one process group");
  if (!before.some((row) => row.args.includes("sourcegraph/main.ts"))) problems.push("no service");
  if (!(await portOpen(port))) problems.push("the port was not open");
  Deno.kill(how.target === "group" ? -pgid : child.pid, how.signal);
  // Backstop only: a launcher that never ends is killed, and the test fails below.
  const backstop = setTimeout(() => killAll([{ pid: child.pid } as ProcessRow]), 60_000);
  const status = await child.status;
  clearTimeout(backstop);
  let left: ProcessRow[] = [];
  const gone = await waitFor(async () => (left = await tree(child.pid, pgid)).length === 0, {
    timeoutMs: 30_000,
  }).then(() => true, () => false);
  if (!gone) {
    problems.push(`left behind: ${left.map((row) => row.args.slice(0, 80)).join("; ")}`);
    killAll(left);
  }
  await drained;
  if (status.signal === "SIGKILL") problems.push("the launcher had to be killed");
  if (await portOpen(port)) problems.push("the port is still open");
  const stops = log.filter((line) => line.includes(`stopping (${how.signal})`)).length;
  if (stops !== 1) problems.push(`${stops} graceful stops`);
  if (!log.some((line) => line.endsWith("context-sourcegraph: stopped"))) {
    problems.push("no 'stopped'");
  }
  for (const line of log) {
    if (line.includes("stopping now") || line.includes("did not finish")) problems.push(line);
  }
  if (launcher === "deno task start") problems.push(...taskStartProblems(log));
  return problems.map((problem) => `${launcher}, ${how.signal} to the ${how.target}: ${problem}`);
}

/**
 * What is wrong with what `deno task start` printed: its first line (after
 * Deno's own "Task start …") is ours, saying what it does before the cache
 * and the service; nothing warns.
 */
function taskStartProblems(log: string[]): string[] {
  const problems: string[] = [];
  const own = log.filter((line) => !line.startsWith("Task ") && !line.startsWith("Download "));
  const first =
    "context-sourcegraph: preparing the service (its first start caches its modules) ...";
  if (own[0] !== first) problems.push(`the first line is ${JSON.stringify(own[0])}`);
  for (const line of log) if (/warning|╭/i.test(line)) problems.push(`a warning: ${line}`);
  return problems;
}

Deno.test("stop: npm start and deno task start stop once, gracefully and completely, on SIGTERM or SIGINT to the launcher or to its whole group; deno task start says what it does before caching, and nothing warns", async () => {
  const parent = await tempDir("sg-launch-");
  try {
    const project = await projectCopy(parent);
    const problems: string[] = [];
    for (const launcher of ["npm start", "deno task start"] as const) {
      for (const signal of ["SIGTERM", "SIGINT"] as const) {
        for (const target of ["launcher", "group"] as const) {
          problems.push(...await stopOnce(project, launcher, { signal, target }));
        }
      }
    }
    assertEquals(problems, []);
  } finally {
    await removeDir(parent);
  }
});

Deno.test("stop signals: copies of the first signal within the relay window are one stop; a later or another signal stops at once", () => {
  let now = 5_000;
  const signals = new StopSignals({ now: () => now, relayWindowMs: 1_000 });
  assertEquals(signals.receive("SIGINT"), "stop");
  now += 3;
  assertEquals(signals.receive("SIGINT"), "relayed");
  now += 996;
  assertEquals(signals.receive("SIGINT"), "relayed");
  now += 1;
  assertEquals(signals.receive("SIGINT"), "again");

  const mixed = new StopSignals({ now: () => now });
  assertEquals(mixed.receive("SIGTERM"), "stop");
  assertEquals(mixed.receive("SIGINT"), "again");
});
