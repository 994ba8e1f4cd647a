/**
 * The listings' last-commit column on a 500-entry folder: a repository of
 * `--commits` commits (built with `git fast-import`), each changing a few of
 * the folder's 500 entries at random, one entry changed only by the first
 * commit (so a cold walk reads the whole history). Measured beside Git in
 * the same run: `git log -1 -- <entry>` per entry (what a listing without
 * one walk would run), one `git log --name-only` walk over the folder
 * alone, then the service's `folderCommits` call cold (a new cache key each
 * time) and warm (cached), and the whole folder page warm (listing, column
 * and rendering), in process.
 *
 * ```sh
 * deno run --v8-flags=--expose-gc --allow-read --allow-write --allow-run --allow-env \
 *   --allow-sys=uid --allow-net=127.0.0.1 tests/bench/folder_commits_bench.ts [--commits 3000]
 * ```
 *
 * @module
 */

import { percentile, prng, timed } from "../support/bench_stats.ts";
import { git, type TestRepo } from "../support/git_repo.ts";
import { withInProcessService } from "../support/in_process_service.ts";
import { pageRequest } from "../support/page_requests.ts";
import type { Caller } from "../../sourcegraph/access/caller.ts";

const args = Deno.args;
const COMMITS = args.includes("--commits") ? Number(args[args.indexOf("--commits") + 1]) : 3000;
const ENTRIES = 500;
const ANONYMOUS: Caller = { kind: "anonymous" };

// Entry i of the folder: a file, or every tenth a folder with one file.
function entryPath(i: number): string {
  const name = `e${String(i).padStart(3, "0")}`;
  return i % 10 === 0 ? `big/${name}/inner.txt` : `big/${name}.ts`;
}

// A fast-import stream: the first commit adds every entry, each later one
// changes 1 to 3 entries other than entry 1 (changed only by the first).
function history(commits: number): Uint8Array {
  const random = prng(7);
  const parts: string[] = [];
  const blob = (path: string, n: number) => {
    const data = `${path} ${n}\n`;
    return `M 100644 inline ${path}\ndata ${new TextEncoder().encode(data).length}\n${data}`;
  };
  for (let c = 0; c < commits; c++) {
    const message = `change ${c}\n`;
    const changed = c === 0
      ? Array.from({ length: ENTRIES }, (_, i) => i)
      : Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
        2 + Math.floor(random() * (ENTRIES - 2)));
    parts.push(
      `commit refs/heads/main\ncommitter Bench <b@example.invalid> ${
        1_700_000_000 + c * 60
      } +0000\ndata ${message.length}\n${message}${
        changed.map((i) => blob(entryPath(i), c)).join("")
      }\n`,
    );
  }
  return new TextEncoder().encode(parts.join(""));
}

async function build(repo: TestRepo): Promise<void> {
  await git(repo.path, ["fast-import", "--quiet"], history(COMMITS));
  await git(repo.path, ["reset", "-q", "--hard", "main"]);
}

const line = (name: string, ms: number[]) =>
  `${name.padEnd(44)} n ${String(ms.length).padStart(3)}  p50 ${
    percentile(ms, 50).toFixed(1).padStart(7)
  } ms  p95 ${percentile(ms, 95).toFixed(1).padStart(7)} ms`;

await withInProcessService(async ({ handle, localCalls, heads, sources }) => {
  const head = heads.get("bench/history")!;
  const folder = sources.get("bench/history")!.path;
  const names = Array.from({ length: ENTRIES }, (_, i) => entryPath(i).split("/")[1]);
  console.log(`${COMMITS} commits, a folder of ${ENTRIES} entries`);
  const perEntry: number[] = [];
  for (let i = 0; i < 20; i++) {
    perEntry.push(
      await timed(() => git(folder, ["log", "-1", "--format=%H", head, "--", entryPath(i * 25)])),
    );
  }
  console.log(line("git log -1 -- <entry> (one entry)", perEntry));
  console.log(`  × ${ENTRIES} entries ≈ ${(percentile(perEntry, 50) * ENTRIES).toFixed(0)} ms`);
  const walk: number[] = [];
  for (let i = 0; i < 5; i++) {
    walk.push(
      await timed(() => git(folder, ["log", "--name-only", "--format=%H", head, "--", "big"])),
    );
  }
  console.log(line("git log --name-only -- big (the whole walk)", walk));
  const call = (order: string[]) =>
    localCalls.folderCommits(ANONYMOUS, {
      repo: "bench/history",
      revision: head,
      path: "big",
      names: order,
    });
  const cold: number[] = [];
  for (let i = 0; i < 5; i++) cold.push(await timed(() => call(names.toReversed().slice(i))));
  console.log(line("folderCommits, cold (one walk)", cold));
  const found = await call(names);
  if (Object.keys(found.commits).length !== ENTRIES) throw new Error("an entry has no commit");
  const warm: number[] = [];
  for (let i = 0; i < 50; i++) warm.push(await timed(() => call(names)));
  console.log(line("folderCommits, warm (cached)", warm));
  const listing: number[] = [];
  for (let i = 0; i < 30; i++) {
    listing.push(
      await timed(() =>
        localCalls.list(ANONYMOUS, {
          repo: "bench/history",
          revision: head,
          path: "big",
          first: 1000,
        })
      ),
    );
  }
  console.log(line("the listing alone (list call)", listing));
  const url = `/sourcegraph/bench/history/-/tree/${head}/big`;
  const page: number[] = [];
  for (let i = 0; i < 3; i++) await pageRequest(handle, url);
  for (let i = 0; i < 30; i++) page.push(await timed(() => pageRequest(handle, url)));
  console.log(line("folder page, warm (listing + column + HTML)", page));
  const budget = percentile(page, 95) <= 150 ? "within" : "OVER";
  console.log(`folder page p95 ${budget} the 150 ms budget`);
}, {
  repositories: [{ name: "bench/history", publicRead: true, files: {}, prepare: build }],
});
