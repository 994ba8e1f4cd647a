/**
 * How well search orders its files, on a real tree served by the service
 * as `deno task start` runs it: MRR@10 (the mean of 1/rank of the first
 * best file, 0 past rank 10) over two seeded sets of queries whose best
 * files are known, each a fixed string matching at least 3 files:
 *
 * - definitions: a name universal-ctags says one file of the tree defines
 *   (function, struct, class, typedef, macro, enum); the best file is that one;
 * - file names: the stem of a file name (`strbuf` of `strbuf.c`); the best
 *   files are those with that stem.
 *
 * Each query is answered once; its files are scored in three orders: the
 * service's (defining files, then files whose name matches, then the rest),
 * defining files first then path order (ranking by definitions alone), and
 * path order (search before ranking).
 *
 * With two or more trees, one service serves them all and each tree's
 * queries are also searched across every repository at once: the answer's
 * files are scored in the service's order (repositories by their best file)
 * and with the same blocks in repository name order (the order before
 * repositories were ranked).
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env \
 *   --allow-net=127.0.0.1 tests/bench/search_ranking_bench.ts --tree PATH [--tree PATH…] [--seed N]
 *
 * @module
 */

import { basename, resolve } from "node:path";
import { prng } from "../support/bench_stats.ts";
import { startService } from "../support/sourcegraph_service.ts";
import { comparePaths } from "../../sourcegraph/search/query/path_order.ts";

const args = Deno.args;
const TREES = args.flatMap((arg, i) => arg === "--tree" && args[i + 1] ? [args[i + 1]] : []);
const SEED = Number(args[args.indexOf("--seed") + 1] ?? 11) || 11;
const PER_SET = 30;
const TOKEN = "s".repeat(40);
if (TREES.length === 0) {
  console.error(
    "usage: search_ranking_bench.ts --tree PATH (a Git work tree) [--tree PATH…] [--seed N]",
  );
  Deno.exit(2);
}

interface Query {
  set: "definitions" | "file names";
  pattern: string;
  best: Set<string>;
}

const DEFINITION_KINDS = new Set(["function", "struct", "class", "typedef", "macro", "enum"]);

async function ctagsDefinitions(tree: string): Promise<{ name: string; path: string }[]> {
  const out = await new Deno.Command("ctags", {
    args: ["-R", "--output-format=json", "--fields=+nKl", "-f", "-", "."],
    cwd: tree,
    stdout: "piped",
  }).output();
  const tags: { name: string; path: string }[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    if (!line.startsWith("{")) continue;
    const tag = JSON.parse(line);
    if (tag._type === "tag" && DEFINITION_KINDS.has(tag.kind)) tags.push(tag);
  }
  return tags;
}

function shuffled<T>(items: T[], seed: number): T[] {
  const random = prng(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// Names one file defines (each once), seeded.
function definitionQueries(tags: { name: string; path: string }[]): Query[] {
  const paths = new Map<string, Set<string>>();
  for (const tag of tags) {
    if (tag.name.length < 6 || !/^[A-Za-z_]\w*$/.test(tag.name)) continue;
    const set = paths.get(tag.name) ?? new Set();
    set.add(tag.path);
    paths.set(tag.name, set);
  }
  const once = [...paths].filter(([, set]) => set.size === 1).sort(([a], [b]) => a < b ? -1 : 1);
  return shuffled(once, SEED).map(([name, set]) => ({
    set: "definitions",
    pattern: name,
    best: set,
  }));
}

// File-name stems (5+ letters) and the files that have them, seeded.
function fileNameQueries(files: string[]): Query[] {
  const byStem = new Map<string, Set<string>>();
  for (const path of files) {
    const stem = basename(path).split(".")[0];
    if (stem.length < 5 || !/^[A-Za-z_-]+$/.test(stem)) continue;
    const set = byStem.get(stem) ?? new Set();
    set.add(path);
    byStem.set(stem, set);
  }
  const stems = [...byStem].filter(([, set]) => set.size <= 3).sort(([a], [b]) => a < b ? -1 : 1);
  return shuffled(stems, SEED + 1).map(([stem, set]) => ({
    set: "file names",
    pattern: stem,
    best: set,
  }));
}

interface Answer {
  files: { path: string; defines: boolean }[];
}

async function search(url: string, repo: string, pattern: string): Promise<Answer> {
  const answer = await fetch(`${url}/sourcegraph/api/search?repo=${repo}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ Pattern: pattern, FixedStrings: true, Output: "files" }),
  });
  const body = await answer.json();
  if (answer.status !== 200) throw new Error(`search ${pattern}: ${JSON.stringify(body)}`);
  return {
    files: body.Result.Files.map((file: { FileName: string; Defines: string[] | null }) => ({
      path: file.FileName,
      defines: file.Defines !== null,
    })),
  };
}

function reciprocalRank(order: string[], best: Set<string>): number {
  const at = order.slice(0, 10).findIndex((path) => best.has(path));
  return at < 0 ? 0 : 1 / (at + 1);
}

async function waitForIndex(url: string, repo: string): Promise<void> {
  for (;;) {
    const answer = await fetch(`${url}/sourcegraph/api/search?repo=${repo}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ Pattern: "main", Output: "files" }),
    });
    const body = await answer.json();
    if (body.Meta?.Index === "ready") return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

interface Sums {
  service: number;
  defines: number;
  path: number;
  count: number;
  /** The queries scored. */
  kept: Query[];
}

// Takes queries of `candidates` whose search matches 3+ files and holds a best file, up to PER_SET.
async function scored(url: string, repo: string, candidates: Query[]): Promise<Sums> {
  const sums: Sums = { service: 0, defines: 0, path: 0, count: 0, kept: [] };
  for (const query of candidates) {
    if (sums.count >= PER_SET) break;
    const { files } = await search(url, repo, query.pattern);
    if (files.length < 3 || !files.some((file) => query.best.has(file.path))) continue;
    sums.kept.push(query);
    const byPath = files.map((file) => file.path).sort(comparePaths);
    const definesFirst = [
      ...files.filter((file) => file.defines).map((file) => file.path).sort(comparePaths),
      ...files.filter((file) => !file.defines).map((file) => file.path).sort(comparePaths),
    ];
    sums.service += reciprocalRank(files.map((file) => file.path), query.best);
    sums.defines += reciprocalRank(definesFirst, query.best);
    sums.path += reciprocalRank(byPath, query.best);
    sums.count++;
  }
  return sums;
}

// The answer across every repository: each block's files as `repo path`, in the service's order.
async function searchAll(
  url: string,
  pattern: string,
): Promise<{ repo: string; files: string[] }[]> {
  const answer = await fetch(`${url}/sourcegraph/v1/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ Pattern: pattern, FixedStrings: true, Output: "files" }),
  });
  const body = await answer.json();
  if (answer.status !== 200) throw new Error(`search ${pattern}: ${JSON.stringify(body)}`);
  return body.Results.map((
    result: { Meta: { Repository: string }; Result: { Files: { FileName: string }[] } },
  ) => ({
    repo: result.Meta.Repository,
    files: result.Result.Files.map((file) => `${result.Meta.Repository} ${file.FileName}`),
  }));
}

// MRR@10 of `queries` (of `repo`) searched across every repository, in the service's
// order and with its blocks in repository name order.
async function scoredAcross(
  url: string,
  repo: string,
  queries: Query[],
): Promise<{ service: number; byName: number; count: number }> {
  const sums = { service: 0, byName: 0, count: 0 };
  for (const query of queries) {
    const blocks = await searchAll(url, query.pattern);
    const best = new Set([...query.best].map((path) => `${repo} ${path}`));
    const byName = [...blocks].sort((a, b) => comparePaths(a.repo, b.repo));
    sums.service += reciprocalRank(blocks.flatMap((block) => block.files), best);
    sums.byName += reciprocalRank(byName.flatMap((block) => block.files), best);
    sums.count++;
  }
  return sums;
}

// The folder holding every path given.
function commonFolder(paths: string[]): string {
  const parts = paths.map((path) => resolve(path).split("/"));
  let length = 0;
  while (parts.every((part) => part[length] === parts[0][length])) length++;
  return parts[0].slice(0, length).join("/") || "/";
}

function printTable(rows: [string, Sums][]): void {
  console.log("| queries | count | path order | defining files first | service order |");
  console.log("|---|---:|---:|---:|---:|");
  const all: Sums = { service: 0, defines: 0, path: 0, count: 0, kept: [] };
  for (const [name, sums] of rows) {
    for (const key of ["service", "defines", "path", "count"] as const) all[key] += sums[key];
    const mrr = (sum: number) => (sum / sums.count).toFixed(3);
    console.log(
      `| ${name} | ${sums.count} | ${mrr(sums.path)} | ${mrr(sums.defines)} | ` +
        `${mrr(sums.service)} |`,
    );
  }
  const mrr = (sum: number) => (sum / all.count).toFixed(3);
  console.log(
    `| all | ${all.count} | ${mrr(all.path)} | ${mrr(all.defines)} | ${mrr(all.service)} |`,
  );
}

// Each tree's queries, scored in its own repository.
async function perTree(url: string): Promise<{ repo: string; queries: Query[] }[]> {
  const out = [];
  for (const tree of TREES) {
    const tags = await ctagsDefinitions(tree);
    const listed = await new Deno.Command("git", { args: ["ls-files", "-z"], cwd: tree }).output();
    const files = new TextDecoder().decode(listed.stdout).split("\0").filter((path) => path !== "");
    const repo = `local/${basename(tree)}`;
    await waitForIndex(url, repo);
    const sets: [string, Sums][] = [
      ["definitions", await scored(url, repo, definitionQueries(tags))],
      ["file names", await scored(url, repo, fileNameQueries(files))],
    ];
    console.log(`tree ${tree}`);
    printTable(sets);
    out.push({ repo, queries: sets.flatMap(([, sums]) => sums.kept) });
  }
  return out;
}

if (import.meta.main) {
  const service = await startService(commonFolder(TREES), { SOURCEGRAPH_API_TOKEN: TOKEN }, {
    lineTimeoutMs: 900_000,
    ...(TREES.length > 1 ? { repositories: TREES.map((tree) => resolve(tree)) } : {}),
  });
  try {
    const trees = await perTree(service.url);
    if (trees.length > 1) {
      console.log(`across ${trees.length} repositories`);
      console.log("| queries of | count | repositories by name | service order |");
      console.log("|---|---:|---:|---:|");
      const all = { service: 0, byName: 0, count: 0 };
      for (const { repo, queries } of trees) {
        const sums = await scoredAcross(service.url, repo, queries);
        for (const key of ["service", "byName", "count"] as const) all[key] += sums[key];
        const mrr = (sum: number) => (sum / sums.count).toFixed(3);
        console.log(`| ${repo} | ${sums.count} | ${mrr(sums.byName)} | ${mrr(sums.service)} |`);
      }
      const mrr = (sum: number) => (sum / all.count).toFixed(3);
      console.log(`| all | ${all.count} | ${mrr(all.byName)} | ${mrr(all.service)} |`);
    }
  } finally {
    await service.stop();
  }
}
