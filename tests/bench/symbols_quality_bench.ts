/**
 * Quality and speed of symbol extraction against universal-ctags on a real
 * tree: every file of the tree's Git index goes through the extractor the
 * index builder uses, and `ctags -R` (Debian's universal-ctags, default
 * kinds) runs on the same files. Per language, recall is the share of
 * ctags' definitions of the kinds the index supports that the extractor
 * found (same path and name, ctags' line inside the symbol's lines), and
 * precision the share of the extractor's symbols that ctags has (any kind),
 * also without the Python class attributes declared without a value
 * (`name: T`), which ctags 5.9 does not report.
 * Prints extraction MiB/s beside ctags' time, and the misses per language
 * with `--misses N`.
 *
 * Run: deno run --allow-read --allow-run=git,ctags \
 *   tests/bench/symbols_quality_bench.ts --tree PATH [--misses N]
 *
 * @module
 */

import { join } from "node:path";
import { SymbolExtractor } from "../../sourcegraph/symbols/symbol_extractor.ts";
import type { DefinedSymbol } from "../../sourcegraph/symbols/defined_symbol.ts";

const args = Deno.args;
const TREE = args[args.indexOf("--tree") + 1];
const MISSES = args.includes("--misses") ? Number(args[args.indexOf("--misses") + 1]) : 0;
if (!args.includes("--tree") || !TREE) {
  console.error("usage: symbols_quality_bench.ts --tree PATH [--misses N]");
  Deno.exit(2);
}

// ctags kinds (by ctags language) the index's kinds cover: its definitions of these count for recall.
const SUPPORTED: Record<string, Set<string>> = {
  C: set("function member variable macro struct enumerator enum typedef union"),
  "C++": set(
    "function member variable macro struct enumerator enum typedef union class namespace alias",
  ),
  "C#": set("class enum enumerator field interface method namespace property struct"),
  Go: set("func const type var struct interface member methodSpec package"),
  Java: set("class enum enumConstant field interface method package annotation"),
  JavaScript: set("function class method constant variable field generator getter setter"),
  PHP: set("class function interface trait namespace define enum"),
  Python: set("class function member variable"),
  Ruby: set("class method module singletonMethod constant"),
  Rust: set(
    "module struct interface function enum typedef variable macro field enumerator " +
      "constant method",
  ),
  TypeScript: set(
    "function class interface enum enumerator method namespace property " +
      "variable constant generator alias",
  ),
};

// Names ctags makes up for anonymous definitions (nothing to look up by).
const ANONYMOUS = /^(__anon[0-9a-f]+|AnonymousFunction[0-9a-f]+)$/;

function set(words: string): Set<string> {
  return new Set(words.split(" "));
}

interface CtagsTag {
  name: string;
  path: string;
  line: number;
  kind: string;
  language: string;
}

async function trackedFiles(tree: string): Promise<string[]> {
  const out = await new Deno.Command("git", { args: ["ls-files", "-z"], cwd: tree }).output();
  return new TextDecoder().decode(out.stdout).split("\0").filter((path) => path !== "");
}

async function ctags(tree: string, files: string[]): Promise<{ tags: CtagsTag[]; ms: number }> {
  const started = performance.now();
  const child = new Deno.Command("ctags", {
    args: ["--output-format=json", "--fields=+nKl", "-L", "-", "-f", "-"],
    cwd: tree,
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(files.join("\n") + "\n"));
  await writer.close();
  const out = await child.output();
  const tags: CtagsTag[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    if (!line.startsWith("{")) continue;
    const tag = JSON.parse(line);
    if (tag._type === "tag") tags.push(tag);
  }
  return { tags, ms: performance.now() - started };
}

interface Extracted {
  byPath: Map<string, { language: string | null; symbols: DefinedSymbol[]; lines?: string[] }>;
  bytes: number;
  ms: number;
  outcomes: Record<string, number>;
}

async function extractAll(tree: string, files: string[]): Promise<Extracted> {
  const extractor = await SymbolExtractor.create();
  const byPath = new Map<
    string,
    { language: string | null; symbols: DefinedSymbol[]; lines?: string[] }
  >();
  const outcomes: Record<string, number> = {};
  let bytes = 0;
  let ms = 0;
  for (const path of files) {
    let text: string;
    try {
      const raw = await Deno.readFile(join(tree, path));
      if (raw.includes(0)) continue;
      text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
      bytes += raw.length;
    } catch {
      continue;
    }
    const started = performance.now();
    const found = await extractor.extract(path, text);
    ms += performance.now() - started;
    outcomes[found.outcome] = (outcomes[found.outcome] ?? 0) + 1;
    if (found.language === "python") byPath.set(path, { ...found, lines: text.split("\n") });
    else if (found.language !== null) byPath.set(path, found);
  }
  return { byPath, bytes, ms, outcomes };
}

function covers(symbol: DefinedSymbol, tag: CtagsTag): boolean {
  // ctags spells operators with a space (`operator ()`); the index without.
  return symbol.name === tag.name.replace(/^operator\s+/, "operator") &&
    tag.line >= symbol.startLine && tag.line <= symbol.endLine;
}

interface Score {
  wanted: number;
  found: number;
  /** ctags kind → [definitions, found]. */
  byKind: Map<string, [number, number]>;
  ours: number;
  confirmed: number;
  /** ctags tags of any kind in this language's files. */
  referenced: number;
  misses: string[];
  extras: string[];
  /** Extras that are Python class attributes declared without a value (`name: T`). */
  declarations: number;
}

// `name: T` with no value: PEP 526 declarations, which universal-ctags 5.9's
// Python parser does not report (it does report `name: T = value`).
const DECLARATION_ONLY = /^\s*[A-Za-z_]\w*\s*:[^=]*$/;

function score(extracted: Extracted, tags: CtagsTag[]): Map<string, Score> {
  const scores = new Map<string, Score>();
  const of = (language: string) => {
    let entry = scores.get(language);
    if (!entry) {
      entry = {
        wanted: 0,
        found: 0,
        byKind: new Map(),
        ours: 0,
        confirmed: 0,
        referenced: 0,
        misses: [],
        extras: [],
        declarations: 0,
      };
      scores.set(language, entry);
    }
    return entry;
  };
  const tagsByPath = new Map<string, CtagsTag[]>();
  for (const tag of tags) {
    const list = tagsByPath.get(tag.path) ?? [];
    list.push(tag);
    tagsByPath.set(tag.path, list);
  }
  for (const [path, { language, symbols, lines }] of extracted.byPath) {
    if (language === null) continue;
    const entry = of(language);
    const fileTags = tagsByPath.get(path) ?? [];
    entry.referenced += fileTags.length;
    for (const tag of fileTags) {
      if (!SUPPORTED[tag.language]?.has(tag.kind) || ANONYMOUS.test(tag.name)) continue;
      entry.wanted++;
      const kind = entry.byKind.get(tag.kind) ?? [0, 0];
      entry.byKind.set(tag.kind, kind);
      kind[0]++;
      if (symbols.some((symbol) => covers(symbol, tag))) {
        entry.found++;
        kind[1]++;
      } else entry.misses.push(`${path}:${tag.line} ${tag.kind} ${tag.name}`);
    }
    for (const symbol of symbols) {
      entry.ours++;
      if (fileTags.some((tag) => covers(symbol, tag))) entry.confirmed++;
      else {
        entry.extras.push(`${path}:${symbol.startLine} ${symbol.kind} ${symbol.name}`);
        const line = lines?.[symbol.startLine - 1] ?? "";
        if (symbol.kind === "field" && DECLARATION_ONLY.test(line)) entry.declarations++;
      }
    }
  }
  return scores;
}

if (import.meta.main) {
  const files = await trackedFiles(TREE);
  const extracted = await extractAll(TREE, files);
  const reference = await ctags(TREE, [...extracted.byPath.keys()]);
  const mib = extracted.bytes / 1024 / 1024;
  console.log(`tree: ${TREE} (${files.length} files, ${mib.toFixed(1)} MiB of text)`);
  console.log(
    `extraction: ${(extracted.ms / 1000).toFixed(1)} s, ${
      (mib / (extracted.ms / 1000)).toFixed(1)
    }` +
      ` MiB/s of all text; ctags on the same files: ${(reference.ms / 1000).toFixed(1)} s; ` +
      `outcomes ${JSON.stringify(extracted.outcomes)}`,
  );
  console.log(
    "| language | ctags definitions | recall | symbols | precision | " +
      "precision, `name: T` declarations aside | recall by ctags kind |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---|");
  const scores = score(extracted, reference.tags);
  for (const [language, s] of [...scores].sort(([a], [b]) => a < b ? -1 : 1)) {
    const recall = s.wanted === 0 ? "-" : (s.found / s.wanted).toFixed(3);
    // No ctags tag at all in a language's files: ctags has no parser for it, nothing to compare.
    const precision = s.ours === 0 || s.referenced === 0 ? "-" : (s.confirmed / s.ours).toFixed(3);
    const aside = s.declarations === 0 || s.referenced === 0
      ? "-"
      : `${(s.confirmed / (s.ours - s.declarations)).toFixed(3)} (${s.declarations} aside)`;
    const kinds = [...s.byKind].sort(([, a], [, b]) => b[0] - a[0])
      .map(([kind, [n, f]]) => `${kind} ${(f / n).toFixed(2)} of ${n}`).join(", ");
    console.log(
      `| ${language} | ${s.wanted} | ${recall} | ${s.ours} | ${precision} | ${aside} | ` +
        `${kinds || "-"} |`,
    );
    if (MISSES > 0) {
      for (const miss of s.misses.slice(0, MISSES)) console.log(`  miss ${miss}`);
      for (const extra of s.extras.slice(0, MISSES)) console.log(`  extra ${extra}`);
    }
  }
}
