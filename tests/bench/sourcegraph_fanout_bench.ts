/**
 * Search across repositories, end to end over HTTP MCP with the service as
 * `deno task start` runs it: 20 distinct repositories cut from the Git
 * project's source tree (the git-1a3e64c6c4 tarball; each takes a quarter
 * of its files, with identifier letters rotated per repository so nothing
 * is shared), every index built, then p50/p95 of a search of all 20 for a
 * rare literal (in one repository), a common literal (`NULL`, in every
 * one), and one repository's
 * own search of the same rare literal, beside `rg` over the 20 work trees
 * in the same run, and the service's processor time a call.
 *
 * With `--tree PATH --split-depth N`, the repositories are instead the
 * folders N levels below a work tree's top, copied out as they are (the
 * `--repositories` largest by file count, 60 by default; ties in name
 * order), the rare literal `--rare` (held by exactly one of them) and the
 * common one `--common`. `--dir DIR` keeps the repositories and the
 * service's data there, so a later run reuses both.
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env \
 *   --allow-net=127.0.0.1 tests/bench/sourcegraph_fanout_bench.ts [--corpus PATH]
 *   [--tree PATH --split-depth 2 [--repositories 60] [--rare LITERAL] [--common LITERAL]]
 *   [--dir DIR] [--runs 20]
 *
 * @module
 */

import { join } from "node:path";
import { percentile } from "../support/bench_stats.ts";
import { git, removeDir, tempDir } from "../support/git_repo.ts";
import { connectClient, startService } from "../support/sourcegraph_service.ts";
import { callTool } from "../support/tool_calls.ts";

const args = Deno.args;
const option = (name: string): string | undefined =>
  args.includes(name) ? args[args.indexOf(name) + 1] : undefined;
const TARBALL = option("--corpus") ??
  new URL("../../../shared/corpora/git-1a3e64c6c4.tar.gz", import.meta.url).pathname;
const TREE = option("--tree");
const SPLIT_DEPTH = Number(option("--split-depth") ?? 2);
const REPOSITORIES = Number(option("--repositories") ?? (TREE ? 60 : 20));
const RUNS = Number(option("--runs") ?? 20);
const TOKEN = "f".repeat(40);

function rotate(text: string, by: number): string {
  return text.replace(
    /[A-Za-z_][A-Za-z0-9_]*/g,
    (word) =>
      word.replace(/[a-z]/g, (c) => String.fromCharCode(97 + (c.charCodeAt(0) - 97 + by) % 26)),
  );
}

// Repository r: the files whose index in the listing is r modulo 4, rotated by r.
async function makeRepositories(dir: string): Promise<{ paths: string[]; bytes: number }> {
  const source = join(dir, "source");
  await Deno.mkdir(source, { recursive: true });
  await new Deno.Command("tar", { args: ["-xzf", TARBALL, "-C", source] }).output();
  const files: string[] = [];
  const walk = async (folder: string) => {
    for await (const entry of Deno.readDir(folder)) {
      const path = join(folder, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile) files.push(path);
    }
  };
  await walk(join(source, "git"));
  files.sort();
  const paths: string[] = [];
  let bytes = 0;
  for (let r = 0; r < REPOSITORIES; r++) {
    const repo = join(dir, `repo${String(r).padStart(2, "0")}`);
    for (const [i, file] of files.entries()) {
      if (i % 4 !== r % 4) continue;
      const target = join(repo, file.slice(join(source, "git").length + 1));
      await Deno.mkdir(join(target, ".."), { recursive: true });
      const data = await Deno.readFile(file);
      let out: Uint8Array = data;
      try {
        out = new TextEncoder().encode(
          rotate(new TextDecoder("utf-8", { fatal: true }).decode(data), r),
        );
      } catch {
        // binary: kept as it is
      }
      await Deno.writeFile(target, out);
      bytes += out.length;
    }
    await git(repo, ["init", "-q", "-b", "main"]);
    await git(repo, ["add", "-A"]);
    await git(repo, ["-c", "user.name=b", "-c", "user.email=b@e", "commit", "-qm", "corpus"]);
    paths.push(repo);
  }
  return { paths, bytes };
}

// The folders `depth` levels below `tree` (no dot folders), each with its file count.
async function foldersAt(tree: string, depth: number): Promise<{ path: string; files: number }[]> {
  let level = [tree];
  for (let d = 0; d < depth; d++) {
    const next: string[] = [];
    for (const folder of level) {
      for await (const entry of Deno.readDir(folder)) {
        if (entry.isDirectory && !entry.name.startsWith(".")) next.push(join(folder, entry.name));
      }
    }
    level = next;
  }
  const count = async (folder: string): Promise<number> => {
    let files = 0;
    for await (const entry of Deno.readDir(folder)) {
      if (entry.isDirectory) files += await count(join(folder, entry.name));
      else if (entry.isFile) files++;
    }
    return files;
  };
  const folders = [];
  for (const path of level.sort()) folders.push({ path, files: await count(path) });
  return folders;
}

// Repositories copied out of `tree`: its largest folders `depth` levels down.
async function splitTree(dir: string, tree: string): Promise<{ paths: string[]; bytes: number }> {
  const folders = (await foldersAt(tree, SPLIT_DEPTH))
    .sort((a, b) => b.files - a.files || (a.path < b.path ? -1 : 1))
    .slice(0, REPOSITORIES);
  const paths: string[] = [];
  let bytes = 0;
  for (const { path } of folders.sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const repo = join(dir, path.slice(tree.length + 1).replaceAll("/", "_"));
    paths.push(repo);
    const du = await new Deno.Command("du", { args: ["-sb", "--exclude=.git", path] }).output();
    bytes += Number(new TextDecoder().decode(du.stdout).split("\t")[0]);
    try {
      await Deno.stat(join(repo, ".git"));
      continue; // kept from an earlier run
    } catch {
      // made below
    }
    await new Deno.Command("cp", { args: ["-r", path, repo] }).output();
    await git(repo, ["init", "-q", "-b", "main"]);
    await git(repo, ["add", "-A"]);
    await git(repo, ["-c", "user.name=b", "-c", "user.email=b@e", "commit", "-qm", "corpus"]);
  }
  return { paths, bytes };
}

// The processor time (user and system, every thread) a process has used, in ms (Linux:
// /proc/PID/stat counts it in clock ticks, 100 a second; read by `cat`, as Deno lets only
// --allow-all read /proc): on a shared machine a steadier measure than the wall time.
async function processorMs(pid: number): Promise<number> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/stat`] }).output();
  const fields = new TextDecoder().decode(out.stdout).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function timeRg(pattern: string, paths: string[]): Promise<number> {
  const started = performance.now();
  await new Deno.Command("rg", {
    args: ["-n", "--no-ignore", "--hidden", "-F", pattern, ...paths],
    stdout: "null",
    stderr: "null",
  }).output();
  return performance.now() - started;
}

async function holds(path: string, literal: string): Promise<boolean> {
  const out = await new Deno.Command("rg", { args: ["-q", "-F", literal, path] }).output();
  return out.success;
}

if (import.meta.main) {
  const kept = option("--dir");
  const dir = kept ?? await tempDir("sg-fanout-bench-");
  if (kept) await Deno.mkdir(kept, { recursive: true });
  try {
    const { paths, bytes } = TREE ? await splitTree(dir, TREE) : await makeRepositories(dir);
    console.log(
      `${paths.length} repositories, ${(bytes / 1024 / 1024).toFixed(0)} MiB in all ` +
        `(${(bytes / 1024 / 1024 / paths.length).toFixed(1)} MiB each)`,
    );
    const service = await startService(dir, { SOURCEGRAPH_API_TOKEN: TOKEN }, {
      repositories: paths,
      lineTimeoutMs: 900_000,
    });
    const client = await connectClient(service.url, { token: TOKEN });
    try {
      // Rotated: the literal as the first repository holding it spells it (no other one does).
      const base = TREE ? option("--rare") ?? "op_crypto_derive_bits" : "xdl_do_merge";
      const spelt = (r: number) => TREE ? base : rotate(base, r);
      let holder = 0;
      while (!(await holds(paths[holder], spelt(holder)))) holder++;
      const rare = spelt(holder);
      for (const [r, path] of paths.entries()) {
        if (r !== holder && await holds(path, rare)) throw new Error(`${rare} is in two`);
      }
      // Upper-case letters are not rotated: every repository of the Git tree holds NULL.
      const common = TREE ? option("--common") ?? "Deno" : "NULL";
      const search = (extra: Record<string, unknown>) =>
        callTool(client, "search", { fixed_strings: true, ...extra });
      const holderName = (path: string) => `local/${path.slice(path.lastIndexOf("/") + 1)}`;
      // Every repository's index built (each one's own search says so).
      for (const path of paths) {
        const repo = holderName(path);
        while (!(await search({ repo, pattern: rare })).texts[0].includes('Index: "ready"')) {
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
      const all = `all ${paths.length}`;
      const classes: [string, Record<string, unknown>, string, string[]][] = [
        [`rare literal, ${all}`, { pattern: rare }, rare, paths],
        [`common literal (\`${common}\`), ${all}`, { pattern: common }, common, paths],
        [
          "rare literal, one repository",
          { repo: holderName(paths[holder]), pattern: rare },
          rare,
          [paths[holder]],
        ],
      ];
      // What each class answers, to compare runs of two builds of the service.
      for (const [name, call] of classes) {
        const answer = (await search(call)).texts.join("\n").replace(/\d+(\.\d+)? ?ms/g, "");
        const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(answer));
        const hex = Array.from(
          new Uint8Array(digest).slice(0, 8),
          (b) => b.toString(16).padStart(2, "0"),
        );
        console.log(`answer of ${name}: ${hex.join("")} (${answer.length} characters)`);
      }
      console.log("| query | service p50 | p95 | service CPU a call | rg p50 | ratio |");
      console.log("|---|---:|---:|---:|---:|---:|");
      for (const [name, call, literal, scope] of classes) {
        const times: number[] = [];
        let cpu = 0;
        for (let run = 0; run < RUNS + 3; run++) {
          if (run === 3) cpu = await processorMs(service.pid);
          const started = performance.now();
          await search(call);
          if (run >= 3) times.push(performance.now() - started);
        }
        cpu = (await processorMs(service.pid) - cpu) / RUNS;
        const rg: number[] = [];
        for (let run = 0; run < 5; run++) rg.push(await timeRg(literal, scope));
        const p50 = percentile(times, 50);
        console.log(
          `| ${name} | ${p50.toFixed(1)} ms | ${percentile(times, 95).toFixed(1)} ms | ` +
            `${cpu.toFixed(1)} ms | ${percentile(rg, 50).toFixed(0)} ms | ${
              (p50 / percentile(rg, 50)).toFixed(2)
            }× |`,
        );
      }
    } finally {
      await client.close();
      await service.stop();
    }
  } finally {
    if (!kept) await removeDir(dir);
  }
}
