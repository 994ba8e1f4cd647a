/**
 * Syntax highlighting on the file pages, measured three ways on files of the
 * Git project's source tree (each cut or repeated to exactly 5,000 lines):
 *
 * 1. the library, in process: highlight.js (what the pages use) against
 *    tree-sitter with each grammar's own `queries/highlights.scm` (parse,
 *    then every capture), for the languages both have;
 * 2. the file page end to end over HTTP from the service as `deno task start`
 *    runs it: the highlighted page against the same text under a name with no
 *    grammar (plain), p50 / p95 of 20 loads after 3 warm-up loads;
 * 3. what a long page costs everyone else: a one-line file page loaded
 *    alone, then while four clients load 5,000-line pages without pause.
 *
 * ```sh
 * deno run --allow-read --allow-write --allow-run --allow-env --allow-net=127.0.0.1 \
 *   tests/bench/highlight_bench.ts [--corpus git-1a3e64c6c4.tar.gz]
 * ```
 *
 * @module
 */

import { join } from "node:path";
import { Language, Parser, Query } from "web-tree-sitter";
import { highlightTexts } from "../../sourcegraph/web/code/highlight_grammars.ts";
import { highlightedLines } from "../../sourcegraph/web/code/highlighted_lines.ts";
import { percentile } from "../support/bench_stats.ts";
import { createRepo, removeDir, tempDir } from "../support/git_repo.ts";
import { startService } from "../support/sourcegraph_service.ts";

const args = Deno.args;
const TARBALL = args.includes("--corpus")
  ? args[args.indexOf("--corpus") + 1]
  : new URL("../../../shared/corpora/git-1a3e64c6c4.tar.gz", import.meta.url).pathname;
const LINES = 5_000;
const RUNS = 20;
const WARM_UP = 3;

type Grammar = () => Promise<{ wasm: Uint8Array; highlights: string }>;

const bytes = (m: Promise<{ default: Uint8Array }>) => m.then((x) => x.default);
const text = (m: Promise<{ default: string }>) => m.then((x) => x.default);

// The files measured: corpus path, page name, highlight.js grammar, tree-sitter grammar.
const FILES: { source: string; name: string; language: string; treeSitter?: Grammar }[] = [
  {
    source: "sequencer.c",
    name: "sequencer.c",
    language: "c",
    treeSitter: async () => ({
      wasm: await bytes(
        import("../../sourcegraph/symbols/grammars/tree-sitter-c/tree-sitter-c.wasm", {
          with: { type: "bytes" },
        }),
      ),
      highlights: await text(
        import("../../sourcegraph/symbols/grammars/tree-sitter-c/queries/highlights.scm", {
          with: { type: "text" },
        }),
      ),
    }),
  },
  {
    source: "git-p4.py",
    name: "git-p4.py",
    language: "python",
    treeSitter: async () => ({
      wasm: await bytes(
        import("../../sourcegraph/symbols/grammars/tree-sitter-python/tree-sitter-python.wasm", {
          with: { type: "bytes" },
        }),
      ),
      highlights: await text(
        import("../../sourcegraph/symbols/grammars/tree-sitter-python/queries/highlights.scm", {
          with: { type: "text" },
        }),
      ),
    }),
  },
  {
    source: "gitweb/static/js/blame_incremental.js",
    name: "blame_incremental.js",
    language: "javascript",
    treeSitter: async () => ({
      wasm: await bytes(
        import(
          "../../sourcegraph/symbols/grammars/tree-sitter-javascript/tree-sitter-javascript.wasm",
          { with: { type: "bytes" } }
        ),
      ),
      highlights: await text(
        import("../../sourcegraph/symbols/grammars/tree-sitter-javascript/queries/highlights.scm", {
          with: { type: "text" },
        }),
      ),
    }),
  },
  {
    source: "src/loose.rs",
    name: "loose.rs",
    language: "rust",
    treeSitter: async () => ({
      wasm: await bytes(
        import("../../sourcegraph/symbols/grammars/tree-sitter-rust/tree-sitter-rust.wasm", {
          with: { type: "bytes" },
        }),
      ),
      highlights: await text(
        import("../../sourcegraph/symbols/grammars/tree-sitter-rust/queries/highlights.scm", {
          with: { type: "text" },
        }),
      ),
    }),
  },
  { source: "gitweb/gitweb.perl", name: "gitweb.perl", language: "perl" },
  {
    source: "contrib/completion/git-completion.bash",
    name: "git-completion.bash",
    language: "bash",
  },
];

// `source` cut or repeated to exactly LINES lines.
function fiveThousandLines(source: string): string {
  const lines = source.replace(/\n$/, "").split("\n");
  const out: string[] = [];
  while (out.length < LINES) out.push(...lines.slice(0, LINES - out.length));
  return out.join("\n") + "\n";
}

function median(values: number[]): number {
  return percentile(values, 50);
}

async function libraryTimes(texts: Map<string, string>): Promise<void> {
  await Parser.init();
  const parser = new Parser();
  console.log(
    "\n  | file (5,000 lines, KiB) | highlight.js ms | tree-sitter parse + captures ms |",
  );
  console.log("  |---|---:|---:|");
  for (const file of FILES) {
    const source = texts.get(file.name)!;
    const hljs: number[] = [];
    for (let i = 0; i < 7; i++) {
      const started = performance.now();
      highlightedLines(highlightTexts([source], file.language)[0]);
      hljs.push(performance.now() - started);
    }
    let treeSitter = "no grammar";
    if (file.treeSitter) {
      const grammar = await file.treeSitter();
      const language = await Language.load(grammar.wasm);
      const query = new Query(language, grammar.highlights);
      parser.setLanguage(language);
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const started = performance.now();
        const tree = parser.parse(source)!;
        query.captures(tree.rootNode).length;
        tree.delete();
        times.push(performance.now() - started);
      }
      treeSitter = median(times).toFixed(1);
    }
    const kib = (new TextEncoder().encode(source).length / 1024).toFixed(0);
    console.log(`  | ${file.name} (${kib}) | ${median(hljs).toFixed(1)} | ${treeSitter} |`);
  }
}

async function loads(url: string, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const response = await fetch(url);
    const body = await response.text();
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    if (body.length === 0) throw new Error(`${url}: empty`);
    times.push(performance.now() - started);
  }
  return times;
}

async function pageTimes(base: string, sha: string): Promise<void> {
  console.log("\n  | file page (5,000 lines) | highlighted p50 / p95 ms | plain p50 / p95 ms |");
  console.log("  |---|---:|---:|");
  for (const file of FILES) {
    const page = (name: string) => `${base}/local/pages/-/blob/${sha}/${name}`;
    await loads(page(file.name), WARM_UP);
    const highlighted = await loads(page(file.name), RUNS);
    const body = await (await fetch(page(file.name))).text();
    if (!body.includes("hljs-")) throw new Error(`${file.name} was not highlighted`);
    await loads(page(`${file.name}.txt`), WARM_UP);
    const plain = await loads(page(`${file.name}.txt`), RUNS);
    const cell = (t: number[]) =>
      `${percentile(t, 50).toFixed(1)} / ${percentile(t, 95).toFixed(1)}`;
    console.log(`  | ${file.name} | ${cell(highlighted)} | ${cell(plain)} |`);
  }
}

// The one-line page's loads while four clients load `suffix`ed 5,000-line pages without pause.
async function loadedLoads(base: string, sha: string, suffix: string): Promise<number[]> {
  let running = true;
  const failures: unknown[] = [];
  const load = async (name: string) => {
    while (running) await loads(`${base}/local/pages/-/blob/${sha}/${name}${suffix}`, 1);
  };
  const clients = FILES.slice(0, 4).map((file) => load(file.name).catch((e) => failures.push(e)));
  const loaded = await loads(`${base}/local/pages/-/blob/${sha}/small.txt`, 50);
  running = false;
  await Promise.all(clients);
  if (failures.length > 0) throw failures[0];
  return loaded;
}

async function blocking(base: string, sha: string): Promise<void> {
  const small = `${base}/local/pages/-/blob/${sha}/small.txt`;
  await loads(small, WARM_UP);
  const alone = await loads(small, 50);
  const besidePlain = await loadedLoads(base, sha, ".txt");
  const besideHighlighted = await loadedLoads(base, sha, "");
  const cell = (t: number[]) =>
    `${percentile(t, 50).toFixed(1)} / ${percentile(t, 95).toFixed(1)} / ${
      Math.max(...t).toFixed(1)
    }`;
  console.log("\n  | one-line page, 50 loads | p50 / p95 / max ms |");
  console.log("  |---|---:|");
  console.log(`  | alone | ${cell(alone)} |`);
  console.log(`  | beside 4 clients loading plain 5,000-line pages | ${cell(besidePlain)} |`);
  console.log(`  | beside 4 clients loading highlighted ones | ${cell(besideHighlighted)} |`);
}

async function main(): Promise<void> {
  const parent = await tempDir("sg-highlight-bench-");
  try {
    const corpus = join(parent, "corpus");
    await Deno.mkdir(corpus);
    await new Deno.Command("tar", { args: ["-xzf", TARBALL, "-C", corpus] }).output();
    const texts = new Map<string, string>();
    const files: Record<string, string> = { "small.txt": "one line\n" };
    for (const file of FILES) {
      const source = fiveThousandLines(await Deno.readTextFile(join(corpus, "git", file.source)));
      texts.set(file.name, source);
      files[file.name] = source;
      files[`${file.name}.txt`] = source;
    }
    console.log(`highlight bench, ${new Date().toISOString()}, Deno ${Deno.version.deno}`);
    await libraryTimes(texts);
    const repo = await createRepo(files, { parent, name: "pages" });
    const sha = await repo.git("rev-parse", "HEAD");
    // Anonymous page loads, as a person makes them: the anonymous budget raised out of the way.
    const service = await startService(parent, {
      SOURCEGRAPH_ANONYMOUS_PER_MINUTE: "1000000",
      SOURCEGRAPH_ANONYMOUS_CONCURRENCY: "100",
    }, { repositories: [repo.path] });
    try {
      const base = `${service.url}/sourcegraph`;
      if (!args.includes("--only-blocking")) await pageTimes(base, sha);
      await blocking(base, sha).catch((error) => {
        console.log(service.log.slice(-20).join("\n"));
        throw error;
      });
    } finally {
      await service.stop();
    }
  } finally {
    await removeDir(parent);
  }
}

await main();
