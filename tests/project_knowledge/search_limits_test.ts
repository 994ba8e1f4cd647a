import { join } from "node:path";
import { prepareCacheDir, rootHash } from "../../project_knowledge/project/cache_dir.ts";
import { GitState } from "../../project_knowledge/project/git_state.ts";
import { IndexReader } from "../../project_knowledge/query/index_reader.ts";
import { runIndex } from "../../project_knowledge/index/indexer.ts";
import { openProjectRoot } from "../../project_knowledge/project/project_root.ts";
import { searchIndex } from "../../project_knowledge/query/search.ts";
import { assertEquals } from "../support/assert.ts";
import { withProject } from "../support/knowledge_project.ts";

// The candidate cap and the time budget are fixed constants in
// production; in-process they are lowered to show the behaviour at the edge.
const FILES: Record<string, string> = {};
for (let i = 0; i < 6; i++) FILES[`doc${i}.md`] = `needle ${i}\n`;
FILES["other.md"] = "nothing\n";

async function target(repoPath: string, cacheBase: string) {
  const root = await openProjectRoot({ cwd: repoPath });
  const cache = prepareCacheDir(cacheBase, root.path);
  const hash = rootHash(root.path);
  await runIndex({ root, cache, rootHash: hash }, { mode: "rebuild", budgetMs: 20_000 });
  return { root, reader: new IndexReader(cache, hash), git: new GitState(root) };
}

Deno.test("search examines at most the candidate cap; stale ones count, and the cap marks truncation", () =>
  withProject(FILES, async (project) => {
    const t = await target(project.repo.path, project.cacheBase);
    try {
      for (let i = 0; i < 6; i++) {
        await Deno.writeTextFile(join(project.repo.path, `doc${i}.md`), `needle ${i} edited\n`);
      }
      const capped = await searchIndex(t, "needle", {
        limit: 5,
        budgetMs: 5_000,
        fits: () => true,
        maxCandidates: 4,
      });
      assertEquals(
        [capped.hits.length, capped.stale_candidates_omitted, capped.results_truncated],
        [0, 4, true],
      );
      const atCap = await searchIndex(t, "needle", {
        limit: 5,
        budgetMs: 5_000,
        fits: () => true,
        maxCandidates: 6,
      });
      assertEquals([atCap.stale_candidates_omitted, atCap.results_truncated], [6, false]);
    } finally {
      t.reader.close();
    }
  }));

Deno.test("search stops at its time budget and marks truncation", () =>
  withProject(FILES, async (project) => {
    const t = await target(project.repo.path, project.cacheBase);
    try {
      const full = await searchIndex(t, "needle", { limit: 6, budgetMs: 5_000, fits: () => true });
      assertEquals([full.hits.length, full.results_truncated], [6, false]);
      // Git observations are cached now, so the search reaches its candidates.
      const outcome = await searchIndex(t, "needle", { limit: 5, budgetMs: 0, fits: () => true });
      assertEquals([outcome.hits.length, outcome.results_truncated], [0, true]);
    } finally {
      t.reader.close();
    }
  }));
