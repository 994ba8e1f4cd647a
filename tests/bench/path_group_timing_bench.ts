/**
 * Benchmark of how long a search under path groups takes for a pattern held
 * only by hidden files, against the same pattern held nowhere. Two public
 * repositories whose one path group shows `docs/public`: `mono/big` has
 * 3,000 hidden files under `docs/private` (about 35 MiB, every line holding
 * `NEEDLEXYZ secretvalue`) and 5 visible ones; `mono/bigclean` is the same
 * with `secretvalue` replaced. Both are indexed, then three cases are
 * searched interleaved, anonymously through MCP in process (the SDK client
 * against the service's handler): `mono/big` + `secretvalue` (hidden only),
 * `mono/bigclean` + `secretvalue` (nowhere), `mono/big` + `zqxjkwvbnmp`
 * (nowhere), each as content, files output and ignore case. Prints p50 and
 * p90 per case side by side; then the same three cases' candidates taken
 * from each commit's index directly (`IndexedCommit.candidates` under the
 * groups, as a search takes them), many times each, in microseconds: what is
 * left of a difference once the service's own noise is gone.
 *
 * Run: deno run --v8-flags=--expose-gc --allow-read --allow-write --allow-run \
 *   --allow-env --allow-sys=uid tests/bench/path_group_timing_bench.ts [--runs N]
 *
 * @module
 */

import { join } from "node:path";
import { IndexDatabase } from "../../sourcegraph/search/index/index_database.ts";
import { IndexedCommit } from "../../sourcegraph/search/index/index_reader.ts";
import { compileSearch } from "../../sourcegraph/search/query/compiled_search.ts";
import { percentile, timed } from "../support/bench_stats.ts";
import { waitFor } from "../support/assert.ts";
import {
  connectInProcess,
  withInProcessService,
  type WorldRepository,
} from "../support/in_process_service.ts";
import { callText } from "../support/tool_calls.ts";

const args = Deno.args;
const RUNS = Number(args[args.indexOf("--runs") + 1] ?? 80) || 80;
const WARM_UP = 10;
// Candidates queries per case in the reader's own measure.
const READER_RUNS = 2000;
const HIDDEN_FILES = 3000;
const LINES_PER_FILE = 200;

// The hidden files: every line holds `word`, and each line differs (no chunk is shared).
function hiddenFiles(word: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (let f = 0; f < HIDDEN_FILES; f++) {
    const lines: string[] = [];
    for (let l = 0; l < LINES_PER_FILE; l++) {
      lines.push(`NEEDLEXYZ ${word} file ${f} line ${l} of the private notes`);
    }
    files[`docs/private/f${String(f).padStart(4, "0")}.txt`] = lines.join("\n") + "\n";
  }
  return files;
}

function visibleFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let f = 0; f < 5; f++) {
    files[`docs/public/p${f}.md`] = `Public page ${f}.\nNothing to see here.\n`.repeat(20);
  }
  return files;
}

function repository(name: string, word: string): WorldRepository {
  return {
    name,
    publicRead: true,
    files: { ...visibleFiles(), ...hiddenFiles(word) },
    pathGroups: [{ name: "public", paths: ["docs/public"] }],
  };
}

const CASES = [
  { name: "mono/big + secretvalue (hidden only)", repo: "mono/big", pattern: "secretvalue" },
  { name: "mono/bigclean + secretvalue (nowhere)", repo: "mono/bigclean", pattern: "secretvalue" },
  { name: "mono/big + zqxjkwvbnmp (nowhere)", repo: "mono/big", pattern: "zqxjkwvbnmp" },
];
const VARIANTS: { name: string; args: Record<string, unknown> }[] = [
  { name: "content", args: {} },
  { name: "files", args: { output: "files" } },
  { name: "ignore case", args: { ignore_case: true } },
];

// Each case's candidates from the index itself, interleaved, in microseconds.
function readerTimes(
  data: string,
  repos: { repo: string; id: number; head: string }[],
): void {
  const commits = new Map(repos.map(({ repo, id, head }) => {
    const index = new IndexDatabase(join(data, "search_index", `${id}.sqlite3`));
    return [repo, IndexedCommit.open(index, head)!];
  }));
  for (const variant of VARIANTS) {
    const times: number[][] = CASES.map(() => []);
    for (let run = 0; run < WARM_UP + READER_RUNS; run++) {
      for (const [c, one] of CASES.entries()) {
        const search = compileSearch({
          pattern: one.pattern,
          ignoreCase: variant.args.ignore_case === true,
          paths: ["docs/public"],
          groups: ["docs/public"],
        });
        const start = performance.now();
        commits.get(one.repo)!.candidates(search.trigrams, {
          paths: search.pathTrigrams,
          keep: search.keep,
          groups: search.groups,
        });
        if (run >= WARM_UP) times[c].push((performance.now() - start) * 1000);
      }
    }
    console.log(`\n${variant.name}, candidates from the index, ${READER_RUNS} each:`);
    for (const [c, one] of CASES.entries()) {
      const p50 = percentile(times[c], 50).toFixed(0);
      const p90 = percentile(times[c], 90).toFixed(0);
      console.log(`  ${one.name.padEnd(40)} p50 ${p50.padStart(6)} µs   p90 ${p90.padStart(6)} µs`);
    }
  }
}

await withInProcessService(async ({ handle, store, heads, data }) => {
  const client = await connectInProcess(handle);
  try {
    const search = (repo: string, extra: Record<string, unknown>) =>
      callText(client, "search", { repo, ...extra });
    for (const repo of ["mono/big", "mono/bigclean"]) {
      await waitFor(
        async () => (await search(repo, { pattern: "absent" })).includes('Index: "ready"'),
        { timeoutMs: 600_000 },
      );
    }
    for (const variant of VARIANTS) {
      const times: number[][] = CASES.map(() => []);
      for (let run = 0; run < WARM_UP + RUNS; run++) {
        for (const [c, one] of CASES.entries()) {
          const ms = await timed(() => search(one.repo, { pattern: one.pattern, ...variant.args }));
          if (run >= WARM_UP) times[c].push(ms);
        }
      }
      console.log(`\n${variant.name}, ${RUNS} interleaved searches each:`);
      for (const [c, one] of CASES.entries()) {
        const p50 = percentile(times[c], 50).toFixed(1);
        const p90 = percentile(times[c], 90).toFixed(1);
        console.log(
          `  ${one.name.padEnd(40)} p50 ${p50.padStart(6)} ms   p90 ${p90.padStart(6)} ms`,
        );
      }
    }
    readerTimes(
      data,
      ["mono/big", "mono/bigclean"].map((repo) => ({
        repo,
        id: store.repository(repo)!.id,
        head: heads.get(repo)!,
      })),
    );
  } finally {
    await client.close();
  }
}, {
  repositories: [repository("mono/big", "secretvalue"), repository("mono/bigclean", "othervalue1")],
  searchIndex: true,
});
