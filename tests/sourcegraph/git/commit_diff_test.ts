/**
 * A commit's patch read within budgets from a real repository: a file over
 * its budget (a huge single line included) is counted but not kept, the
 * page's budget stops Git, the deadline cuts the reading short, and the
 * header carries the whole message and the parents.
 */

import { dirname } from "node:path";
import { assert, assertEquals } from "../../support/assert.ts";
import { createRepo, removeDir } from "../../support/git_repo.ts";
import {
  commitHeader,
  commitPatches,
  emptyTree,
  isAncestor,
  type PatchBudgets,
} from "../../../sourcegraph/git/commit_diff.ts";

const BUDGETS: PatchBudgets = {
  fileBytes: 16 * 1024,
  fileLines: 200,
  pageBytes: 64 * 1024,
  timeoutMs: 60_000,
};

async function fixture() {
  const repo = await createRepo({ "keep.txt": "one\ntwo\n" });
  const base = await repo.git("rev-parse", "HEAD");
  const files: Record<string, string> = {
    "keep.txt": "one\n2\n",
    "b_huge.txt": "h".repeat(24 * 1024 * 1024) + "\n",
    "c_long.txt": Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\n") + "\n",
  };
  // 20 files of about 10 KiB: the page's 64 KiB holds the first few.
  for (let i = 10; i < 30; i++) files[`d_${i}.txt`] = `${"x".repeat(99)}\n`.repeat(100);
  await repo.write(files);
  const head = await repo.commit("many\n\nwith a body\nof two lines");
  return { repo, base, head };
}

// One commit for both cases (both only read it; its 24 MiB file is written once).
Deno.test("commit patches: one commit, case by case", async (t) => {
  const { repo, base, head } = await fixture();
  try {
    await t.step(
      "commit patches: files over their budget are counted, not kept; the page's budget stops Git",
      async () => {
        const { patches, stopped } = await commitPatches(repo.path, {
          base,
          head,
          pathspecs: [],
          budgets: BUDGETS,
        });
        assertEquals(stopped, "page_budget");
        const [huge, long, ...small] = patches;
        assertEquals([huge.lines, huge.omitted, huge.added], [null, "file_budget", 1]);
        assertEquals([long.lines, long.omitted, long.added], [null, "file_budget", 3000]);
        const kept = small.filter((patch) => patch.lines !== null);
        assert(kept.length >= 2 && kept.length < 20, `${kept.length} small files kept`);
        for (const patch of kept) assertEquals([patch.added, patch.lines!.length], [100, 101]);
        assertEquals(small.at(-1)!.omitted, "page_budget");
        const bytes = patches.flatMap((patch) => patch.lines ?? []).reduce(
          (sum, line) => sum + line.length + 1,
          0,
        );
        assert(bytes <= BUDGETS.pageBytes, `${bytes} bytes kept`);
        // keep.txt comes last in Git's order and was never reached.
        assertEquals(patches.length, 2 + small.length);
        assert(small.length < 21, "Git was stopped before keep.txt");
      },
    );
    await t.step(
      "commit patches: the deadline cuts the reading short; the header and ancestry are Git's",
      async () => {
        const cut = await commitPatches(repo.path, {
          base,
          head,
          pathspecs: ["keep.txt"],
          budgets: { ...BUDGETS, timeoutMs: 0 },
        });
        assertEquals(cut.stopped, "deadline");
        assert(cut.patches.every((patch) => patch.lines === null), "nothing read is shown");
        const whole = await commitPatches(repo.path, {
          base,
          head,
          pathspecs: ["keep.txt"],
          budgets: BUDGETS,
        });
        assertEquals(whole.stopped, null);
        assertEquals(whole.patches.map((patch) => patch.lines), [[
          "@@ -1,2 +1,2 @@",
          " one",
          "-two",
          "+2",
        ]]);
        const header = await commitHeader(repo.path, head);
        assertEquals(header.parents, [base]);
        assertEquals(header.message, "many\n\nwith a body\nof two lines");
        assertEquals(header.authorName, "Test");
        assertEquals((await commitHeader(repo.path, base)).parents, []);
        assertEquals(await isAncestor(repo.path, { commit: base, version: head }), true);
        assertEquals(await isAncestor(repo.path, { commit: head, version: base }), false);
        assertEquals(await isAncestor(repo.path, { commit: "c".repeat(40), version: head }), false);
        const root = await commitPatches(repo.path, {
          base: await emptyTree(repo.path),
          head: base,
          pathspecs: [],
          budgets: BUDGETS,
        });
        assertEquals(root.patches.map((patch) => patch.added), [2]);
      },
    );
  } finally {
    await removeDir(dirname(repo.path));
  }
});
