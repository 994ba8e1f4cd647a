/**
 * "Where is X defined", 200 times, on a real tree served by the service as
 * `deno task start` runs it: for 200 names universal-ctags says the tree
 * defines (functions, types, classes, macros; a seeded sample), whether a
 * definition ctags reports is among the first 3 answers of
 *
 * - `symbols` with the exact name (the symbol index),
 * - `search` for the name as a fixed string (ranked: defining files first;
 *   a hit is a defining line among the first 3 matching lines),
 * - `search` with the best regex an agent would guess per kind without a
 *   symbol index (written down below), in the order search answered before
 *   ranking (path order),
 *
 * and the latency of exact-name lookups over the plain HTTP API
 * (`POST /v1/repo/symbols`), p50/p95 over 200 calls, beside `rg` for the
 * same names' definition regexes on the work tree.
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env \
 *   --allow-net=127.0.0.1 tests/bench/symbols_lookup_bench.ts --tree PATH [--seed N]
 *
 * @module
 */

import { basename } from "node:path";
import { percentile, prng } from "../support/bench_stats.ts";
import { connectClient, startService } from "../support/sourcegraph_service.ts";
import { callTool } from "../support/tool_calls.ts";

const args = Deno.args;
const TREE = args[args.indexOf("--tree") + 1];
const SEED = Number(args[args.indexOf("--seed") + 1] ?? 7) || 7;
const LOOKUPS = 200;
const TOKEN = "s".repeat(40);
if (!args.includes("--tree") || !TREE) {
  console.error("usage: symbols_lookup_bench.ts --tree PATH (a Git work tree) [--seed N]");
  Deno.exit(2);
}

interface Tag {
  name: string;
  path: string;
  line: number;
  kind: string;
  language: string;
}

// The kinds a "where is it defined" question is about, and the regex an agent guesses for each.
const GUESSES: Record<string, (name: string) => string> = {
  function: (name) => `^[A-Za-z_].*\\b${name}\\s*\\([^;]*$`,
  struct: (name) => `\\b(struct|union)\\s+${name}\\s*\\{`,
  class: (name) => `\\b(class|struct)\\s+${name}\\b[^;]*$`,
  typedef: (name) => `\\b${name}\\s*;|using\\s+${name}\\s*=`,
  macro: (name) => `#\\s*define\\s+${name}\\b`,
  enum: (name) => `\\benum\\s+(class\\s+)?${name}\\b`,
  member: (name) => `^\\s+(async\\s+)?def\\s+${name}\\b`,
};

async function ctagsDefinitions(tree: string): Promise<Tag[]> {
  const out = await new Deno.Command("ctags", {
    args: ["-R", "--output-format=json", "--fields=+nKl", "-f", "-", "."],
    cwd: tree,
    stdout: "piped",
  }).output();
  const tags: Tag[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    if (!line.startsWith("{")) continue;
    const tag = JSON.parse(line);
    if (tag._type === "tag" && !tag.path.startsWith(".sourcegraph/")) tags.push(tag);
  }
  return tags;
}

// The languages the index parses with a grammar, as ctags names them.
const GRAMMAR_LANGUAGES = new Set([
  "C",
  "C++",
  "C#",
  "Go",
  "Java",
  "JavaScript",
  "PHP",
  "Python",
  "Ruby",
  "Rust",
  "TypeScript",
]);

// 200 distinct names (4+ characters, of the asked-about kinds, in grammar languages;
// not the names ctags makes up for anonymous definitions), seeded.
function sample(tags: Tag[]): { name: string; kind: string; definitions: Tag[] }[] {
  const byName = new Map<string, Tag[]>();
  for (const tag of tags) {
    const list = byName.get(tag.name) ?? [];
    list.push(tag);
    byName.set(tag.name, list);
  }
  const candidates = [...byName].filter(([name, list]) =>
    name.length >= 4 && /^[A-Za-z_]\w*$/.test(name) && !/^__anon[0-9a-f]+$/.test(name) &&
    list.some(asked)
  ).sort(([a], [b]) => a < b ? -1 : 1);
  const random = prng(SEED);
  for (let i = candidates.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [candidates[i], candidates[j]] = [candidates[j], candidates[i]];
  }
  return candidates.slice(0, LOOKUPS).map(([name, list]) => ({
    name,
    kind: list.find(asked)!.kind,
    definitions: list,
  }));
}

function asked(tag: Tag): boolean {
  if (!GRAMMAR_LANGUAGES.has(tag.language) || GUESSES[tag.kind] === undefined) return false;
  return tag.kind !== "member" || tag.language === "Python";
}

function isDefinition(
  definitions: Tag[],
  hit: { path: string; start: number; end: number },
): boolean {
  return definitions.some((tag) =>
    tag.path === hit.path && tag.line >= hit.start && tag.line <= hit.end
  );
}

// The first `count` matching lines of a search answer, in answer order.
function firstLines(text: string, count: number): { path: string; start: number; end: number }[] {
  const out: { path: string; start: number; end: number }[] = [];
  let path = "";
  for (const line of text.split("\n")) {
    const file = /^File: (".*")$/.exec(line);
    if (file) path = JSON.parse(file[1]);
    const row = /^(\d+): /.exec(line);
    if (row && out.length < count) out.push({ path, start: Number(row[1]), end: Number(row[1]) });
  }
  return out;
}

async function waitForSymbols(url: string, repo: string): Promise<string> {
  for (;;) {
    const answer = await fetch(`${url}/sourcegraph/v1/repo/symbols?repo=${repo}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ Query: "main" }),
    });
    const body = await answer.json();
    if (answer.status === 200) return body.Commit;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

if (import.meta.main) {
  const tags = await ctagsDefinitions(TREE);
  const questions = sample(tags);
  const repo = `local/${basename(TREE)}`;
  const started = performance.now();
  const service = await startService(TREE, { SOURCEGRAPH_API_TOKEN: TOKEN }, {
    lineTimeoutMs: 900_000,
  });
  const client = await connectClient(service.url, { token: TOKEN });
  try {
    const commit = await waitForSymbols(service.url, repo);
    console.log(
      `tree ${TREE} at ${commit.slice(0, 12)}: ${questions.length} names; index ready ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s after start`,
    );
    console.log(service.log.filter((line) => line.includes("search index of")).join("\n"));
    const wins = { symbols: 0, ranked: 0, guessed: 0 };
    const misses: string[] = [];
    for (const { name, kind, definitions } of questions) {
      const symbols = JSON.parse(
        (await callTool(client, "symbols", { repo, query: name, first: 3 })).texts[0],
      );
      const top = symbols.symbols.map((
        s: { path: string; start_line: number; end_line: number },
      ) => ({
        path: s.path,
        start: s.start_line,
        end: s.end_line,
      }));
      if (
        top.some((hit: { path: string; start: number; end: number }) =>
          isDefinition(definitions, hit)
        )
      ) {
        wins.symbols++;
      } else misses.push(`${kind} ${name}: ${JSON.stringify(top)}`);
      const ranked = (await callTool(client, "search", {
        repo,
        pattern: name,
        fixed_strings: true,
        max_lines_per_file: 3,
      })).texts[0];
      if (firstLines(ranked, 3).some((hit) => isDefinition(definitions, hit))) wins.ranked++;
      const guessed = (await callTool(client, "search", {
        repo,
        pattern: GUESSES[kind](name),
        max_lines_per_file: 3,
      })).texts[0];
      // The order before ranking: files by path.
      const lines = firstLines(guessed, 1000).sort((a, b) =>
        a.path < b.path ? -1 : a.path > b.path ? 1 : a.start - b.start
      );
      if (lines.slice(0, 3).some((hit) => isDefinition(definitions, hit))) wins.guessed++;
    }
    const share = (n: number) => `${n}/${questions.length} (${(n / questions.length).toFixed(3)})`;
    console.log(
      `definition in the top 3: symbols ${share(wins.symbols)}; ranked search ` +
        `${share(wins.ranked)}; guessed regex, path order ${share(wins.guessed)}`,
    );
    for (const miss of misses.slice(0, 10)) console.log(`  symbols miss: ${miss}`);
    const times: number[] = [];
    for (const { name } of questions) {
      const t0 = performance.now();
      const answer = await fetch(`${service.url}/sourcegraph/v1/repo/symbols?repo=${repo}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ Query: name, Revision: commit }),
      });
      await answer.json();
      times.push(performance.now() - t0);
    }
    const rgTimes: number[] = [];
    for (const { name, kind } of questions.slice(0, 50)) {
      const t0 = performance.now();
      await new Deno.Command("rg", {
        args: ["-n", "--max-count", "3", GUESSES[kind](name), "."],
        cwd: TREE,
        stdout: "null",
        stderr: "null",
      }).output();
      rgTimes.push(performance.now() - t0);
    }
    console.log(
      `exact lookups over HTTP: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ` +
        `${percentile(times, 95).toFixed(1)} ms; rg with the guessed regex (50 names): p50 ` +
        `${percentile(rgTimes, 50).toFixed(0)} ms, p95 ${percentile(rgTimes, 95).toFixed(0)} ms`,
    );
  } finally {
    await client.close();
    await service.stop();
  }
}
