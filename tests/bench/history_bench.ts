/**
 * Benchmark of the `blame` and `history` tools end to end over HTTP MCP
 * (the SDK client against the service started as `deno task start` does),
 * side by side in the same run with `git blame --porcelain` and `git log -L`
 * on the same repository.
 *
 * The repository holds one file of 5,000 lines changed by 1,000 commits
 * (made with `git fast-import`): each commit rewrites a few lines at
 * varying places, inserts or deletes one now and then, and every 25th moves
 * a block of 20 to 60 lines elsewhere in the file.
 *
 * Prints, per target, the first call and the p50 / p95 of repeated calls of
 * the service and of Git's own command (their calls alternate, so a busy
 * machine's load falls on both alike), and the ratio of the p50s (service /
 * Git). The service keeps Git's blames and histories by commit, path and
 * range, so a repeated call is answered from that cache; a target's first
 * call is cold only in its first row. The rows marked "uncached" ask a range
 * shifted by one line each call (and Git the same range), so every call of
 * both runs Git: the cost of a first call, as a p50.
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env \
 *   --allow-sys=uid --allow-net=127.0.0.1 tests/bench/history_bench.ts [--runs N] [--only WORD]
 * (`--only uncached`: the rows whose name holds the word, here the two first-call rows).
 *
 * @module
 */

import { join } from "node:path";
import { percentile, prng } from "../support/bench_stats.ts";
import { git, removeDir, tempDir } from "../support/git_repo.ts";
import { connectClient, startService } from "../support/sourcegraph_service.ts";
import { callTool } from "../support/tool_calls.ts";

const args = Deno.args;
const RUNS = Number(args.includes("--runs") ? args[args.indexOf("--runs") + 1] : 20);
const ONLY = args.includes("--only") ? args[args.indexOf("--only") + 1] : "";
const LINES = 5_000;
const COMMITS = 1_000;
const TOKEN = "s".repeat(40);
const REPO = "local/history";
const FILE = "src/ledger.ts";

// A fast-import stream of COMMITS commits of FILE, each a full copy of it.
function historyStream(): Uint8Array {
  const random = prng(42);
  const encoder = new TextEncoder();
  let serial = 0;
  const fresh = (): string => `export const entry${++serial} = compute(${serial}, "v${serial}");`;
  let lines = Array.from({ length: LINES }, fresh);
  const parts: Uint8Array[] = [];
  for (let c = 1; c <= COMMITS; c++) {
    if (c > 1) {
      const edits = 1 + Math.floor(random() * 4);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(random() * lines.length);
        const kind = random();
        if (kind < 0.7) lines[at] = fresh();
        else if (kind < 0.85 || lines.length < LINES) lines.splice(at, 0, fresh());
        else lines.splice(at, 1);
      }
      if (c % 25 === 0) {
        const size = 20 + Math.floor(random() * 41);
        const from = Math.floor(random() * (lines.length - size));
        const block = lines.splice(from, size);
        const to = Math.floor(random() * lines.length);
        lines = [...lines.slice(0, to), ...block, ...lines.slice(to)];
      }
    }
    const message = encoder.encode(`change ${c} of the ledger\n`);
    const file = encoder.encode(lines.join("\n") + "\n");
    const when = 1_700_000_000 + c * 3600;
    parts.push(
      encoder.encode(
        [
          "commit refs/heads/main",
          `mark :${c}`,
          `author Dev ${c % 7} <dev${c % 7}@example.com> ${when} +0000`,
          `committer Dev ${c % 7} <dev${c % 7}@example.com> ${when} +0000`,
          `data ${message.length}`,
          "",
        ].join("\n"),
      ),
      message,
      encoder.encode(
        [
          "",
          ...(c > 1 ? [`from :${c - 1}`] : []),
          `M 100644 inline ${FILE}`,
          `data ${file.length}`,
          "",
        ].join("\n"),
      ),
      file,
      encoder.encode("\n"),
    );
  }
  const stream = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    stream.set(part, offset);
    offset += part.length;
  }
  return stream;
}

interface Target {
  name: string;
  tool: string;
  mcp: Record<string, unknown>;
  gitName: string;
  git: string[];
  /** The `i`th call's arguments and Git command, when each call asks another range. */
  shifted?: (i: number) => { mcp: Record<string, unknown>; git: string[] };
}

interface Times {
  cold: number;
  warm: number[];
}

async function runGitOnce(repo: string, command: string[]): Promise<number> {
  const t = performance.now();
  const out = await new Deno.Command("git", { args: command, cwd: repo, stdout: "piped" })
    .output();
  if (!out.success) throw new Error(`git ${command.join(" ")} failed`);
  return performance.now() - t;
}

function fmt(ms: number): string {
  return ms.toFixed(1);
}

async function main(): Promise<void> {
  const parent = await tempDir("history-bench-");
  try {
    const repo = join(parent, "history");
    await Deno.mkdir(repo);
    await git(repo, ["init", "-q", "-b", "main"]);
    let started = performance.now();
    await git(repo, ["fast-import", "--quiet"], historyStream());
    await git(repo, ["checkout", "-q", "-f", "main"]);
    await git(repo, ["repack", "-a", "-d", "-q"]);
    const sha = await git(repo, ["rev-parse", "main"]);
    const lines = (await Deno.readTextFile(join(repo, FILE))).split("\n").length - 1;
    console.log(
      `${COMMITS} commits of a ${lines}-line file in ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s; head ${sha}`,
    );
    const targets: Target[] = [
      {
        name: "blame, first page (lines 1-500)",
        tool: "blame",
        mcp: { path: FILE },
        gitName: "git blame --porcelain (whole file)",
        git: ["blame", "--porcelain", sha, "--", FILE],
      },
      {
        name: "blame, first page (lines 1-500)",
        tool: "blame",
        mcp: { path: FILE },
        gitName: "git blame --porcelain -L 1,500",
        git: ["blame", "--porcelain", "-L", "1,500", sha, "--", FILE],
      },
      {
        name: "blame, lines 2401-2600",
        tool: "blame",
        mcp: { path: FILE, start_line: 2401, end_line: 2600 },
        gitName: "git blame --porcelain (whole file)",
        git: ["blame", "--porcelain", sha, "--", FILE],
      },
      {
        name: "blame, lines 2401-2600",
        tool: "blame",
        mcp: { path: FILE, start_line: 2401, end_line: 2600 },
        gitName: "git blame --porcelain -L 2401,2600",
        git: ["blame", "--porcelain", "-L", "2401,2600", sha, "--", FILE],
      },
      {
        name: "history, lines 2501-2520 (20 commits)",
        tool: "history",
        mcp: { path: FILE, start_line: 2501, end_line: 2520 },
        gitName: "git log -L 2501,2520 (all commits)",
        git: ["log", "-L", `2501,2520:${FILE}`, sha],
      },
      {
        name: "blame, 200 lines, uncached (start shifted each call)",
        tool: "blame",
        mcp: {},
        gitName: "git blame --porcelain -L <same range>",
        git: [],
        shifted: (i) => ({
          mcp: { path: FILE, start_line: 1001 + i, end_line: 1200 + i },
          git: ["blame", "--porcelain", "-L", `${1001 + i},${1200 + i}`, sha, "--", FILE],
        }),
      },
      {
        name: "history, 20 lines, uncached (start shifted each call)",
        tool: "history",
        mcp: {},
        gitName: "git log -L <same range> (all commits)",
        git: [],
        shifted: (i) => ({
          mcp: { path: FILE, start_line: 3001 + i, end_line: 3020 + i },
          git: ["log", "-L", `${3001 + i},${3020 + i}:${FILE}`, sha],
        }),
      },
      {
        name: "history of the path (20 commits)",
        tool: "history",
        mcp: { path: FILE },
        gitName: "git log --follow -n 21 --name-only",
        git: ["log", "--follow", "-n", "21", "--name-only", sha, "--", FILE],
      },
    ];
    started = performance.now();
    const service = await startService(repo, { SOURCEGRAPH_API_TOKEN: TOKEN }, {
      lineTimeoutMs: 600_000,
    });
    console.log(`service ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const client = await connectClient(service.url, { token: TOKEN });
    try {
      console.log(
        "| target | service first ms | service p50 / p95 ms | Git command | Git first ms | Git p50 / p95 ms | p50 ratio |",
      );
      console.log("| --- | --: | --: | --- | --: | --: | --: |");
      for (const target of targets.filter((row) => row.name.includes(ONLY))) {
        let turn = 0;
        const asked = () => target.shifted?.(turn) ?? { mcp: target.mcp, git: target.git };
        const call = async (): Promise<number> => {
          const t = performance.now();
          const outcome = await callTool(client, target.tool, {
            repo: REPO,
            revision: sha,
            ...asked().mcp,
          });
          const ms = performance.now() - t;
          if (outcome.code !== "OK") throw new Error(`${target.name}: ${outcome.texts[0]}`);
          return ms;
        };
        // Alternated call by call, so the load of a shared machine falls on both alike.
        const service: Times = { cold: await call(), warm: [] };
        const baseline: Times = { cold: await runGitOnce(repo, asked().git), warm: [] };
        for (let i = 0; i < RUNS; i++) {
          turn++;
          service.warm.push(await call());
          baseline.warm.push(await runGitOnce(repo, asked().git));
        }
        const ratio = percentile(service.warm, 50) / percentile(baseline.warm, 50);
        console.log(
          `| ${target.name} | ${fmt(service.cold)} | ${fmt(percentile(service.warm, 50))} / ${
            fmt(percentile(service.warm, 95))
          } | ${target.gitName} | ${fmt(baseline.cold)} | ${fmt(percentile(baseline.warm, 50))} / ${
            fmt(percentile(baseline.warm, 95))
          } | ${ratio.toFixed(2)}× |`,
        );
      }
    } finally {
      await client.close();
      await service.stop();
    }
  } finally {
    await removeDir(parent);
  }
}

await main();
