/**
 * Where a search's time goes, in process, at an index a service built (the
 * `.sourcegraph/search_index` of a checkout `search_classes_bench.ts` kept
 * with `--keep`): for each of its classes, p50 ms of compiling the search,
 * of finding the candidates in the postings, and of the whole `searchCommit`
 * (the scanning workers as the service runs them), with processor time
 * beside wall time (the machine is shared: processor time is the steadier).
 *
 * Run: deno run --allow-read --allow-write --allow-run --allow-env \
 *   tests/bench/search_phases_bench.ts --checkout DIR/deno [--runs N] [--only NAME]
 *
 * @module
 */

import { join } from "node:path";
import { cpuUsage } from "node:process";
import { IndexDatabase } from "../../sourcegraph/search/index/index_database.ts";
import { IndexedCommit } from "../../sourcegraph/search/index/index_reader.ts";
import {
  compileSearch,
  type SearchRequest,
} from "../../sourcegraph/search/query/compiled_search.ts";
import { searchCommit } from "../../sourcegraph/search/code_search.ts";
import { ChunkScanner } from "../../sourcegraph/search/scan/chunk_scanner.ts";
import { MirrorObjects } from "../../sourcegraph/git/mirror_objects.ts";
import { percentile } from "../support/bench_stats.ts";
import { git } from "../support/git_repo.ts";

const args = Deno.args;
const flag = (name: string, fallback: string) =>
  args.includes(name) ? args[args.indexOf(name) + 1] : fallback;
const CHECKOUT = flag("--checkout", "");
const RUNS = Number(flag("--runs", "20"));
const ONLY = flag("--only", "");

const CLASSES: [string, SearchRequest][] = [
  ["common literal", { pattern: "deno_core", fixedStrings: true }],
  ["rare literal", { pattern: "DatabaseSync", fixedStrings: true }],
  ["absent literal", { pattern: "zqxjkwvbnmpq", fixedStrings: true }],
  ["phrase", { pattern: "could not be found", fixedStrings: true }],
  ["regex, one alternation", { pattern: "Deno\\.(open|read|write)\\w*Sync\\(" }],
  ["regex, word class", { pattern: "fn \\w+_sync\\(" }],
  ["ignore-case literal", { pattern: "DENO_CORE", fixedStrings: true, ignoreCase: true }],
];

// Milliseconds of wall and processor time `fn` took.
async function timed(fn: () => unknown): Promise<[number, number]> {
  const cpu = cpuUsage();
  const started = performance.now();
  await fn();
  const used = cpuUsage(cpu);
  return [performance.now() - started, (used.user + used.system) / 1000];
}

const folder = join(CHECKOUT, ".sourcegraph", "search_index");
const database = [...Deno.readDirSync(folder)].find((entry) => entry.name.endsWith(".sqlite3"));
if (database === undefined) throw new Error(`no index under ${folder}`);
const head = await git(CHECKOUT, ["rev-parse", "HEAD"]);
const index = new IndexDatabase(join(folder, database.name));
const commit = IndexedCommit.open(index, head);
if (commit === null) throw new Error(`${head} is not indexed`);
const scanner = new ChunkScanner({ workers: 2 });
const tree = new MirrorObjects(CHECKOUT);
console.log(`${CHECKOUT} at ${head.slice(0, 12)}, ${commit.fileCount} files`);
console.log(
  "| class | files | compile ms | candidates p50 / min ms (files) | search wall p50 / min, cpu p50 ms |",
);
console.log("|---|---|---|---|---|");
for (const [name, request] of CLASSES) {
  if (ONLY !== "" && name !== ONLY) continue;
  const compile: number[] = [];
  const candidates: number[] = [];
  const wall: number[] = [];
  const cpu: number[] = [];
  let files = 0;
  let candidateCount = 0;
  for (let i = 0; i < RUNS + 3; i++) {
    let search = compileSearch(request);
    const [compiled] = await timed(() => search = compileSearch(request));
    const scope = { paths: search.pathTrigrams, keep: search.keep, groups: search.groups };
    const [found] = await timed(() =>
      candidateCount = commit.candidates(search.trigrams, scope).length
    );
    const [ms, used] = await timed(async () => {
      files =
        (await searchCommit(tree, { search, commit: head, index: commit, scanner })).fileCount;
    });
    if (i < 3) continue;
    compile.push(compiled);
    candidates.push(found);
    wall.push(ms);
    cpu.push(used);
  }
  const p50 = (values: number[]) => percentile(values, 50).toFixed(2);
  const min = (values: number[]) => Math.min(...values).toFixed(2);
  console.log(
    `| ${name} | ${files} | ${p50(compile)} | ${p50(candidates)} / ${
      min(candidates)
    } (${candidateCount}) | ${p50(wall)} / ${min(wall)}, ${p50(cpu)} |`,
  );
}
scanner.close();
await tree.close();
index.close();
