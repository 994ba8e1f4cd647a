/**
 * Benchmark of the `commits` tool end to end over HTTP MCP (the SDK client
 * against the service started as `deno task start` does), side by side in
 * the same run with `git log --grep` / `--author` / `-S` / `-G` on the
 * same repository.
 *
 * The repository replays the history of a source repository (`--source`,
 * a Git directory such as a mirror of denoland/deno): every commit of its
 * HEAD with its message, author, committer, dates and parents (merges
 * included), each over a small tree (one file per commit, written with its
 * subject), made with `git fast-import`. Message and author searches read
 * only commits, so they see the source's own history; `-S` and `-G` see
 * the small trees.
 *
 * Prints, per query class, the service's p50 / p95 (the first call, which
 * reads the log, apart) and Git's p50 for the same selection.
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env \
 *   --allow-net=127.0.0.1 tests/bench/commits_bench.ts --source PATH [--runs N]
 *
 * @module
 */

import { join } from "node:path";
import { percentile } from "../support/bench_stats.ts";
import { git, removeDir, tempDir } from "../support/git_repo.ts";
import { connectClient, startService } from "../support/sourcegraph_service.ts";
import { callTool } from "../support/tool_calls.ts";

const args = Deno.args;
const SOURCE = args.includes("--source") ? args[args.indexOf("--source") + 1] : null;
const RUNS = Number(args.includes("--runs") ? args[args.indexOf("--runs") + 1] : 30);
const WARM_UP = 3;
const TOKEN = "s".repeat(40);
const REPO = "local/replay";

interface QueryClass {
  name: string;
  mcp: Record<string, unknown>;
  git: string[];
}

const CLASSES: QueryClass[] = [
  {
    name: "message, rare literal",
    mcp: { message: "WebSocketStream" },
    git: ["--grep=WebSocketStream"],
  },
  { name: "message, common word", mcp: { message: "fix" }, git: ["--grep=fix"] },
  { name: "message, anchored", mcp: { message: "^Revert" }, git: ["--grep=^Revert"] },
  {
    name: "message, alternation",
    mcp: { message: "^(feat|perf)\\(ext/(node|web)\\)" },
    git: [
      "-E",
      "--grep=^(feat|perf)\\(ext/(node|web)\\)",
    ],
  },
  {
    name: "message, ignore case",
    mcp: { message: "(?i)readablestream" },
    git: [
      "-i",
      "--grep=readablestream",
    ],
  },
  {
    name: "message, no literal",
    mcp: { message: "[A-Z][a-z]+Stream\\b" },
    git: [
      "-E",
      "--grep=[A-Z][a-z]+Stream\\b",
    ],
  },
  { name: "author", mcp: { author: "Bartek" }, git: ["--author=Bartek"] },
  {
    name: "message and author",
    mcp: { message: "lsp", author: "Nayeem" },
    git: [
      "--grep=lsp",
      "--author=Nayeem",
    ],
  },
  { name: "-S (small trees)", mcp: { added_or_removed: "Revert" }, git: ["-SRevert"] },
  { name: "-G (small trees)", mcp: { changed_regex: "^fix\\(lsp\\)" }, git: ["-G^fix\\(lsp\\)"] },
];

// A fast-import stream replaying `source`'s HEAD: same commits, small trees.
async function replayStream(source: string): Promise<{ stream: Uint8Array; commits: number }> {
  const out = await new Deno.Command("git", {
    args: [
      "--git-dir",
      source,
      "log",
      "--reverse",
      "--topo-order",
      "--date=raw",
      "--format=%H%x00%P%x00%an <%ae> %ad%x00%cn <%ce> %cd%x00%s%x00%B%x00%x1e",
      "HEAD",
    ],
    stdout: "piped",
  }).output();
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  const marks = new Map<string, number>();
  const records = new TextDecoder().decode(out.stdout).split("\0\x1e\n").filter((r) => r !== "");
  for (const [i, record] of records.entries()) {
    const [sha, parents, author, committer, subject, message] = record.split("\0");
    const mark = i + 1;
    marks.set(sha.trim(), mark);
    const parentMarks = parents.split(" ").filter((p) => p !== "").map((p) => marks.get(p)!);
    const body = encoder.encode(message);
    const file = encoder.encode(`${subject}\n`);
    const head = [
      `commit refs/heads/${parentMarks.length === 0 && i > 0 ? `root-${i}` : "main"}`,
      `mark :${mark}`,
      `author ${author}`,
      `committer ${committer}`,
      `data ${body.length}`,
    ].join("\n");
    const tail = [
      "",
      ...(parentMarks.length > 0 ? [`from :${parentMarks[0]}`] : []),
      ...parentMarks.slice(1).map((p) => `merge :${p}`),
      `M 100644 inline changes/${i % 64}.txt`,
      `data ${file.length}`,
    ].join("\n");
    parts.push(
      encoder.encode(`${head}\n`),
      body,
      encoder.encode(`${tail}\n`),
      file,
      encoder.encode("\n"),
    );
  }
  parts.push(encoder.encode(`reset refs/heads/main\nfrom :${records.length}\n\n`));
  const stream = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    stream.set(part, at);
    at += part.length;
  }
  return { stream, commits: records.length };
}

async function gitTimes(repo: string, query: QueryClass): Promise<{ p50: number; count: number }> {
  const times: number[] = [];
  let count = 0;
  for (let i = 0; i < Math.min(RUNS, 10); i++) {
    const t = performance.now();
    const out = await git(repo, ["log", "--format=%H", "--max-count=20", ...query.git, "main"]);
    times.push(performance.now() - t);
    count = out === "" ? 0 : out.split("\n").length;
  }
  return { p50: percentile(times, 50), count };
}

async function main(): Promise<void> {
  if (SOURCE === null) throw new Error("--source PATH (a Git directory) is required");
  const parent = await tempDir("commits-bench-");
  try {
    const repo = join(parent, "replay");
    await Deno.mkdir(repo);
    await git(repo, ["init", "-q", "-b", "main"]);
    let started = performance.now();
    const { stream, commits } = await replayStream(SOURCE);
    await git(repo, ["fast-import", "--quiet"], stream);
    await git(repo, ["checkout", "-q", "-f", "main"]);
    console.log(
      `replayed ${commits} commits in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    started = performance.now();
    const service = await startService(repo, { SOURCEGRAPH_API_TOKEN: TOKEN }, {
      lineTimeoutMs: 600_000,
    });
    console.log(`service ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const client = await connectClient(service.url, { token: TOKEN });
    try {
      const first = performance.now();
      const cold = await callTool(client, "commits", { repo: REPO, message: "WebSocketStream" });
      if (cold.code !== "OK") throw new Error(cold.texts[0]);
      console.log(
        `first call (reads and keeps the log): ${(performance.now() - first).toFixed(0)} ms`,
      );
      console.log("| class | commits shown | service p50 / p95 ms | git log -n 20 p50 ms |");
      for (const query of CLASSES) {
        const times: number[] = [];
        let shown = "";
        for (let i = 0; i < RUNS + WARM_UP; i++) {
          const t = performance.now();
          const outcome = await callTool(client, "commits", { repo: REPO, ...query.mcp });
          const ms = performance.now() - t;
          if (outcome.code !== "OK") throw new Error(`${query.name}: ${outcome.texts[0]}`);
          if (i >= WARM_UP) times.push(ms);
          shown = /Commits: (\d+)/.exec(outcome.texts[0])?.[1] ?? "?";
        }
        const baseline = await gitTimes(repo, query);
        if (String(baseline.count) !== shown) {
          throw new Error(`${query.name}: the service showed ${shown}, git ${baseline.count}`);
        }
        console.log(
          `| ${query.name} | ${shown} | ${percentile(times, 50).toFixed(1)} / ${
            percentile(times, 95).toFixed(1)
          } | ${baseline.p50.toFixed(1)} |`,
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
