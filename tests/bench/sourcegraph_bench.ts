/**
 * Benchmark of the sourcegraph service end to end over HTTP MCP (the SDK
 * client against the service started as `deno task start` does), on a
 * generated repository of about 10,000 files and 64 MiB: read of 500 lines, read_many of 10 items, literal and
 * regex search side by side with `git grep` at the same commit, and 32
 * concurrent clients for 30 s (throughput, errors, peak RSS).
 *
 * Run: deno run --allow-read --allow-write --allow-run \
 *   --allow-env --allow-net=127.0.0.1 tests/bench/sourcegraph_bench.ts
 *
 * @module
 */

import { join } from "node:path";
import { percentile, timed } from "../support/bench_stats.ts";
import { git, removeDir, tempDir } from "../support/git_repo.ts";
import { connectClient, startService } from "../support/sourcegraph_service.ts";
import { texts } from "../support/tool_calls.ts";

const FILES = 10_000;
const TARGET_BYTES = 64 * 1024 * 1024;
const LOAD_SECONDS = Number(Deno.env.get("SG_BENCH_LOAD_SECONDS") ?? 30);
const CLIENTS = 32;
const WORDS = [
  "alpha",
  "bravo",
  "charlie",
  "delta",
  "echo",
  "foxtrot",
  "golf",
  "hotel",
  "india",
  "juliet",
];

const parent = await tempDir("sg-bench-");
try {
  const repo = join(parent, "project");
  await Deno.mkdir(repo);
  await git(repo, ["init", "-q", "-b", "main"]);
  await Deno.writeTextFile(join(repo, ".gitignore"), ".sourcegraph/\n");
  const perFile = Math.floor(TARGET_BYTES / FILES);
  const paths: string[] = [];
  let seed = 1;
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let i = 0; i < FILES; i++) {
    const lines: string[] = [];
    let size = 0;
    while (size < perFile) {
      const line = `const ${WORDS[Math.floor(rand() * 10)]}${i % 97} = ${
        WORDS[Math.floor(rand() * 10)]
      }(${Math.floor(rand() * 1e6)}); // ${WORDS[Math.floor(rand() * 10)]}`;
      lines.push(line);
      size += line.length + 1;
    }
    if (i % 1000 === 7) lines[3] = `export function uniqueNeedle${i}() { return "zebracorn"; }`;
    const path = `pkg${String(i % 100).padStart(2, "0")}/file${String(i).padStart(5, "0")}.ts`;
    await Deno.mkdir(join(repo, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(repo, path), lines.join("\n") + "\n");
    paths.push(path);
  }
  await git(repo, ["add", "-A"]);
  await git(repo, ["commit", "-q", "-m", "corpus"]);
  const head = await git(repo, ["rev-parse", "HEAD"]);
  console.log(`corpus: ${FILES} files, ${(TARGET_BYTES / 1048576).toFixed(0)} MiB target`);

  // Authenticated, as a deployed agent would be (anonymous callers are rate limited).
  const token = "b".repeat(40);
  // Every client here shares 127.0.0.1; agents of a deployment come from their own addresses,
  // so the per-address cap (a sixteenth of the global one) is raised to the global cap.
  const service = await startService(repo, {
    SOURCEGRAPH_API_TOKEN: token,
    SOURCEGRAPH_MAX_CONNECTIONS_PER_ADDRESS: "512",
  });
  const client = await connectClient(service.url, { token });
  const name = "local/project";
  const call = async (tool: string, args: Record<string, unknown>) => {
    const result = await client.callTool({
      name: tool,
      arguments: { repo: name, revision: head, ...args },
    });
    if (result.isError) throw new Error(`${tool}: ${texts(result)[0]}`);
    return texts(result);
  };
  // Warm the object reader and tree cache once.
  await call("read", { path: paths[0] });

  const readTimes: number[] = [];
  for (let i = 0; i < 200; i++) {
    readTimes.push(await timed(() => call("read", { path: paths[(i * 37) % FILES] })));
  }
  const manyTimes: number[] = [];
  for (let i = 0; i < 50; i++) {
    const files = Array.from(
      { length: 10 },
      (_, j) => ({ path: paths[(i * 101 + j * 13) % FILES], end_line: 50 }),
    );
    manyTimes.push(await timed(() => call("read_many", { files })));
  }
  const searches: [string, Record<string, unknown>, string[]][] = [
    ["literal", { pattern: "uniqueNeedle5007", fixed_strings: true }, [
      "-F",
      "-e",
      "uniqueNeedle5007",
    ]],
    ["literal, many files", { pattern: "zebracorn", fixed_strings: true }, [
      "-F",
      "-e",
      "zebracorn",
    ]],
    ["regex", { pattern: "uniqueNeedle[0-9]+\\(\\)" }, ["-E", "-e", "uniqueNeedle[0-9]+\\(\\)"]],
  ];
  // The first search starts building the in-memory corpus of this commit in
  // the background (git grep answers meanwhile); measure once it is ready.
  await call("search", { pattern: "warmup", fixed_strings: true });
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const searchRows: string[] = [];
  // ripgrep on the checkout is the other tool a user would pick (respects .gitignore: the
  // service's data folder is skipped).
  // A missing program makes output() throw at once, not reject.
  const rg = await (async () => {
    try {
      return (await new Deno.Command("rg", { args: ["--version"], stdout: "null" }).output())
        .success;
    } catch {
      return false;
    }
  })();
  if (!rg) console.log("rg not installed: the ripgrep baseline is skipped");
  for (const [label, args, grepArgs] of searches) {
    const ours: number[] = [];
    const theirs: number[] = [];
    const threaded: number[] = [];
    const ripgrep: number[] = [];
    const grep = (extra: string[]) =>
      timed(() =>
        new Deno.Command("git", {
          args: ["grep", ...extra, "-n", ...grepArgs, head],
          cwd: repo,
          stdout: "null",
        }).output()
      );
    for (let i = 0; i < 15; i++) {
      ours.push(await timed(() => call("search", args)));
      theirs.push(await grep([]));
      threaded.push(await grep([`--threads=${navigator.hardwareConcurrency}`]));
      if (rg) {
        ripgrep.push(
          await timed(() =>
            new Deno.Command("rg", {
              args: ["-n", ...grepArgs.filter((arg) => arg !== "-E")],
              cwd: repo,
              stdout: "null",
            }).output()
          ),
        );
      }
    }
    const rgCell = rg
      ? `; rg: ${percentile(ripgrep, 50).toFixed(1)} ms (${
        (percentile(ours, 50) / percentile(ripgrep, 50)).toFixed(2)
      }x)`
      : "";
    searchRows.push(
      `| search ${label}, p50 | ${percentile(ours, 50).toFixed(1)} ms | git grep: ${
        percentile(theirs, 50).toFixed(1)
      } ms (with --threads: ${percentile(threaded, 50).toFixed(1)} ms)${rgCell} | ${
        (percentile(ours, 50) / percentile(theirs, 50)).toFixed(2)
      }x (${(percentile(ours, 50) / percentile(threaded, 50)).toFixed(2)}x) |`,
    );
  }

  // Load: 32 clients reading and searching for LOAD_SECONDS.
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, () => connectClient(service.url, { token })),
  );
  let done = 0;
  let errors = 0;
  const errorKinds = new Map<string, number>();
  const until = Date.now() + LOAD_SECONDS * 1000;
  await Promise.all(clients.map(async (c: typeof client, k: number) => {
    let i = k;
    while (Date.now() < until) {
      const tool = i % 10 === 0 ? "search" : "read";
      const args = tool === "search"
        ? { pattern: `uniqueNeedle${(i % 10) * 1000 + 7}`, fixed_strings: true }
        : { path: paths[(i * 7919) % FILES] };
      const result = await c.callTool({
        name: tool,
        arguments: { repo: name, revision: head, ...args },
      })
        .catch((error: unknown) => ({
          isError: true,
          content: [{ type: "text", text: String(error) }],
        }));
      if (result.isError) {
        errors++;
        const text = JSON.stringify(result.content).slice(0, 200);
        errorKinds.set(text, (errorKinds.get(text) ?? 0) + 1);
      }
      done++;
      i += CLIENTS;
    }
  }));
  const pid = Number(
    new TextDecoder().decode(
      (await new Deno.Command("pgrep", { args: ["-f", `sourcegraph/main.ts`], stdout: "piped" })
        .output()).stdout,
    ).trim().split("\n")[0],
  );
  const status = new TextDecoder().decode(
    (await new Deno.Command("cat", { args: [`/proc/${pid}/status`], stdout: "piped" }).output())
      .stdout,
  );
  const rss = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
  for (const c of clients) await c.close();
  await client.close();
  await service.stop();

  console.log("| measure | service | baseline | ratio |\n|---|---|---|---|");
  console.log(
    `| read 500 lines, p50 / p95 | ${percentile(readTimes, 50).toFixed(1)} / ${
      percentile(readTimes, 95).toFixed(1)
    } ms | | |`,
  );
  console.log(`| read_many 10 items, p50 | ${percentile(manyTimes, 50).toFixed(1)} ms | | |`);
  for (const row of searchRows) console.log(row);
  console.log(
    `| ${CLIENTS} clients for ${LOAD_SECONDS} s | ${
      (done / LOAD_SECONDS).toFixed(0)
    } calls/s, ${errors} errors | | |`,
  );
  console.log(`| service peak RSS | ${rss.toFixed(0)} MB | | |`);
  for (const [text, count] of errorKinds) console.log(`error x${count}: ${text}`);
} finally {
  await removeDir(parent);
}
