/**
 * Speed of the MCP `references` tool on a large tree, end to end over HTTP
 * (the SDK client against the service started as `deno task start` does,
 * with an API token: no anonymous rate limit), beside `rg -w -n NAME` on a
 * checkout of the same tree in the same run.
 *
 * The tree: the HEAD of a Git repository (`--tree PATH`, default the deno
 * mirror beside the checkout, `/work/.mirror/denoland+deno/repo`), checked
 * out into a temporary folder (blobs the repository lacks are left out) and
 * committed as a repository of its own, which the service serves as
 * `local/deno`.
 *
 * Names are drawn (seeded) from definition lines, per language: Rust (`fn
 * NAME`, `struct NAME`) and TypeScript (`function NAME`, `class NAME`,
 * `interface NAME`), each counted as whole words over the whole tree (every
 * file, as `rg -w` sees them): `rare` names have 20 to 100 occurrences,
 * `common` names 1,000 or more. Each name is asked once from its definition
 * line (`symbol` set), its first page at the default `max_bytes`: a cold
 * call per name (two names of each language of 200 to 999 occurrences are
 * asked first, not measured). Then `rg -w -n NAME` runs on the checkout for
 * the same names. Prints per class p50/p95 of the service and of rg, their
 * ratio, and the processor time of each (the service's from /proc, all its
 * threads; rg's from /usr/bin/time), which a loaded machine changes less;
 * the service's RSS at the end. With `--verbose`, each name's wall and
 * processor time; with `--languages rust` (or `typescript`), that language's
 * classes only (the same names as drawn for both); with `--answers FILE`,
 * every answer's text written to FILE (to compare two versions' answers).
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env --allow-net=127.0.0.1 \
 *   tests/bench/references_speed_bench.ts [--tree PATH] [--names N] [--seed S] [--verbose] \
 *   [--checkout DIR] [--languages rust,typescript] [--answers FILE]
 *
 * @module
 */

import { cpus } from "node:os";
import { join } from "node:path";
import { percentile, prng } from "../support/bench_stats.ts";
import { git, removeDir, tempDir } from "../support/git_repo.ts";
import { rssMib } from "../support/raw_http.ts";
import {
  connectClient,
  type RunningService,
  startService,
} from "../support/sourcegraph_service.ts";
import { callTool } from "../support/tool_calls.ts";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

const args = Deno.args;
const flag = (name: string, fallback: string) =>
  args.includes(name) ? args[args.indexOf(name) + 1] : fallback;
const TREE = flag("--tree", "/work/.mirror/denoland+deno/repo");
const NAMES = Number(flag("--names", "12"));
const SEED = Number(flag("--seed", "1"));
// A checkout made by an earlier run (`--checkout DIR`, its folder named deno): reused and kept.
const CHECKOUT = flag("--checkout", "");
// Each name's time printed too.
const VERBOSE = args.includes("--verbose");
// Each answer's text written to this file (`--answers FILE`), to compare two runs' answers.
const ANSWERS = flag("--answers", "");
const answers: string[] = [];
const TOKEN = "s".repeat(40);
// The languages whose classes are measured (comma-separated; default both).
const LANGUAGES = flag("--languages", "rust,typescript").split(",");

interface Site {
  name: string;
  path: string;
  line: number;
  count: number;
}

const DEFINITIONS: Record<string, { glob: string; pattern: string }> = {
  rust: {
    glob: "*.rs",
    pattern: String.raw`\b(?:fn|struct|enum|trait)\s+([A-Za-z_][A-Za-z0-9_]{3,})`,
  },
  typescript: {
    glob: "*.ts",
    pattern: String.raw`\b(?:function|class|interface)\s+([A-Za-z_$][A-Za-z0-9_$]{3,})`,
  },
};

async function output(command: string, argv: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(command, { args: argv, cwd, stdout: "piped", stderr: "null" })
    .output();
  return new TextDecoder().decode(out.stdout);
}

/** The tree's HEAD checked out into `dir` and committed there as a repository of its own. */
async function makeCorpus(dir: string): Promise<string> {
  const repo = join(dir, "deno");
  // A clone checks out every blob it has; the few a partial mirror lacks are left out.
  await new Deno.Command("git", { args: ["clone", "-q", TREE, repo], stderr: "null" }).output();
  await Deno.remove(join(repo, ".git"), { recursive: true });
  await Deno.writeTextFile(join(repo, ".gitignore"), "\n.sourcegraph/\n", { append: true });
  await git(repo, ["init", "-q", "-b", "main"]);
  await git(repo, ["add", "-A", "-f", "."]);
  await git(repo, [
    "-c",
    "user.name=bench",
    "-c",
    "user.email=b@example.org",
    "commit",
    "-qm",
    "t",
  ]);
  return repo;
}

/** Whole-word counts of every identifier of the tree (every file). */
async function wordCounts(repo: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const text = await output("rg", [
    "-o",
    "-N",
    "--no-filename",
    "-w",
    "[A-Za-z_$][A-Za-z0-9_$]*",
    ".",
  ], repo);
  for (const word of text.split("\n")) {
    if (word !== "") counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return counts;
}

/** Definition sites of one language, one per name (its first), with the name's count. */
async function sites(repo: string, language: string, counts: Map<string, number>): Promise<Site[]> {
  const { glob, pattern } = DEFINITIONS[language];
  const text = await output("rg", ["-n", "--no-heading", "-g", glob, "-o", pattern, "."], repo);
  const found = new Map<string, Site>();
  for (const row of text.split("\n")) {
    const match = /^\.\/(.*?):(\d+):.*\s([A-Za-z_$][A-Za-z0-9_$]*)$/.exec(row);
    if (!match || found.has(match[3])) continue;
    found.set(match[3], {
      name: match[3],
      path: match[1],
      line: Number(match[2]),
      count: counts.get(match[3]) ?? 0,
    });
  }
  return [...found.values()].sort((a, b) => a.name < b.name ? -1 : 1);
}

function draw(all: Site[], keep: (site: Site) => boolean, random: () => number): Site[] {
  const pool = all.filter(keep);
  const drawn: Site[] = [];
  while (drawn.length < NAMES && pool.length > 0) {
    drawn.push(pool.splice(Math.floor(random() * pool.length), 1)[0]);
  }
  return drawn;
}

async function waitForIndex(service: RunningService, head: string): Promise<string> {
  const mark = `search index of local/deno at ${head.slice(0, 12)}: `;
  for (;;) {
    const line = service.log.find((entry) =>
      entry.includes(mark) && /^\d+ files, /.test(entry.slice(entry.indexOf(mark) + mark.length))
    );
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Processor milliseconds (user and system) the process has used so far, all its threads. */
async function cpuMs(pid: number): Promise<number> {
  // Read by cat: Deno reads /proc only with every permission.
  const stat = await output("cat", [`/proc/${pid}/stat`], "/");
  const fields = stat.split(") ")[1].split(" ");
  // utime and stime, fields 14 and 15 of the line (11 and 12 after the command), in 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Wall and processor milliseconds of `rg -w -n NAME` in the checkout. */
async function rgRun(name: string, repo: string): Promise<{ ms: number; cpu: number }> {
  const started = performance.now();
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "%U %S", "rg", "-w", "-n", name],
    cwd: repo,
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - started;
  const [user, system] = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1)!.split(" ")
    .map(Number);
  return { ms, cpu: (user + system) * 1000 };
}

/** One class: each name's first page over MCP, then rg on the same names; one table row. */
async function measure(
  client: Client,
  at: { label: string; drawn: Site[]; repo: string; head: string; pid: number },
): Promise<void> {
  const times: number[] = [];
  const cpus: number[] = [];
  const rows: number[] = [];
  const kept: Site[] = [];
  for (const site of at.drawn) {
    const cpu = await cpuMs(at.pid);
    const t = performance.now();
    const outcome = await callTool(client, "references", {
      repo: "local/deno",
      revision: at.head,
      path: site.path,
      line: site.line,
      symbol: site.name,
    });
    const ms = performance.now() - t;
    // A definition line of the draw may be in a comment or a string: that name is left out.
    if (outcome.code === "NOT_AN_IDENTIFIER") continue;
    if (outcome.code !== "OK") throw new Error(`${site.name}: ${outcome.code} ${outcome.texts[0]}`);
    times.push(ms);
    cpus.push((await cpuMs(at.pid)) - cpu);
    kept.push(site);
    answers.push(`== ${site.name} ${site.path}:${site.line}\n${outcome.texts.join("\n")}`);
    rows.push(outcome.texts[0].split("\n").filter((line) => /^\d+ \[/.test(line)).length);
    if (VERBOSE) {
      console.log(`  ${site.name} (${site.count}) ${ms.toFixed(0)} ms, ${cpus.at(-1)} CPU ms`);
    }
  }
  const rg: { ms: number; cpu: number }[] = [];
  for (const site of kept) rg.push(await rgRun(site.name, at.repo));
  const p50 = percentile(times, 50);
  const rgP50 = percentile(rg.map((r) => r.ms), 50);
  const counts = percentile(kept.map((s) => s.count), 50);
  console.log(
    `| ${at.label} | ${kept.length} | ${counts} | ${percentile(rows, 50)} | ${p50.toFixed(0)} / ${
      percentile(times, 95).toFixed(0)
    } | ${rgP50.toFixed(0)} / ${percentile(rg.map((r) => r.ms), 95).toFixed(0)} | ${
      (p50 / rgP50).toFixed(2)
    }x | ${percentile(cpus, 50).toFixed(0)} / ${percentile(rg.map((r) => r.cpu), 50).toFixed(0)} |`,
  );
}

const parent = CHECKOUT === "" ? await tempDir("sg-refs-speed-") : null;
try {
  const repo = parent === null ? CHECKOUT : await makeCorpus(parent);
  const head = await git(repo, ["rev-parse", "HEAD"]);
  const files = (await git(repo, ["ls-files"])).split("\n").length;
  console.log(
    `tree: ${TREE} as local/deno, ${files} files; ${cpus().length} CPUs; ${
      new Date().toISOString()
    }`,
  );
  const counts = await wordCounts(repo);
  const random = prng(SEED);
  const classes: [string, Site[]][] = [];
  const warmUps: Site[] = [];
  for (const language of Object.keys(DEFINITIONS)) {
    const all = await sites(repo, language, counts);
    warmUps.push(...draw(all, (s) => s.count >= 200 && s.count < 1000, random).slice(0, 2));
    // Every language's names are drawn, so a class's names do not depend on `--languages`.
    const rare = draw(all, (s) => s.count >= 20 && s.count <= 100, random);
    const common = draw(all, (s) => s.count >= 1000, random);
    if (!LANGUAGES.includes(language)) continue;
    classes.push([`${language} rare (20-100)`, rare], [`${language} common (1000+)`, common]);
  }
  const started = performance.now();
  const service = await startService(repo, { SOURCEGRAPH_API_TOKEN: TOKEN }, {
    lineTimeoutMs: 900_000,
  });
  const client = await connectClient(service.url, { token: TOKEN });
  try {
    if (parent === null) {
      // The checkout's index was built by an earlier run: ready once a search says so.
      while (
        !(await callTool(client, "search", { repo: "local/deno", pattern: "fn main" })).texts[0]
          .includes('Index: "ready"')
      ) {
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    } else {
      const built = await waitForIndex(service, head);
      console.log(`index: ${built.slice(built.indexOf(":") + 2)}`);
    }
    console.log(`start to index ready: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // Warm-up calls (JIT, workers, grammars) on names outside the drawn ones.
    for (const site of warmUps) {
      await callTool(client, "references", {
        repo: "local/deno",
        path: site.path,
        line: site.line,
        symbol: site.name,
      });
    }
    console.log(
      "| class | names | occurrences (median) | rows (median) | service p50 / p95 ms | rg -w p50 / p95 ms | service/rg p50 | service / rg CPU ms p50 |",
    );
    console.log("|---|---|---|---|---|---|---|---|");
    for (const [label, drawn] of classes) {
      await measure(client, { label, drawn, repo, head, pid: service.pid });
    }
    console.log(`service RSS at the end: ${(await rssMib(service.pid)).toFixed(0)} MiB`);
    if (ANSWERS !== "") await Deno.writeTextFile(ANSWERS, answers.join("\n"));
  } finally {
    await client.close();
    await service.stop();
  }
} finally {
  if (parent !== null) await removeDir(parent);
}
