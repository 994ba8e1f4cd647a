/**
 * Rust blocks blanked or skipped for `references` (`symbols/rust_bodies.ts`):
 * the same answer, parsed faster. Over the Rust files of a Git work tree
 * (`--tree PATH`), names are drawn (seeded) from definition lines (`fn`,
 * `struct`, `enum`, `trait NAME`) in two classes by whole-word count over
 * the Rust files: rare (20 to 100) and common (1,000 or more), `--names` of
 * each. For each name, each Rust file that spells it (at most `--files` of
 * them, in path order) is asked for the name's occurrences with bindings
 * and scopes three ways, in one extractor on this thread: parsed whole;
 * with the blocks that do not spell the name blanked as spaces (the blanked
 * text parsed whole); and as `references` asks, those blocks left out of
 * the parse (tree-sitter's included ranges), with the items and the comments'
 * insides that do not spell the name (`rustSpansWithout`). The answers (lines, columns,
 * roles, bindings, scopes, exports) must be equal, the last two always.
 * Prints the pairs compared, those that differ (each named), and the
 * processor time of each way (the sum, and the median file).
 *
 * With `--extract`, the index's symbols instead: every Rust file's symbols
 * extracted once whole and once with the bodies that hold no nested item
 * blanked, which must be equal, and the processor time of each way.
 *
 * Run: deno run --allow-read --allow-run tests/bench/rust_bodies_bench.ts --tree PATH \
 *   [--names N] [--files N] [--seed S] [--extract]
 *
 * @module
 */

import { SymbolExtractor } from "../../sourcegraph/symbols/symbol_extractor.ts";
import { blankRustBodies } from "../../sourcegraph/symbols/rust_bodies.ts";
import {
  definedNames,
  drawn,
  percentile,
  prng,
  processCpuMs,
  trackedTexts,
} from "../support/bench_stats.ts";

const args = Deno.args;
const option = (name: string) => args.includes(name) ? args[args.indexOf(name) + 1] : undefined;
const TREE = option("--tree");
const NAMES = Number(option("--names") ?? 20);
const FILES = Number(option("--files") ?? 30);
const SEED = Number(option("--seed") ?? 1);
if (!TREE) {
  console.error("usage: rust_bodies_bench.ts --tree PATH (a Git work tree) [--names N]");
  Deno.exit(2);
}

/** Every file's symbols whole and blanked: the files that differ, and each way's processor ms. */
async function compareExtraction(texts: Map<string, string>): Promise<void> {
  const extractor = await SymbolExtractor.create({ deadlineMs: 60_000 });
  let whole = 0;
  let blanked = 0;
  const differ: string[] = [];
  let files = 0;
  for (const [path, text] of texts) {
    // Each way first on every other file (the first parse of a file's text warms caches up).
    const ways = files++ % 2 === 0 ? [true, false] : [false, true];
    const found: string[] = [];
    for (const wholeFile of ways) {
      const started = processCpuMs();
      found.push(JSON.stringify(await extractor.extract(path, text, { wholeFile })));
      if (wholeFile) whole += processCpuMs() - started;
      else blanked += processCpuMs() - started;
    }
    if (found[0] !== found[1]) differ.push(path);
  }
  console.log(
    `symbols of ${texts.size} files: ${differ.length} differ; processor ms whole ${
      whole.toFixed(0)
    }, blanked ${blanked.toFixed(0)} (${(blanked / whole).toFixed(2)})`,
  );
  for (const path of differ) console.log(`  differs: ${path}`);
}

const texts = await trackedTexts(TREE, ["*.rs"]);
if (args.includes("--extract")) {
  await compareExtraction(texts);
  Deno.exit(0);
}
const { counts, defined } = definedNames(texts, {
  word: /[A-Za-z_][A-Za-z0-9_]*/g,
  definition: /\b(?:fn|struct|enum|trait)\s+([A-Za-z_][A-Za-z0-9_]{3,})/g,
});
const random = prng(SEED);
const classes: [string, string[]][] = [
  [
    "rare (20-100)",
    drawn(defined.filter((n) => counts.get(n)! >= 20 && counts.get(n)! <= 100), NAMES, random),
  ],
  ["common (1000+)", drawn(defined.filter((n) => counts.get(n)! >= 1000), NAMES, random)],
];
const extractor = await SymbolExtractor.create({ deadlineMs: 60_000 });
const paths = [...texts.keys()].sort();

// The three ways of one file and name: whole, blanked with spaces (the blanked text parsed
// whole), and the blanked blocks left out of the parse (what `references` does).
const WAYS = ["whole", "spaces", "skipped"] as const;
type Way = typeof WAYS[number];

/** One pair's answer (JSON) and processor ms each way, each way first on every third pair. */
async function eachWay(
  pair: number,
  at: { path: string; text: string; name: string },
): Promise<Record<Way, { answer: string; ms: number }>> {
  const { path, text, name } = at;
  const found = {} as Record<Way, { answer: string; ms: number }>;
  for (let turn = 0; turn < WAYS.length; turn++) {
    const way = WAYS[(pair + turn) % WAYS.length];
    const started = processCpuMs();
    const answer = await extractor.occurrences(
      path,
      way === "spaces" ? blankRustBodies(text, name) : text,
      name,
      { bindings: true, wholeFile: way !== "skipped" },
    );
    found[way] = { answer: JSON.stringify(answer), ms: processCpuMs() - started };
  }
  return found;
}

console.log(`tree: ${TREE}, ${texts.size} Rust files; ${new Date().toISOString()}`);
console.log(
  "| names | pairs | differ whole / spaces | whole CPU ms (sum / p50) | spaces CPU ms (sum / p50) | skipped CPU ms (sum / p50) | ratio to whole spaces / skipped |",
);
console.log("|---|---|---|---|---|---|---|");
for (const [label, names] of classes) {
  let pairs = 0;
  const differ: string[] = [];
  const fromSpaces: string[] = [];
  const times: Record<Way, number[]> = { whole: [], spaces: [], skipped: [] };
  for (const name of names) {
    const word = new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`);
    const spelled = paths.filter((path) => word.test(texts.get(path)!)).slice(0, FILES);
    for (const path of spelled) {
      const found = await eachWay(pairs++, { path, text: texts.get(path)!, name });
      for (const way of WAYS) times[way].push(found[way].ms);
      if (found.whole.answer !== found.skipped.answer) differ.push(`${name} in ${path}`);
      if (found.spaces.answer !== found.skipped.answer) fromSpaces.push(`${name} in ${path}`);
    }
  }
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const cell = (way: Way) =>
    `${sum(times[way]).toFixed(0)} / ${percentile(times[way], 50).toFixed(1)}`;
  const ratio = (way: Way) => (sum(times[way]) / sum(times.whole)).toFixed(2);
  console.log(
    `| ${label}: ${names.length} | ${pairs} | ${differ.length} / ${fromSpaces.length} | ${
      cell("whole")
    } | ${cell("spaces")} | ${cell("skipped")} | ${ratio("spaces")} / ${ratio("skipped")} |`,
  );
  for (const pair of differ) console.log(`  differs from whole: ${pair}`);
  for (const pair of fromSpaces) console.log(`  differs from spaces: ${pair}`);
}
