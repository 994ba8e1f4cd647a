/**
 * Benchmark of the Git knowledge source: 200 configured committed files of
 * 1 to 64 KiB. It times the first page (the whole delivery is built: every
 * blob read) and an acknowledge plus the next page, side by side in the same
 * run with the original implementation's access pattern (rev-parse, then
 * ls-tree, cat-file -s and cat-file blob as separate processes per file).
 *
 * Run: deno run --allow-read --allow-write --allow-run \
 *   --allow-env tests/bench/git_source_bench.ts
 *
 * @module
 */

import { join } from "node:path";
import { percentile, timed } from "../support/bench_stats.ts";
import { validateConfig } from "../../git_source/config.ts";
import { GitKnowledgeSource } from "../../git_source/feed.ts";
import { runGit } from "../../shared/git.ts";
import { createRepo, removeDir, tempDir } from "../support/git_repo.ts";

const FILES = 200;
const ROUNDS = 7;

// The original implementation's pattern: one process per Git question, three per file.
async function referencePattern(repo: string, paths: string[]): Promise<void> {
  const head = new TextDecoder().decode(
    (await runGit(["rev-parse", "--verify", "HEAD^{commit}"], { cwd: repo })).stdout,
  ).trim();
  for (const path of paths) {
    const entry = new TextDecoder().decode(
      (await runGit(["ls-tree", "-z", head, "--", path], { cwd: repo })).stdout,
    );
    const oid = entry.split(" ")[2].split("\t")[0];
    await runGit(["cat-file", "-s", oid], { cwd: repo });
    await runGit(["cat-file", "blob", oid], { cwd: repo });
  }
}

const parent = await tempDir("gs-bench-");
try {
  const files: Record<string, string> = {};
  let bytes = 0;
  for (let i = 0; i < FILES; i++) {
    const size = 1024 + Math.floor(((i * 7919) % FILES) / FILES * (63 * 1024));
    const line = `file ${i} line of committed text with some words in it\n`;
    files[`docs/file${String(i).padStart(3, "0")}.md`] = line.repeat(Math.ceil(size / line.length))
      .slice(0, size);
    bytes += size;
  }
  const repo = await createRepo(files, { parent, name: "repo" });
  const paths = Object.keys(files);
  console.log(`corpus: ${FILES} files, ${(bytes / 1048576).toFixed(1)} MiB, 1 to 64 KiB each`);

  const firstPage: number[] = [];
  const ackNext: number[] = [];
  const reference: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const data = join(parent, `data${round}`);
    let page: Awaited<ReturnType<GitKnowledgeSource["changes"]>> | undefined;
    firstPage.push(
      await timed(async () => {
        const fresh = new GitKnowledgeSource(
          validateConfig({
            repository: repo.path,
            paths,
            dataDirectory: data,
          }),
        );
        page = await fresh.changes();
      }),
    );
    const source = new GitKnowledgeSource(
      validateConfig({
        repository: repo.path,
        paths,
        dataDirectory: data,
      }),
    );
    ackNext.push(
      await timed(async () => {
        await source.acknowledge(page!.token);
        page = await source.changes();
      }),
    );
    reference.push(await timed(() => referencePattern(repo.path, paths)));
  }
  const p50 = (values: number[]) => percentile(values, 50);
  console.log("| measure | ours | reference pattern | speed-up |\n|---|---|---|---|");
  console.log(
    `| first page, p50 of ${ROUNDS} | ${p50(firstPage).toFixed(0)} ms | ${
      p50(reference).toFixed(0)
    } ms | ${(p50(reference) / p50(firstPage)).toFixed(1)}x |`,
  );
  console.log(`| acknowledge + next page, p50 | ${p50(ackNext).toFixed(1)} ms | | |`);
  console.log(
    `| first page, max | ${Math.max(...firstPage).toFixed(0)} ms | ${
      Math.max(...reference).toFixed(0)
    } ms | |`,
  );
} finally {
  await removeDir(parent);
}
