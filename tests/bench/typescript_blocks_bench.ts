/**
 * TypeScript blocks left out of a `references` parse
 * (`symbols/typescript_blocks.ts`): the same answer, parsed faster. Over the
 * TypeScript files (`.ts`, `.mts`, `.cts`) of a Git work tree (`--tree
 * PATH`), names are drawn (seeded) from definition lines (`function`,
 * `class`, `interface`, `type`, `const NAME`, and methods: a line's first
 * `NAME(`) in two classes by whole-word count over those files: rare (20 to
 * 100) and common (1,000 or more), `--names` of each. For each name, each
 * file that spells it (at most `--files` of them, in path order) is asked
 * for the name's occurrences with bindings (what `references` and the
 * name's resolution ask of a file) two ways, in one extractor on this
 * thread: parsed whole, and with the blocks that do not spell the name left
 * out. The answers (lines, columns, roles, bindings, exports) must be equal.
 * Prints the pairs compared, those that differ (each named), and the
 * processor time of each way (the sum, and the median file).
 *
 * With `--javascript`, the JavaScript files (`.js`, `.mjs`, `.cjs`) instead.
 *
 * Run: deno run --allow-read --allow-run tests/bench/typescript_blocks_bench.ts --tree PATH \
 *   [--names N] [--files N] [--seed S] [--javascript]
 *
 * @module
 */

import { SymbolExtractor } from "../../sourcegraph/symbols/symbol_extractor.ts";
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
// `--javascript`: the JavaScript files (`.js`, `.mjs`, `.cjs`) instead.
const GLOBS = args.includes("--javascript")
  ? ["*.js", "*.mjs", "*.cjs"]
  : ["*.ts", "*.mts", "*.cts"];
if (!TREE) {
  console.error("usage: typescript_blocks_bench.ts --tree PATH (a Git work tree) [--names N]");
  Deno.exit(2);
}

const DEFINITION =
  /\b(?:function|class|interface|type|const)\s+([A-Za-z_$][\w$]{3,})|^\s+([A-Za-z_$][\w$]{3,})\(/gm;

const texts = await trackedTexts(TREE, GLOBS);
const { counts, defined } = definedNames(texts, {
  word: /[A-Za-z_$][\w$]*/g,
  definition: DEFINITION,
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

/** One pair's answers (JSON) and processor ms whole and skipped, each first on every other pair. */
async function bothWays(
  pair: number,
  at: { path: string; text: string; name: string },
): Promise<{ whole: string; skipped: string; wholeMs: number; skippedMs: number }> {
  const found = { whole: "", skipped: "", wholeMs: 0, skippedMs: 0 };
  for (const wholeFile of pair % 2 === 0 ? [true, false] : [false, true]) {
    const started = processCpuMs();
    const answer = await extractor.occurrences(at.path, at.text, at.name, {
      bindings: true,
      wholeFile,
    });
    const ms = processCpuMs() - started;
    if (wholeFile) Object.assign(found, { whole: JSON.stringify(answer), wholeMs: ms });
    else Object.assign(found, { skipped: JSON.stringify(answer), skippedMs: ms });
  }
  return found;
}

console.log(`tree: ${TREE}, ${texts.size} files (${GLOBS.join(" ")}); ${new Date().toISOString()}`);
console.log(
  "| names | pairs | differ | whole CPU ms (sum / p50) | skipped CPU ms (sum / p50) | skipped / whole |",
);
console.log("|---|---|---|---|---|---|");
for (const [label, names] of classes) {
  let pairs = 0;
  const differ: string[] = [];
  const whole: number[] = [];
  const skipped: number[] = [];
  for (const name of names) {
    const word = new RegExp(`(?<![\\w$])${name.replaceAll("$", "\\$")}(?![\\w$])`);
    const spelled = paths.filter((path) => word.test(texts.get(path)!)).slice(0, FILES);
    for (const path of spelled) {
      const found = await bothWays(pairs++, { path, text: texts.get(path)!, name });
      whole.push(found.wholeMs);
      skipped.push(found.skippedMs);
      if (found.whole !== found.skipped) differ.push(`${name} in ${path}`);
    }
  }
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  if (pairs === 0) {
    console.log(`| ${label}: ${names.length} | 0 | 0 | - | - | - |`);
    continue;
  }
  console.log(
    `| ${label}: ${names.length} | ${pairs} | ${differ.length} | ${sum(whole).toFixed(0)} / ${
      percentile(whole, 50).toFixed(1)
    } | ${sum(skipped).toFixed(0)} / ${percentile(skipped, 50).toFixed(1)} | ${
      (sum(skipped) / sum(whole)).toFixed(2)
    } |`,
  );
  for (const pair of differ) console.log(`  differs: ${pair}`);
}
