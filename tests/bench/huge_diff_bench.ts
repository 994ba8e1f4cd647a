/**
 * Benchmark of a commit whose diff is 1 GiB (a small file replaced by a
 * 1 GiB one, written with `git fast-import` as a stream; `--mib` sets the
 * size), beside the same `git diff` of the commit in the same run (Git
 * takes a file over its 512 MiB `core.bigFileThreshold` for binary): the commit page's time, its size, and
 * the service's resident memory and heap before and after, which stay far
 * under the diff's size since the patch is read as Git writes it and Git is
 * stopped once the page's budget is spent. The same mechanism at 64 MiB is
 * asserted by `tests/sourcegraph/pathological_history_test.ts`.
 *
 * Run: deno run --v8-flags=--expose-gc --allow-read --allow-write --allow-run \
 *   --allow-env --allow-sys=uid --allow-net=127.0.0.1 tests/bench/huge_diff_bench.ts [--mib N]
 *
 * @module
 */

import { withInProcessService } from "../support/in_process_service.ts";
import { pageRequest } from "../support/page_requests.ts";
import { writePathologicalHistory } from "../support/pathological_history.ts";

const args = Deno.args;
const MIB = Number(args.includes("--mib") ? args[args.indexOf("--mib") + 1] : 1024);
const gc = (globalThis as { gc?: () => void }).gc;
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

let built = 0;
await withInProcessService(async ({ handle, sources }) => {
  const source = sources.get("org/huge")!;
  const big = (await source.git("log", "--format=%H", "-2", "--first-parent", "main"))
    .split("\n")[1];
  gc?.();
  const before = Deno.memoryUsage();
  let t = performance.now();
  const answer = await pageRequest(handle, `/sourcegraph/org/huge/-/commit/${big}`);
  const pageMs = performance.now() - t;
  gc?.();
  const after = Deno.memoryUsage();
  t = performance.now();
  const diff = await new Deno.Command("git", {
    args: ["diff", "--no-color", "-M", "-C", "-U3", `${big}~1`, big],
    cwd: source.path,
    stdout: "null",
  }).output();
  const gitMs = performance.now() - t;
  if (answer.status !== 200 || !diff.success) throw new Error(`status ${answer.status}`);
  console.log(
    `history of a ${MIB} MiB replacement built and synced in ${(built / 1000).toFixed(1)} s`,
  );
  console.log("| measure | value |");
  console.log("| --- | --: |");
  console.log(`| commit page ms | ${pageMs.toFixed(0)} |`);
  console.log(`| git diff -M -C -U3 of the commit (to /dev/null) ms | ${gitMs.toFixed(0)} |`);
  console.log(`| the page says the file is binary | ${answer.body.includes("Binary file")} |`);
  console.log(`| commit page bytes | ${answer.body.length.toLocaleString("en")} |`);
  console.log(`| rss before / after MiB | ${mib(before.rss)} / ${mib(after.rss)} |`);
  console.log(
    `| heap used before / after MiB | ${mib(before.heapUsed)} / ${mib(after.heapUsed)} |`,
  );
}, {
  repositories: [{
    name: "org/huge",
    publicRead: true,
    files: { "last.txt": "last\n" },
    prepare: async (repo) => {
      const t = performance.now();
      await writePathologicalHistory(repo.path, {
        hotCommits: 10,
        bigBytes: MIB * 1024 * 1024,
        subjectChars: 10,
        octopusParents: 3,
      });
      built = performance.now() - t;
    },
  }],
});
