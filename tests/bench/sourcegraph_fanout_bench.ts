/**
 * Search across repositories, end to end over HTTP MCP with the service as
 * `deno task start` runs it: 20 distinct repositories cut from the Git
 * project's source tree (the git-1a3e64c6c4 tarball; each takes a quarter
 * of its files, with identifier letters rotated per repository so nothing
 * is shared), every index built, then p50/p95 of a search of all 20 for a
 * rare literal (in one repository), a common literal (`NULL`, in every
 * one), and one repository's
 * own search of the same rare literal, beside `rg` over the 20 work trees
 * in the same run.
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env \
 *   --allow-net=127.0.0.1 tests/bench/sourcegraph_fanout_bench.ts [--corpus PATH]
 *
 * @module
 */

import { join } from "node:path";
import { percentile } from "../support/bench_stats.ts";
import { git, removeDir, tempDir } from "../support/git_repo.ts";
import { connectClient, startService } from "../support/sourcegraph_service.ts";
import { callTool } from "../support/tool_calls.ts";

const args = Deno.args;
const TARBALL = args.includes("--corpus")
  ? args[args.indexOf("--corpus") + 1]
  : new URL("../../../shared/corpora/git-1a3e64c6c4.tar.gz", import.meta.url).pathname;
const REPOSITORIES = 20;
const RUNS = 20;
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
  const dir = await tempDir("sg-fanout-bench-");
  try {
    const { paths, bytes } = await makeRepositories(dir);
    console.log(
      `${REPOSITORIES} repositories, ${(bytes / 1024 / 1024).toFixed(0)} MiB in all ` +
        `(${(bytes / 1024 / 1024 / REPOSITORIES).toFixed(1)} MiB each)`,
    );
    const service = await startService(dir, { SOURCEGRAPH_API_TOKEN: TOKEN }, {
      repositories: paths,
      lineTimeoutMs: 900_000,
    });
    const client = await connectClient(service.url, { token: TOKEN });
    try {
      // The literal as the first repository holding it spells it (no other repository does).
      let holder = 0;
      while (!(await holds(paths[holder], rotate("xdl_do_merge", holder)))) holder++;
      const rare = rotate("xdl_do_merge", holder);
      const search = (extra: Record<string, unknown>) =>
        callTool(client, "search", { fixed_strings: true, ...extra });
      // Every repository's index built (each one's own search says so).
      for (const path of paths) {
        const repo = `local/${path.slice(path.lastIndexOf("/") + 1)}`;
        while (!(await search({ repo, pattern: rare })).texts[0].includes('Index: "ready"')) {
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
      const classes: [string, Record<string, unknown>, string, string[]][] = [
        ["rare literal, all 20", { pattern: rare }, rare, paths],
        // Upper-case letters are not rotated: every repository holds this one.
        ["common literal, all 20", { pattern: "NULL" }, "NULL", paths],
        [
          "rare literal, one repository",
          {
            repo: `local/repo${String(holder).padStart(2, "0")}`,
            pattern: rare,
          },
          rare,
          [paths[holder]],
        ],
      ];
      console.log("| query | service p50 | p95 | rg p50 | ratio |");
      console.log("|---|---:|---:|---:|---:|");
      for (const [name, call, literal, scope] of classes) {
        const times: number[] = [];
        for (let run = 0; run < RUNS + 3; run++) {
          const started = performance.now();
          await search(call);
          if (run >= 3) times.push(performance.now() - started);
        }
        const rg: number[] = [];
        for (let run = 0; run < 5; run++) rg.push(await timeRg(literal, scope));
        const p50 = percentile(times, 50);
        console.log(
          `| ${name} | ${p50.toFixed(1)} ms | ${percentile(times, 95).toFixed(1)} ms | ` +
            `${percentile(rg, 50).toFixed(0)} ms | ${(p50 / percentile(rg, 50)).toFixed(2)}× |`,
        );
      }
    } finally {
      await client.close();
      await service.stop();
    }
  } finally {
    await removeDir(dir);
  }
}
