/**
 * Rust bodies blanked for `references` (`symbols/rust_bodies.ts`): the same
 * answer, parsed faster. Over the Rust files of a Git work tree (`--tree
 * PATH`), names are drawn (seeded) from definition lines (`fn`, `struct`,
 * `enum`, `trait NAME`) in two classes by whole-word count over the Rust
 * files: rare (20 to 100) and common (1,000 or more), `--names` of each. For
 * each name, each Rust file that spells it (at most `--files` of them, in
 * path order) is asked for the name's occurrences with bindings and scopes,
 * as `references` asks, once parsed whole and once blanked, in one extractor
 * on this thread; the two answers (lines, columns, roles, bindings, scopes,
 * exports) must be equal. Prints the pairs compared, those that differ (each
 * named), and the processor time of each way (the sum, and the median file).
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

import { join } from "node:path";
import { cpuUsage } from "node:process";
import { SymbolExtractor } from "../../sourcegraph/symbols/symbol_extractor.ts";
import { percentile, prng } from "../support/bench_stats.ts";

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

async function rustFiles(tree: string): Promise<Map<string, string>> {
  const listed = await new Deno.Command("git", {
    args: ["ls-files", "*.rs"],
    cwd: tree,
    stdout: "piped",
  }).output();
  const texts = new Map<string, string>();
  for (const path of new TextDecoder().decode(listed.stdout).split("\n").filter(Boolean)) {
    try {
      texts.set(path, await Deno.readTextFile(join(tree, path)));
    } catch {
      // A blob the tree lacks.
    }
  }
  return texts;
}

/** Whole-word counts of every identifier of `texts`, and the names defined there. */
function namesOf(texts: Map<string, string>): { counts: Map<string, number>; defined: string[] } {
  const counts = new Map<string, number>();
  const defined = new Set<string>();
  for (const text of texts.values()) {
    for (const [word] of text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
    for (
      const match of text.matchAll(/\b(?:fn|struct|enum|trait)\s+([A-Za-z_][A-Za-z0-9_]{3,})/g)
    ) {
      defined.add(match[1]);
    }
  }
  return { counts, defined: [...defined].sort() };
}

function draw(pool: string[], random: () => number): string[] {
  const left = [...pool];
  const drawn: string[] = [];
  while (drawn.length < NAMES && left.length > 0) {
    drawn.push(left.splice(Math.floor(random() * left.length), 1)[0]);
  }
  return drawn;
}

// Processor milliseconds of this process so far.
function cpuMs(): number {
  const { user, system } = cpuUsage();
  return (user + system) / 1000;
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
      const started = cpuMs();
      found.push(JSON.stringify(await extractor.extract(path, text, { wholeFile })));
      if (wholeFile) whole += cpuMs() - started;
      else blanked += cpuMs() - started;
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

const texts = await rustFiles(TREE);
if (args.includes("--extract")) {
  await compareExtraction(texts);
  Deno.exit(0);
}
const { counts, defined } = namesOf(texts);
const random = prng(SEED);
const classes: [string, string[]][] = [
  [
    "rare (20-100)",
    draw(defined.filter((n) => counts.get(n)! >= 20 && counts.get(n)! <= 100), random),
  ],
  ["common (1000+)", draw(defined.filter((n) => counts.get(n)! >= 1000), random)],
];
const extractor = await SymbolExtractor.create({ deadlineMs: 60_000 });
const paths = [...texts.keys()].sort();
console.log(`tree: ${TREE}, ${texts.size} Rust files; ${new Date().toISOString()}`);
console.log(
  "| names | pairs | differ | whole CPU ms (sum / p50) | blanked CPU ms (sum / p50) | ratio |",
);
console.log("|---|---|---|---|---|---|");
for (const [label, names] of classes) {
  let pairs = 0;
  const differ: string[] = [];
  const whole: number[] = [];
  const blanked: number[] = [];
  for (const name of names) {
    const word = new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`);
    const spelled = paths.filter((path) => word.test(texts.get(path)!)).slice(0, FILES);
    for (const path of spelled) {
      const text = texts.get(path)!;
      // Each way first on every other pair; processor time (the machine is shared).
      const ways = pairs % 2 === 0 ? [true, false] : [false, true];
      const found: string[] = [];
      for (const wholeFile of ways) {
        const started = cpuMs();
        const answer = await extractor.occurrences(path, text, name, { bindings: true, wholeFile });
        (wholeFile ? whole : blanked).push(cpuMs() - started);
        found.push(JSON.stringify(answer));
      }
      if (found[0] !== found[1]) differ.push(`${name} in ${path}`);
      pairs++;
    }
  }
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  console.log(
    `| ${label}: ${names.length} | ${pairs} | ${differ.length} | ${sum(whole).toFixed(0)} / ${
      percentile(whole, 50).toFixed(1)
    } | ${sum(blanked).toFixed(0)} / ${percentile(blanked, 50).toFixed(1)} | ${
      (sum(blanked) / sum(whole)).toFixed(2)
    } |`,
  );
  for (const pair of differ) console.log(`  differs: ${pair}`);
}
