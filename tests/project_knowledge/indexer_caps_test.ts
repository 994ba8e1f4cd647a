import { join } from "node:path";
import { prepareCacheDir, rootHash } from "../../project_knowledge/project/cache_dir.ts";
import { runIndex } from "../../project_knowledge/index/indexer.ts";
import { openProjectRoot } from "../../project_knowledge/project/project_root.ts";
import { assertEquals } from "../support/assert.ts";
import { withProject } from "../support/knowledge_project.ts";

// The caps are fixed constants in production; here they are lowered so
// the behaviour at and past them is cheap to show. The full-size caps are
// exercised by tests/bench/project_knowledge_bench.ts.
async function target(repoPath: string, cacheBase: string) {
  const root = await openProjectRoot({ cwd: repoPath });
  return { root, cache: prepareCacheDir(cacheBase, root.path), rootHash: rootHash(root.path) };
}

Deno.test("file cap: at the cap everything fits; past it, the rest stays pending as file_limit", () =>
  withProject({ "a.md": "a\n", "b.md": "b\n", "c.md": "c\n" }, async (project) => {
    const t = await target(project.repo.path, project.cacheBase);
    const atCap = await runIndex(t, {
      mode: "rebuild",
      budgetMs: 20_000,
      caps: { files: 3, bytes: 1 << 20 },
    });
    assertEquals([atCap.indexed_files, atCap.stop_reason, atCap.remaining_files], [
      3,
      "complete",
      0,
    ]);
    const past = await runIndex(t, {
      mode: "rebuild",
      budgetMs: 20_000,
      caps: { files: 2, bytes: 1 << 20 },
    });
    assertEquals([
      past.indexed_files,
      past.stop_reason,
      past.remaining_files,
      past.unprocessed_files,
    ], [
      2,
      "file_limit",
      1,
      1,
    ]);
    // Repeated refresh never exceeds the cap; the limit persists.
    for (let i = 0; i < 3; i++) {
      const again = await runIndex(t, {
        mode: "refresh",
        budgetMs: 20_000,
        caps: { files: 2, bytes: 1 << 20 },
      });
      assertEquals([again.indexed_files, again.stop_reason], [2, "file_limit"]);
    }
  }));

Deno.test("corpus cap: a source that would pass the byte cap is left pending as corpus_limit", () =>
  withProject(
    { "a.md": "x".repeat(100) + "\n", "b.md": "y".repeat(100) + "\n", "c.md": "z\n" },
    async (project) => {
      const t = await target(project.repo.path, project.cacheBase);
      const exact = await runIndex(t, {
        mode: "rebuild",
        budgetMs: 20_000,
        caps: { files: 10, bytes: 101 + 101 + 2 },
      });
      assertEquals([exact.indexed_files, exact.indexed_bytes, exact.stop_reason], [
        3,
        204,
        "complete",
      ]);
      const past = await runIndex(t, {
        mode: "rebuild",
        budgetMs: 20_000,
        caps: { files: 10, bytes: 150 },
      });
      // a.md fits, b.md would pass the cap, c.md still fits after it.
      assertEquals(
        [past.indexed_files, past.indexed_bytes, past.stop_reason, past.remaining_files],
        [
          2,
          103,
          "corpus_limit",
          1,
        ],
      );
      // Shrinking a source lets the next refresh cycle take the pending one.
      await Deno.writeTextFile(join(project.repo.path, "a.md"), "small\n");
      let refresh = await runIndex(t, {
        mode: "refresh",
        budgetMs: 20_000,
        caps: { files: 10, bytes: 150 },
      });
      refresh = await runIndex(t, {
        mode: "refresh",
        budgetMs: 20_000,
        caps: { files: 10, bytes: 150 },
      });
      assertEquals([refresh.indexed_files, refresh.stop_reason, refresh.remaining_files], [
        3,
        "complete",
        0,
      ]);
    },
  ));
