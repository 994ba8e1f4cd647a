/**
 * The search's seven query classes on one large tree, end to end over HTTP
 * MCP (the SDK client against the service started as `deno task start`
 * does), beside `rg` on the checkout and `git grep` at the commit in the
 * same run: a common literal, a rare one, an absent one, a phrase, two
 * regexes with literals and an ignore-case literal. Each class's file set
 * is checked against rg's (every page of `output: files`), so a faster
 * answer that finds other files fails the run.
 *
 * The tree: the HEAD of a Git repository (`--tree PATH`, default the deno
 * tree at /tmp/refbench/deno), checked out into a folder of its own and
 * committed there; with `--copies N` (1 or more) N distinct copies of it,
 * the original plus copies whose identifier letters are rotated per copy as
 * `sourcegraph_search_bench.ts` makes them (neither Git nor the index can
 * share their text; the classes' literals stay in the original). Prints
 * p50 / p95 per class, rg's and git grep's p50, the ratio to rg, and the
 * service's RSS after each class. `--checkout DIR` reuses (and keeps) a
 * folder an earlier run made, its index included; `--keep DIR` makes it
 * there and keeps it.
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env \
 *   --allow-net=127.0.0.1 tests/bench/search_classes_bench.ts [--tree PATH] \
 *   [--copies N] [--checkout DIR | --keep DIR] [--runs N] [--rg-runs N]
 *
 * @module
 */

import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { percentile } from "../support/bench_stats.ts";
import { git, removeDir, tempDir } from "../support/git_repo.ts";
import { rssMib } from "../support/raw_http.ts";
import { connectClient, startService } from "../support/sourcegraph_service.ts";
import { callTool } from "../support/tool_calls.ts";

const args = Deno.args;
const flag = (name: string, fallback: string) =>
  args.includes(name) ? args[args.indexOf(name) + 1] : fallback;
const TREE = flag("--tree", "/tmp/refbench/deno");
const COPIES = Math.max(1, Number(flag("--copies", "1")) || 1);
const CHECKOUT = flag("--checkout", "");
const KEEP = flag("--keep", "");
const RUNS = Number(flag("--runs", "20"));
// rg's runs per class (the first is not counted: it warms the page cache).
const RG_RUNS = Number(flag("--rg-runs", "6"));
// Calls before the measured ones, so every class is measured with a warm JIT.
const WARM_UP = 5;
const TOKEN = "s".repeat(40);
const REPO = "local/deno";
// rg over what the commit holds: hidden files too, ignore files not applied
// (the commit was made with `git add -f`), the service's data left out.
const RG_SCOPE = ["--hidden", "--no-ignore", "-g", "!.git", "-g", "!.sourcegraph"];

interface QueryClass {
  name: string;
  mcp: Record<string, unknown>;
  /** rg's pattern flags. */
  grep: string[];
  /** git grep's, when they differ (`-E`: rg's `-E` names an encoding). */
  gitGrep?: string[];
}

const literal = (name: string, pattern: string, flags: string[] = []): QueryClass => ({
  name,
  mcp: { pattern, fixed_strings: true, ...(flags.includes("-i") ? { ignore_case: true } : {}) },
  grep: ["-F", ...flags, "-e", pattern],
});

const regex = (name: string, pattern: string): QueryClass => ({
  name,
  mcp: { pattern },
  grep: ["-e", pattern],
  gitGrep: ["-E", "-e", pattern],
});

/** The seven classes on the deno tree. */
const CLASSES: QueryClass[] = [
  literal("common literal", "deno_core"),
  literal("rare literal", "DatabaseSync"),
  literal("absent literal", "zqxjkwvbnmpq"),
  literal("phrase", "could not be found"),
  regex("regex, one alternation", "Deno\\.(open|read|write)\\w*Sync\\("),
  regex("regex, word class", "fn \\w+_sync\\("),
  literal("ignore-case literal", "DENO_CORE", ["-i"]),
];

// The load average (1, 5, 15 minutes), as /proc gives it.
async function load(): Promise<string> {
  return (await output("cat", ["/proc/loadavg"], ".")).split(" ").slice(0, 3).join(" ");
}

async function output(command: string, argv: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(command, { args: argv, cwd, stdout: "piped", stderr: "null" })
    .output();
  return new TextDecoder().decode(out.stdout);
}

async function timedRun(command: string, argv: string[], cwd: string): Promise<number> {
  const started = performance.now();
  await new Deno.Command(command, { args: argv, cwd, stdout: "null", stderr: "null" }).output();
  return performance.now() - started;
}

// Identifier letters rotated by `copy` places (the search bench's rotation).
function rotate(text: string, copy: number): string {
  return text.replace(
    /[A-Za-z_][A-Za-z0-9_]*/g,
    (word) =>
      word.replace(/[a-z]/g, (c) => String.fromCharCode(97 + (c.charCodeAt(0) - 97 + copy) % 26)),
  );
}

async function walk(folder: string, files: string[]): Promise<void> {
  for await (const entry of Deno.readDir(folder)) {
    const path = join(folder, entry.name);
    if (entry.isDirectory && entry.name !== ".git") await walk(path, files);
    else if (entry.isFile) files.push(path);
  }
}

/** Rotated copies 1..copies-1 of the checkout's files, under `copyN/`. */
async function addCopies(repo: string, copies: number): Promise<void> {
  const files: string[] = [];
  await walk(repo, files);
  const strict = new TextDecoder("utf-8", { fatal: true });
  for (let copy = 1; copy < copies; copy++) {
    for (const file of files) {
      const target = join(repo, `copy${copy}`, file.slice(repo.length + 1));
      await Deno.mkdir(join(target, ".."), { recursive: true });
      const data = await Deno.readFile(file);
      let text: string;
      try {
        text = strict.decode(data);
      } catch {
        await Deno.writeFile(target, data);
        continue;
      }
      await Deno.writeTextFile(target, rotate(text, copy));
    }
  }
}

/** The tree's HEAD checked out into `dir/deno` (with its copies), committed as a repository of its own. */
async function makeCorpus(dir: string): Promise<string> {
  const repo = join(dir, "deno");
  // A clone checks out every blob it has; the few a partial mirror lacks are left out.
  await new Deno.Command("git", { args: ["clone", "-q", TREE, repo], stderr: "null" }).output();
  await Deno.remove(join(repo, ".git"), { recursive: true });
  await addCopies(repo, COPIES);
  await Deno.writeTextFile(join(repo, ".gitignore"), "\n.sourcegraph/\n", { append: true });
  await git(repo, ["init", "-q", "-b", "main"]);
  await git(repo, ["add", "-A", "-f", "."]);
  await git(repo, ["-c", "user.name=b", "-c", "user.email=b@example.org", "commit", "-qm", "t"]);
  return repo;
}

/** Every file the search finds, page by page (`output: files`). */
async function serviceFiles(client: Client, query: QueryClass, head: string): Promise<string[]> {
  const files: string[] = [];
  let after: string | undefined;
  do {
    const result = await client.callTool({
      name: "search",
      arguments: {
        repo: REPO,
        revision: head,
        output: "files",
        max_bytes: 262_144,
        ...query.mcp,
        after,
      },
    });
    const structured = result.structuredContent as {
      results: { files: { path: string }[] }[];
      next_cursor?: string;
    };
    for (const found of structured.results) files.push(...found.files.map((file) => file.path));
    after = structured.next_cursor;
  } while (after !== undefined);
  return files;
}

/** Whether the service's file set is rg's; prints the difference when not. */
async function sameFiles(
  client: Client,
  query: QueryClass,
  repo: string,
  head: string,
): Promise<string> {
  const ours = new Set(await serviceFiles(client, query, head));
  const listed = await output("rg", ["-l", ...RG_SCOPE, ...query.grep], repo);
  const theirs = new Set(listed.split("\n").filter((line) => line !== ""));
  const onlyOurs = [...ours].filter((path) => !theirs.has(path));
  const onlyRg = [...theirs].filter((path) => !ours.has(path));
  if (onlyOurs.length === 0 && onlyRg.length === 0) return `same (${ours.size})`;
  console.log(
    `  ${query.name}: only the service ${onlyOurs.slice(0, 5)}; only rg ${onlyRg.slice(0, 5)}`,
  );
  return `DIFFERENT (${ours.size} vs rg ${theirs.size})`;
}

async function measure(
  client: Client,
  query: QueryClass,
  place: { repo: string; head: string; pid: number },
): Promise<string> {
  const times: number[] = [];
  for (let i = 0; i < RUNS + WARM_UP; i++) {
    const started = performance.now();
    const outcome = await callTool(client, "search", {
      repo: REPO,
      revision: place.head,
      ...query.mcp,
    });
    const ms = performance.now() - started;
    if (outcome.code !== "OK") throw new Error(`${query.name}: ${outcome.texts[0]}`);
    if (i === 0 && !outcome.texts[0].includes('Index: "ready"')) throw new Error("index not used");
    if (i >= WARM_UP) times.push(ms);
  }
  const rg: number[] = [];
  for (let i = 0; i < RG_RUNS; i++) {
    rg.push(await timedRun("rg", ["-n", ...RG_SCOPE, ...query.grep], place.repo));
  }
  const gitGrep: number[] = [];
  const grepArgs = ["grep", "-n", "--threads=2", ...(query.gitGrep ?? query.grep), place.head];
  for (let i = 0; i < 3; i++) gitGrep.push(await timedRun("git", grepArgs, place.repo));
  const files = await sameFiles(client, query, place.repo, place.head);
  const p50 = percentile(times, 50);
  const rgP50 = percentile(rg.slice(1), 50);
  return `| ${query.name} | ${p50.toFixed(1)} / ${percentile(times, 95).toFixed(1)} | ${
    rgP50.toFixed(1)
  } | ${(p50 / rgP50).toFixed(2)}x | ${percentile(gitGrep, 50).toFixed(0)} | ${files} | ${
    (await rssMib(place.pid)).toFixed(0)
  } |`;
}

/** Waits until a search at `head` answers through the built index. */
async function waitForIndex(client: Client, head: string): Promise<void> {
  for (;;) {
    const outcome = await callTool(client, "search", {
      repo: REPO,
      revision: head,
      pattern: "fn main",
    });
    if (outcome.code === "OK" && outcome.texts[0].includes('Index: "ready"')) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const parent = CHECKOUT !== "" ? null : KEEP !== "" ? KEEP : await tempDir("sg-search-classes-");
try {
  if (parent !== null) await Deno.mkdir(parent, { recursive: true });
  const repo = parent === null ? CHECKOUT : await makeCorpus(parent);
  const head = await git(repo, ["rev-parse", "HEAD"]);
  const files = (await git(repo, ["ls-files"])).split("\n").length;
  // A kept checkout's copies are its `copyN` folders.
  const copies = 1 +
    [...Deno.readDirSync(repo)].filter((entry) => /^copy\d+$/.test(entry.name)).length;
  const bytes = Number(
    (await output("du", ["-sb", "--exclude=.git", "--exclude=.sourcegraph", "."], repo)).split(
      "\t",
    )[0],
  );
  console.log(
    `tree: ${TREE} as ${REPO}, ${copies} cop${copies === 1 ? "y" : "ies"}, ${files} files, ${
      (bytes / 1048576).toFixed(1)
    } MiB; ${new Date().toISOString()}; load ${await load()}`,
  );
  const started = performance.now();
  const service = await startService(repo, { SOURCEGRAPH_API_TOKEN: TOKEN }, {
    lineTimeoutMs: 900_000,
  });
  const client = await connectClient(service.url, { token: TOKEN });
  try {
    await waitForIndex(client, head);
    console.log(`start to index ready: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    console.log(`service RSS after the build: ${(await rssMib(service.pid)).toFixed(0)} MiB`);
    console.log(
      "| class | service p50 / p95 ms | rg p50 ms | service/rg | git grep p50 ms | files vs rg | RSS MiB |",
    );
    console.log("|---|---|---|---|---|---|---|");
    for (const query of CLASSES) {
      console.log(await measure(client, query, { repo, head, pid: service.pid }));
    }
    console.log(
      `service RSS at the end: ${(await rssMib(service.pid)).toFixed(0)} MiB; load ${await load()}`,
    );
  } finally {
    await client.close();
    await service.stop();
  }
} finally {
  if (parent !== null && KEEP === "") await removeDir(parent);
}
