/**
 * Pages of a line history join to exactly Git's own `git log -L` of the
 * range: the same commits in the same order, each once, with the same hunks,
 * on a generated history with renames, moved blocks and merges.
 */

import { assert, assertEquals } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir, type TestRepo } from "../../support/git_repo.ts";
import { prng } from "../../support/bench_stats.ts";
import type { HistoryCommit } from "../../../sourcegraph/git/path_history.ts";
import { MirrorObjects } from "../../../sourcegraph/git/mirror_objects.ts";
import { PathScope } from "../../../sourcegraph/access/path_scope.ts";
import { fileHistory } from "../../../sourcegraph/read/file_history.ts";

const SHA_LINE = /^[0-9a-f]{40}$/;

// Edits a few lines, now and then moves a block; the file's lines.
function edited(lines: string[], step: { random: () => number; serial: () => number }): string[] {
  const next = [...lines];
  for (let e = 0; e < 1 + Math.floor(step.random() * 3); e++) {
    const at = Math.floor(step.random() * next.length);
    if (step.random() < 0.7) next[at] = `line ${step.serial()}`;
    else next.splice(at, 0, `line ${step.serial()}`);
  }
  if (step.random() < 0.25) {
    const block = next.splice(Math.floor(step.random() * (next.length - 8)), 8);
    next.splice(Math.floor(step.random() * next.length), 0, ...block);
  }
  return next;
}

// 32 commits of one file renamed twice, with a side branch merged twice; the file's last path.
async function generatedHistory(repo: TestRepo): Promise<string> {
  const random = prng(7);
  let n = 0;
  const step = { random, serial: () => ++n };
  let lines = Array.from({ length: 120 }, () => `line ${step.serial()}`);
  let path = "src/a.txt";
  await repo.write({ [path]: lines.join("\n") + "\n" });
  await repo.commit("c0");
  for (let c = 1; c <= 32; c++) {
    if (c === 10 || c === 24) {
      const renamed = c === 10 ? "src/b.txt" : "lib/c.txt";
      await repo.git("mv", path, renamed);
      path = renamed;
    }
    if (c === 14 || c === 28) {
      // A side branch edits one line while the main line edits another.
      await repo.git("checkout", "-q", "-b", `side${c}`);
      const side = [...lines];
      side[5] = `side ${c}`;
      await repo.write({ [path]: side.join("\n") + "\n" });
      await repo.commit(`side ${c}`);
      await repo.git("checkout", "-q", "main");
      lines[2] = `main ${c}`;
      await repo.write({ [path]: lines.join("\n") + "\n" });
      await repo.commit(`main ${c}`);
      await repo.git("merge", "-q", "--no-ff", "-m", `merge ${c}`, `side${c}`);
      lines = (await Deno.readTextFile(`${repo.path}/${path}`)).split("\n").slice(0, -1);
      continue;
    }
    lines = edited(lines, step);
    await repo.write({ [path]: lines.join("\n") + "\n" });
    await repo.commit(`c${c}`);
  }
  return path;
}

Deno.test("line history: pages join to Git's whole `git log -L` across renames, moved blocks and merges", async () => {
  const parent = await tempDir("sg-line-pages-");
  await Deno.mkdir(`${parent}/repo/lib`, { recursive: true });
  const repo = await createRepo({}, { parent });
  const objects = new MirrorObjects(repo.path);
  try {
    const path = await generatedHistory(repo);
    const head = await repo.git("rev-parse", "HEAD");
    const scope = new PathScope({ pathGroups: [] });
    const subjects = new Set<string>();
    for (const [start, end] of [[1, 12], [40, 70], [110, 125]]) {
      const whole = await repo.git("log", "-L", `${start},${end}:${path}`, "--format=%H", head);
      const shas = whole.split("\n").filter((line) => SHA_LINE.test(line));
      assert(shas.length > 6, `range ${start}-${end} has ${shas.length} commits`);
      const paged: HistoryCommit[] = [];
      for (let skip = 0;; skip += 3) {
        const page = await fileHistory(objects, {
          commit: head,
          path,
          range: { start, end },
          scope,
          skip,
          first: 3,
        });
        paged.push(...page.commits);
        if (!page.hasMore) break;
      }
      assertEquals(paged.map((entry) => entry.commit), shas);
      // Each hunk is Git's own for that commit, and the path follows the renames.
      const hunks = whole.split(/^[0-9a-f]{40}$/m).slice(1).map((text) =>
        text.split("\n").filter((line) => /^[ +\-@\\]/.test(line) && !/^(---|\+\+\+) /.test(line))
      );
      assertEquals(paged.map((entry) => entry.hunk), hunks);
      assertEquals(paged[0].path, path);
      assert(paged.some((entry) => entry.path === "src/a.txt"), "the range's oldest path");
      paged.forEach((entry) => subjects.add(entry.subject));
    }
    // Commits of the side branches are reached through the merges, and moved lines are followed.
    assert([...subjects].some((subject) => subject.startsWith("side ")), [...subjects].join());
    assertEquals(Number(await repo.git("rev-list", "--merges", "--count", head)), 2);
  } finally {
    await objects.close();
    await removeDir(parent);
  }
});
