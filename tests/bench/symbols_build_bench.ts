/**
 * What symbol extraction adds to an index build: the same commit of a real
 * tree built into a fresh index without and with symbols (workers beside
 * the trigram work, as the builder process runs them), the two alternating,
 * `--runs` times each (default 5), printing each time, MiB/s of new blob
 * bytes, the index size with the symbol tables' share of it, and the
 * medians with the overhead (a shared 2-core machine varies by a third
 * between runs, so one pair says little).
 *
 * Run: deno run --allow-read --allow-write --allow-run=git --allow-env \
 *   tests/bench/symbols_build_bench.ts --tree PATH [--runs N]
 *
 * @module
 */

import { join } from "node:path";
import { buildCommitIndex } from "../../sourcegraph/search/build/index_builder.ts";
import { SymbolExtraction } from "../../sourcegraph/search/build/symbol_extraction.ts";
import { IndexDatabase } from "../../sourcegraph/search/index/index_database.ts";
import { TrigramCollector } from "../../sourcegraph/search/index/trigrams.ts";

const args = Deno.args;
const TREE = args[args.indexOf("--tree") + 1];
if (!args.includes("--tree") || !TREE) {
  console.error("usage: symbols_build_bench.ts --tree PATH (a Git work tree)");
  Deno.exit(2);
}

const RUNS = args.includes("--runs") ? Number(args[args.indexOf("--runs") + 1]) : 5;

// Builds the tree's HEAD into a fresh index; its time in ms.
async function build(withSymbols: boolean): Promise<number> {
  const folder = await Deno.makeTempDir({ prefix: "symbols-build-" });
  const head = new TextDecoder().decode(
    (await new Deno.Command("git", { args: ["rev-parse", "HEAD"], cwd: TREE }).output()).stdout,
  ).trim();
  const index = new IndexDatabase(join(folder, "index.sqlite3"));
  const symbols = withSymbols ? new SymbolExtraction() : undefined;
  try {
    const stats = await buildCommitIndex(index, {
      mirror: join(TREE, ".git"),
      commit: head,
      collector: new TrigramCollector(),
      symbols,
    });
    const symbolBytes = (index.db.prepare(
      "SELECT SUM(pgsize) AS bytes FROM dbstat WHERE name IN " +
        "('symbols', 'symbols_by_blob', 'symbol_names', 'sqlite_autoindex_symbol_names_1')",
    ).get() as { bytes: number | null }).bytes ?? 0;
    const size = index.sizeOnDisk();
    const mib = stats!.newBytes / 1024 / 1024;
    console.log(
      `${withSymbols ? "with symbols   " : "without symbols"}: ${
        (stats!.ms / 1000).toFixed(1)
      } s, ` +
        `${(mib / (stats!.ms / 1000)).toFixed(1)} MiB/s, ${stats!.newSymbols} symbols, index ` +
        `${(size / 1024 / 1024).toFixed(1)} MiB (symbol tables ${
          (symbolBytes / 1024 / 1024).toFixed(1)
        } MiB, ${(100 * symbolBytes / size).toFixed(1)}%)` +
        (symbols ? `, outcomes ${JSON.stringify(symbols.outcomes)}` : ""),
    );
    return stats!.ms;
  } finally {
    symbols?.close();
    index.close();
    await Deno.remove(folder, { recursive: true });
  }
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

if (import.meta.main) {
  const without: number[] = [];
  const withSymbols: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    without.push(await build(false));
    withSymbols.push(await build(true));
  }
  const base = median(without);
  const extra = median(withSymbols);
  console.log(
    `median of ${RUNS}: without ${(base / 1000).toFixed(1)} s, with ${
      (extra / 1000).toFixed(1)
    } s, ` +
      `+${(100 * (extra / base - 1)).toFixed(0)}%`,
  );
}
