/**
 * Benchmark of search with the on-disk trigram index, end to end over HTTP
 * MCP (the SDK client against the service started as `deno task start`
 * does), side by side in the same run with `rg` on the checkout and
 * `git grep` at the commit, on (a) the Git project's source tree (the
 * git-1a3e64c6c4 tarball, `--corpus PATH`; by default the benchmark
 * machines' corpora folder beside the checkout) and (b) distinct copies of
 * it (`--copies N`, default 7: the original plus copies whose identifier
 * letters are rotated per copy, so Git and the index cannot deduplicate
 * them). Prints p50/p95 per
 * query class (the last three find nothing and are answered with their
 * explanation) and the service/rg ratio, index build time and MiB/s, index
 * bytes on disk per corpus byte, service RSS after the build and after each
 * class, the time to
 * index a commit changing 1% of files, and (on (a)) the index size for 20
 * retained versions with 1% churn each against one version.
 *
 * With `--heap-mib N` the service runs with `DENO_V8_FLAGS=--max-old-space-size=N`.
 *
 * With `--classes duckdb` and a tarball of another tree (its top folder named
 * `git`), the query classes are the same kinds of query on duckdb's source.
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env \
 *   --allow-net=127.0.0.1 tests/bench/sourcegraph_search_bench.ts [--corpus PATH] \
 *   [--copies N] [--only a|b] [--classes git|duckdb] [--heap-mib N]
 *
 * @module
 */

import { join } from "node:path";
import { percentile } from "../support/bench_stats.ts";
import { git, removeDir, tempDir } from "../support/git_repo.ts";
import { rssMib } from "../support/raw_http.ts";
import {
  connectClient,
  type RunningService,
  startService,
} from "../support/sourcegraph_service.ts";
import { callTool } from "../support/tool_calls.ts";

const args = Deno.args;
const TARBALL = args.includes("--corpus")
  ? args[args.indexOf("--corpus") + 1]
  : new URL("../../../shared/corpora/git-1a3e64c6c4.tar.gz", import.meta.url).pathname;
const COPIES = Number(args[args.indexOf("--copies") + 1] ?? 7) || 7;
const ONLY = args.includes("--only") ? args[args.indexOf("--only") + 1] : null;
const CLASSES = args.includes("--classes") ? args[args.indexOf("--classes") + 1] : "git";
// The service's heap bound (`DENO_V8_FLAGS=--max-old-space-size=N`), or V8's default.
const HEAP_MIB = args.includes("--heap-mib") ? Number(args[args.indexOf("--heap-mib") + 1]) : null;
const RUNS = 20;
// Calls before the measured ones, so every class is measured with a warm JIT.
const WARM_UP = 5;
const TOKEN = "s".repeat(40);

interface QueryClass {
  name: string;
  mcp: Record<string, unknown>;
  rg: string[];
  gitGrep: string[];
  pathspec?: string[];
}

/** The query classes (their literals occur only in the original copy), then the zero-result ones. */
function classes(): QueryClass[] {
  return [...(CLASSES === "duckdb" ? duckdbClasses() : gitClasses()), ...absentClasses()];
}

/**
 * Searches that find nothing, each answered with its explanation: a literal
 * whose trigrams no file holds, one whose trigrams are common, and one held
 * only in another case (its ignore-case check confirms at the first file).
 */
function absentClasses(): QueryClass[] {
  const upper = CLASSES === "duckdb" ? "MAKE_UNIQ" : "STRBUF_ADDF";
  return [
    ["absent literal", "zqxjkwvbnmpq"],
    ["absent, common trigrams", "the_string_of_no_file"],
    ["absent, other case", upper],
  ].map(([name, pattern]) => ({
    name,
    mcp: { pattern, fixed_strings: true },
    rg: ["-F", pattern],
    gitGrep: ["-F", "-e", pattern],
  }));
}

/** The query classes on the Git project's source tree. */
function gitClasses(): QueryClass[] {
  return [
    {
      name: "rare literal",
      mcp: { pattern: "xdl_do_merge", fixed_strings: true },
      rg: ["-F", "xdl_do_merge"],
      gitGrep: ["-F", "-e", "xdl_do_merge"],
    },
    {
      name: "common literal",
      mcp: { pattern: "strbuf_addf", fixed_strings: true },
      rg: ["-F", "strbuf_addf"],
      gitGrep: ["-F", "-e", "strbuf_addf"],
    },
    {
      name: "phrase",
      mcp: { pattern: "not a git repository", fixed_strings: true },
      rg: ["-F", "not a git repository"],
      gitGrep: ["-F", "-e", "not a git repository"],
    },
    {
      name: "regex with literals",
      mcp: { pattern: "strbuf_add(f|str)\\(&buf" },
      rg: ["strbuf_add(f|str)\\(&buf"],
      gitGrep: ["-E", "-e", "strbuf_add(f|str)\\(&buf"],
    },
    {
      name: "regex, no trigram",
      mcp: { pattern: "[A-Z]{2}_[0-9]{2}\\b" },
      rg: ["[A-Z]{2}_[0-9]{2}\\b"],
      gitGrep: ["-P", "-e", "[A-Z]{2}_[0-9]{2}\\b"],
    },
    {
      name: "ignore-case literal",
      mcp: { pattern: "STRBUF_ADDF", fixed_strings: true, ignore_case: true },
      rg: ["-F", "-i", "STRBUF_ADDF"],
      gitGrep: ["-F", "-i", "-e", "STRBUF_ADDF"],
    },
    {
      name: "path-filtered",
      mcp: { pattern: "strbuf_addf", fixed_strings: true, glob: ["*.h"] },
      rg: ["-F", "-g", "*.h", "strbuf_addf"],
      gitGrep: ["-F", "-e", "strbuf_addf"],
      pathspec: ["*.h"],
    },
  ];
}

/** The same kinds of query on duckdb's source tree. */
function duckdbClasses(): QueryClass[] {
  const literal = (name: string, pattern: string, extra: Partial<QueryClass> = {}) => ({
    name,
    mcp: { pattern, fixed_strings: true },
    rg: ["-F", pattern],
    gitGrep: ["-F", "-e", pattern],
    ...extra,
  });
  return [
    literal("rare literal", "IEJoinUnion"),
    literal("common literal", "make_uniq"),
    literal("phrase", "could not be found"),
    {
      name: "regex with literals",
      mcp: { pattern: "make_uniq<(Bound|Logical)\\w+>" },
      rg: ["make_uniq<(Bound|Logical)\\w+>"],
      gitGrep: ["-E", "-e", "make_uniq<(Bound|Logical)\\w+>"],
    },
    {
      name: "regex, no trigram",
      mcp: { pattern: "[A-Z]{2}_[0-9]{2}\\b" },
      rg: ["[A-Z]{2}_[0-9]{2}\\b"],
      gitGrep: ["-P", "-e", "[A-Z]{2}_[0-9]{2}\\b"],
    },
    {
      name: "ignore-case literal",
      mcp: { pattern: "MAKE_UNIQ", fixed_strings: true, ignore_case: true },
      rg: ["-F", "-i", "MAKE_UNIQ"],
      gitGrep: ["-F", "-i", "-e", "MAKE_UNIQ"],
    },
    literal("path-filtered", "make_uniq", {
      mcp: { pattern: "make_uniq", fixed_strings: true, glob: ["*.hpp"] },
      rg: ["-F", "-g", "*.hpp", "make_uniq"],
      pathspec: ["*.hpp"],
    }),
  ];
}

async function run(command: string, argv: string[], cwd: string): Promise<number> {
  const started = performance.now();
  await new Deno.Command(command, { args: argv, cwd, stdout: "null", stderr: "null" }).output();
  return performance.now() - started;
}

async function haveRg(): Promise<boolean> {
  return await new Deno.Command("rg", { args: ["--version"], stdout: "null" }).output().then(
    (out) => out.success,
    () => false,
  );
}

/** Extracts the Git tree into `dir` (copy 0) and `copies - 1` rotated copies beside it. */
async function makeCorpus(dir: string, copies: number): Promise<number> {
  await Deno.mkdir(dir, { recursive: true });
  await new Deno.Command("tar", { args: ["-xzf", TARBALL, "-C", dir] }).output();
  let bytes = 0;
  const files: string[] = [];
  const walk = async (folder: string) => {
    for await (const entry of Deno.readDir(folder)) {
      const path = join(folder, entry.name);
      if (entry.isDirectory && entry.name !== ".git") await walk(path);
      else if (entry.isFile) files.push(path);
    }
  };
  await walk(join(dir, "git"));
  for (const file of files) bytes += (await Deno.stat(file)).size;
  for (let copy = 1; copy < copies; copy++) {
    const rotate = (text: string) =>
      text.replace(
        /[A-Za-z_][A-Za-z0-9_]*/g,
        (word) =>
          word.replace(
            /[a-z]/g,
            (c) => String.fromCharCode(97 + (c.charCodeAt(0) - 97 + copy) % 26),
          ),
      );
    for (const file of files) {
      const target = file.replace(join(dir, "git"), join(dir, "git", `copy${copy}`));
      await Deno.mkdir(join(target, ".."), { recursive: true });
      const data = await Deno.readFile(file);
      let text: string;
      try {
        text = new TextDecoder("utf-8", { fatal: true }).decode(data);
      } catch {
        await Deno.writeFile(target, data);
        bytes += data.length;
        continue;
      }
      const out = new TextEncoder().encode(rotate(text));
      await Deno.writeFile(target, out);
      bytes += out.length;
    }
  }
  const repo = join(dir, "git");
  await Deno.writeTextFile(join(repo, ".gitignore"), ".sourcegraph/\n");
  await git(repo, ["init", "-q", "-b", "main"]);
  await git(repo, ["add", "-A"]);
  await commitAll(repo, "corpus");
  return bytes;
}

async function commitAll(repo: string, message: string): Promise<string> {
  const who = ["-c", "user.name=bench", "-c", "user.email=bench@example.org"];
  await git(repo, [...who, "commit", "-qam", message]);
  return await git(repo, ["rev-parse", "HEAD"]);
}

async function waitForIndex(service: RunningService, head: string): Promise<string> {
  // The built line (`…: N files, …`), not a progress line of a long build.
  const mark = `search index of local/git at ${head.slice(0, 12)}: `;
  for (;;) {
    const line = service.log.find((entry) =>
      entry.includes(mark) && /^\d+ files, /.test(entry.slice(entry.indexOf(mark) + mark.length))
    );
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function indexBytes(repo: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(join(repo, ".sourcegraph", "search_index"))) {
    total += (await Deno.stat(join(repo, ".sourcegraph", "search_index", entry.name))).size;
  }
  return total;
}

async function churn(repo: string, round: number): Promise<string> {
  // Every hundredth file, a different hundredth each round: 1% of the files.
  const listed = (await git(repo, ["ls-files"])).split("\n").filter((path) =>
    path !== ".gitignore"
  );
  for (let i = round % 100; i < listed.length; i += 100) {
    await Deno.writeTextFile(join(repo, listed[i]), `/* revision ${round} */\n`, { append: true });
  }
  return await commitAll(repo, `churn ${round}`);
}

async function bench(label: string, copies: number, options: { versions: boolean }): Promise<void> {
  const parent = await tempDir("sg-search-bench-");
  try {
    const corpusBytes = await makeCorpus(parent, copies);
    const repo = join(parent, "git");
    const head = await git(repo, ["rev-parse", "HEAD"]);
    const fileCount = (await git(repo, ["ls-files"])).split("\n").length;
    const mib = corpusBytes / 1048576;
    console.log(`\n(${label}) ${fileCount} files, ${mib.toFixed(1)} MiB`);
    const started = performance.now();
    const service = await startService(repo, {
      SOURCEGRAPH_API_TOKEN: TOKEN,
      ...(HEAP_MIB === null ? {} : { DENO_V8_FLAGS: `--max-old-space-size=${HEAP_MIB}` }),
    }, {
      lineTimeoutMs: 600_000, // the first sync of a large corpus
    });
    const client = await connectClient(service.url, { token: TOKEN });
    try {
      const built = await waitForIndex(service, head);
      console.log(`  index build (service log): ${built.slice(built.indexOf(":") + 2)}`);
      console.log(`  start to index ready: ${((performance.now() - started) / 1000).toFixed(1)} s`);
      const oneVersion = await indexBytes(repo);
      console.log(
        `  index on disk: ${(oneVersion / 1048576).toFixed(1)} MiB = ${
          (oneVersion / corpusBytes).toFixed(2)
        }x the corpus`,
      );
      console.log(
        `  service RSS after the build: ${(await rssMib(service.pid)).toFixed(0)} MiB (target ≤ ${
          (mib * 0.5 + 150).toFixed(0)
        })`,
      );
      const rg = await haveRg();
      if (!rg) console.log("  rg not installed: the ripgrep baseline is skipped");
      console.log(
        "  | class | service p50 / p95 ms | files | rg p50 ms | service/rg | git grep p50 ms | RSS after MiB |",
      );
      const p50s: Record<string, number> = {};
      for (const query of classes()) {
        const times: number[] = [];
        let files = "";
        for (let i = 0; i < RUNS + WARM_UP; i++) {
          const t = performance.now();
          const outcome = await callTool(client, "search", {
            repo: "local/git",
            revision: head,
            ...query.mcp,
          });
          const ms = performance.now() - t;
          if (outcome.code !== "OK") throw new Error(`${query.name}: ${outcome.texts[0]}`);
          if (i >= WARM_UP) times.push(ms);
          files = /FileCount: (\d+)/.exec(outcome.texts[0])?.[1] ?? "?";
          if (i === 0 && !outcome.texts[0].includes('Index: "')) throw new Error("no Index line");
          if (i === 0 && query.name.startsWith("absent") && files !== "0") {
            throw new Error(`${query.name}: found ${files} file(s)`);
          }
        }
        const rgTimes: number[] = [];
        if (rg) {
          for (let i = 0; i < 7; i++) rgTimes.push(await run("rg", ["-n", ...query.rg], repo));
        }
        const gitTimes: number[] = [];
        const grepArgs = [
          "grep",
          "-n",
          "--threads=2",
          ...query.gitGrep,
          head,
          "--",
          ...(query.pathspec ?? []),
        ];
        for (let i = 0; i < 3; i++) gitTimes.push(await run("git", grepArgs, repo));
        const p50 = percentile(times, 50);
        p50s[query.name] = p50;
        const rgP50 = rg ? percentile(rgTimes.slice(1), 50) : NaN;
        console.log(
          `  | ${query.name} | ${p50.toFixed(1)} / ${
            percentile(times, 95).toFixed(1)
          } | ${files} | ${rgP50.toFixed(1)} | ${(p50 / rgP50).toFixed(2)}x | ${
            percentile(gitTimes, 50).toFixed(0)
          } | ${(await rssMib(service.pid)).toFixed(0)} |`,
        );
      }
      console.log(
        `  ignore-case / case-sensitive common literal: ${
          (p50s["ignore-case literal"] / p50s["common literal"]).toFixed(2)
        }x`,
      );
      // A commit that changes 1% of the files: from the end of its sync to its index.
      const next = await churn(repo, 0);
      await callTool(client, "prepare", { repo: "local/git", idempotency_key: `bench-${next}` });
      const synced = performance.now();
      const line = await waitForIndex(service, next);
      console.log(
        `  1%-changed commit indexed ${
          ((performance.now() - synced) / 1000).toFixed(2)
        } s after its sync (${line.slice(line.indexOf(":") + 2)})`,
      );
      if (options.versions) {
        for (let round = 1; round < 20; round++) {
          const commit = await churn(repo, round);
          await callTool(client, "prepare", {
            repo: "local/git",
            idempotency_key: `bench-${commit}`,
          });
          await waitForIndex(service, commit);
        }
        const twenty = await indexBytes(repo);
        const availability = JSON.parse(
          (await callTool(client, "availability", { repo: "local/git" })).texts[0],
        );
        console.log(
          `  ${availability.versions.length} retained versions: index ${
            (twenty / 1048576).toFixed(1)
          } MiB = ${(twenty / oneVersion).toFixed(2)}x one version`,
        );
      }
      console.log(`  service RSS at the end: ${(await rssMib(service.pid)).toFixed(0)} MiB`);
    } finally {
      await client.close();
      await service.stop();
    }
  } finally {
    await removeDir(parent);
  }
}

if (ONLY !== "b") {
  await bench(CLASSES === "duckdb" ? "a: duckdb source tree" : "a: Git source tree", 1, {
    versions: true,
  });
}
if (ONLY !== "a") await bench(`b: ${COPIES} distinct copies`, COPIES, { versions: false });
