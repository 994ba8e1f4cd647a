/**
 * Benchmark of the project-knowledge provider at its corpus caps, side by
 * side with baselines in the same run.
 *
 * Corpus: deterministic, generated in a temp Git repository: 4,096 files of
 * about 60 MiB, code in TypeScript, Python, Rust, Go and Java plus Markdown
 * with about 10% Chinese text. The provider runs as a real subprocess with
 * the README's flags, driven by the fake Runner.
 *
 * Run: deno run --allow-read --allow-write --allow-run \
 *   --allow-env --allow-sys=uid tests/bench/project_knowledge_bench.ts
 *
 * @module
 */

import { createHash } from "node:crypto";
import { join } from "node:path";
import { percentile, prng } from "../support/bench_stats.ts";
import { FakeRunner } from "../support/fake_runner.ts";
import { git, removeDir, tempDir } from "../support/git_repo.ts";

const FILES = 4096;
const TARGET_BYTES = 60 * 1024 * 1024;

// A Zipf-distributed vocabulary, as in real code: a few words everywhere, a
// long tail of rare ones. Words and Han characters are generated, not sampled.
const SYLLABLES = [
  "ka",
  "ro",
  "mi",
  "te",
  "lu",
  "san",
  "dor",
  "vel",
  "qua",
  "zen",
  "pri",
  "tor",
  "mex",
  "fal",
  "gin",
  "bro",
];
const KEYWORDS = [
  "request",
  "response",
  "parse",
  "buffer",
  "stream",
  "header",
  "session",
  "token",
  "cache",
  "index",
  "query",
  "source",
  "commit",
  "config",
  "handler",
  "client",
  "server",
  "message",
  "error",
  "value",
];
const VOCABULARY = (() => {
  const rand = prng(7);
  const words = [...KEYWORDS];
  const seen = new Set(words);
  while (words.length < 5000) {
    const length = 2 + Math.floor(rand() * 3);
    let word = "";
    for (let i = 0; i < length; i++) word += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  return words;
})();
const HAN = Array.from({ length: 800 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 37) % 20000)))
  .join("");
const LANGS = ["ts", "py", "rs", "go", "java", "md"] as const;

function zipfSampler(size: number): (rand: () => number) => number {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= size; rank++) cumulative.push(total += 1 / rank);
  return (rand) => {
    const target = rand() * total;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
const pickWord = zipfSampler(VOCABULARY.length);
const pickHan = zipfSampler(HAN.length);

function word(rand: () => number): string {
  return VOCABULARY[pickWord(rand)];
}

function makeIdentifier(rand: () => number, style: number): string {
  const parts = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => word(rand));
  if (style === 0) {
    return parts[0] + parts.slice(1).map((p) => p[0].toUpperCase() + p.slice(1)).join("");
  }
  if (style === 1) return parts.join("_");
  return parts.map((p) => p[0].toUpperCase() + p.slice(1)).join("");
}

// Code reuses its names: identifiers come from a pool of 30,000 (in three
// styles), again Zipf-distributed, rather than being new on every use.
const IDENTIFIERS = (() => {
  const rand = prng(11);
  return Array.from({ length: 30_000 }, (_, i) => makeIdentifier(rand, i % 3));
})();
const pickIdentifier = zipfSampler(IDENTIFIERS.length);

function identifier(rand: () => number, _style: number): string {
  return IDENTIFIERS[pickIdentifier(rand)];
}

function chinese(rand: () => number, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += HAN[pickHan(rand)];
  return out + "。";
}

function codeLine(lang: string, rand: () => number): string {
  const a = identifier(rand, lang === "py" || lang === "rs" ? 1 : 0);
  const b = identifier(rand, 2);
  switch (lang) {
    case "ts":
      return `  const ${a} = await ${b}.${identifier(rand, 0)}(${Math.floor(rand() * 1000)}); // ${
        word(rand)
      }`;
    case "py":
      return `    ${a} = ${b}.${identifier(rand, 1)}(${Math.floor(rand() * 1000)})  # ${
        word(rand)
      }`;
    case "rs":
      return `    let ${a}: ${b} = ${b}::${identifier(rand, 1)}(&${identifier(rand, 1)})?;`;
    case "go":
      return `\t${a} := ${identifier(rand, 0)}.${b}(ctx, ${Math.floor(rand() * 1000)})`;
    default:
      return `        ${b} ${a} = this.${identifier(rand, 0)}(${Math.floor(rand() * 1000)});`;
  }
}

function generateFile(index: number, bytes: number): { path: string; text: string } {
  const rand = prng(index + 1);
  const lang = LANGS[index % LANGS.length];
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    let line: string;
    if (lang === "md") {
      // About 60% of Markdown lines are Chinese: about 10% of the corpus.
      line = rand() < 0.6
        ? chinese(rand, 20 + Math.floor(rand() * 40))
        : `The ${identifier(rand, 0)} ${word(rand)} uses \`${identifier(rand, 1)}\` for ${
          word(rand)
        }.`;
    } else line = codeLine(lang, rand);
    lines.push(line);
    size += new TextEncoder().encode(line).length + 1;
  }
  const dir = `pkg${String(index % 64).padStart(2, "0")}`;
  return {
    path: `${dir}/file${String(index).padStart(4, "0")}.${lang}`,
    text: lines.join("\n") + "\n",
  };
}

function ms(value: number): string {
  return value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(1)} ms`;
}

// Deno needs --allow-all to read /proc directly; cat is a plain subprocess.
async function peakRssMb(pid: number): Promise<number> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/status`] }).output();
  const status = new TextDecoder().decode(out.stdout);
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

const parent = await tempDir("pk-bench-");
try {
  const repo = join(parent, "project");
  const cacheBase = join(parent, "cache");
  await Deno.mkdir(repo);
  await Deno.mkdir(cacheBase, { mode: 0o700 });
  await git(repo, ["init", "-q", "-b", "main"]);
  const paths: string[] = [];
  const perFile = Math.floor(TARGET_BYTES / FILES);
  let corpusBytes = 0;
  for (let i = 0; i < FILES; i++) {
    // Sizes vary from about 0.3x to 1.7x the mean, under the 256 KiB file cap.
    const { path, text } = generateFile(i, Math.floor(perFile * (0.3 + 1.4 * prng(i + 99991)())));
    await Deno.mkdir(join(repo, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(repo, path), text);
    paths.push(path);
    corpusBytes += new TextEncoder().encode(text).length;
  }
  await git(repo, ["add", "-A"]);
  await git(repo, ["commit", "-q", "-m", "corpus"]);
  console.log(`corpus: ${FILES} files, ${(corpusBytes / 1048576).toFixed(1)} MiB`);

  // Baseline: raw read + SHA-256 of every file.
  const [, rawHash] = await timed(async () => {
    for (const path of paths) {
      createHash("sha256").update(await Deno.readFile(join(repo, path))).digest("hex");
    }
  });

  const runner = await FakeRunner.admit({ cwd: repo, cacheBase, home: parent });
  const [rebuild, rebuildMs] = await timed(() => runner.ok("index"));
  const [, refreshMs] = await timed(() => runner.ok("index", { mode: "refresh" }));
  const changed = paths.filter((_, i) => i % 100 === 7); // 1%
  for (const path of changed) {
    await Deno.writeTextFile(join(repo, path), `// edited\n`, { append: true });
  }
  const [refreshChanged, refreshChangedMs] = await timed(() =>
    runner.ok("index", { mode: "refresh" })
  );

  // Mixed queries as an agent asks them: a specific identifier (any of the
  // pool, uniformly), a phrase of a common and a specific word, Chinese text.
  const rand = prng(4242);
  const uniform = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)];
  const queries: string[] = [];
  for (let i = 0; i < 20; i++) queries.push(uniform(IDENTIFIERS));
  for (let i = 0; i < 20; i++) queries.push(`${word(rand)} ${uniform(VOCABULARY)}`);
  for (let i = 0; i < 20; i++) queries.push(chinese(rand, 2 + Math.floor(rand() * 3)).slice(0, -1));
  // Worst case, reported apart: only terms found in nearly every chunk.
  const ubiquitous = [
    "request",
    "response",
    "parse buffer",
    "request client",
    IDENTIFIERS[0],
    IDENTIFIERS[1],
    `${KEYWORDS[0]} ${KEYWORDS[1]} ${KEYWORDS[2]}`,
    "server",
    "error value",
    "stream header",
  ];

  const searchTimes: number[] = [];
  const grepTimes: number[] = [];
  const rgTimes: number[] = [];
  const rg = await new Deno.Command("rg", { args: ["--version"], stdout: "null" }).output().then(
    (out) => out.success,
    () => false,
  );
  if (!rg) console.log("rg not installed: the ripgrep baseline is skipped");
  const hits: { path: string; source_hash: string; start_line: number }[] = [];
  for (const query of queries) {
    const [result, took] = await timed(() => runner.ok("search", { query }));
    searchTimes.push(took);
    hits.push(...(result.hits as typeof hits).slice(0, 1));
    const [, grepTook] = await timed(() =>
      new Deno.Command("git", {
        args: ["grep", "-F", "-c", "-e", query],
        cwd: repo,
        stdout: "null",
        stderr: "null",
      })
        .output()
    );
    grepTimes.push(grepTook);
    if (rg) {
      const [, rgTook] = await timed(() =>
        new Deno.Command("rg", {
          args: ["-F", "-c", "-e", query],
          cwd: repo,
          stdout: "null",
          stderr: "null",
        }).output()
      );
      rgTimes.push(rgTook);
    }
  }
  const readTimes: number[] = [];
  for (const hit of hits) {
    const [, took] = await timed(() =>
      runner.ok("read", {
        path: hit.path,
        source_hash: hit.source_hash,
        start_line: hit.start_line,
      })
    );
    readTimes.push(took);
  }
  // Run after the mix, so the mix never profits from a warm term cache.
  const worstTimes: number[] = [];
  for (const query of ubiquitous) {
    worstTimes.push((await timed(() => runner.ok("search", { query })))[1]);
  }
  if (Deno.env.get("PK_BENCH_VERBOSE")) {
    queries.forEach((query, i) => console.log(`${searchTimes[i].toFixed(1)} ms  ${query}`));
  }
  const rss = await peakRssMb(runner.child.pid);
  await runner.kill();

  const rows: [string, string, string, string][] = [
    [
      "rebuild (4,096 files)",
      ms(rebuildMs),
      `raw read + SHA-256: ${ms(rawHash)}`,
      `${(rebuildMs / rawHash).toFixed(1)}x`,
    ],
    [
      "refresh, no change",
      ms(refreshMs),
      `raw read + SHA-256: ${ms(rawHash)}`,
      `${(refreshMs / rawHash).toFixed(1)}x`,
    ],
    [`refresh, 1% changed (${changed.length})`, ms(refreshChangedMs), "", ""],
    [
      `search p50 (${queries.length} queries)`,
      ms(percentile(searchTimes, 50)),
      `git grep -F p50: ${ms(percentile(grepTimes, 50))}`,
      `${(percentile(searchTimes, 50) / percentile(grepTimes, 50)).toFixed(2)}x`,
    ],
    [
      "search p95",
      ms(percentile(searchTimes, 95)),
      `git grep -F p95: ${ms(percentile(grepTimes, 95))}`,
      `${(percentile(searchTimes, 95) / percentile(grepTimes, 95)).toFixed(2)}x`,
    ],
    ...(rg
      ? [[
        "search p50 / p95 against ripgrep",
        `${ms(percentile(searchTimes, 50))} / ${ms(percentile(searchTimes, 95))}`,
        `rg -F p50 / p95: ${ms(percentile(rgTimes, 50))} / ${ms(percentile(rgTimes, 95))}`,
        `${(percentile(searchTimes, 50) / percentile(rgTimes, 50)).toFixed(2)}x`,
      ] as [string, string, string, string]]
      : []),
    [`read p50 (${readTimes.length} reads)`, ms(percentile(readTimes, 50)), "", ""],
    [
      `search p50 / p95, ubiquitous terms only (${ubiquitous.length})`,
      `${ms(percentile(worstTimes, 50))} / ${ms(percentile(worstTimes, 95))}`,
      "",
      "",
    ],
    ["provider peak RSS", `${rss.toFixed(0)} MB`, "", ""],
  ];
  console.log(
    `indexed_files=${rebuild.indexed_files} chunks=${rebuild.chunks} stop_reason=${rebuild.stop_reason}; ` +
      `1% refresh: updated=${refreshChanged.updated_files} reused=${refreshChanged.reused_files}`,
  );
  console.log("| measure | provider | baseline | ratio |\n|---|---|---|---|");
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
} finally {
  if (Deno.env.get("PK_BENCH_KEEP")) console.log(`kept ${parent}`);
  else await removeDir(parent);
}
