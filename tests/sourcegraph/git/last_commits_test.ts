/**
 * The latest commit of each entry of a folder from one `git log` walk: the
 * same commit `git log -1 -- <entry>` names, the walk stopped as soon as
 * every entry has one, and cut at its bound of commits otherwise.
 */

import { dirname } from "node:path";
import { assertEquals } from "../../support/assert.ts";
import { createRepo, removeDir, type TestRepo } from "../../support/git_repo.ts";
import { lastCommits } from "../../../sourcegraph/git/last_commits.ts";

async function withRepo(fn: (repo: TestRepo, head: string) => Promise<void>): Promise<void> {
  const repo = await createRepo({ "d/old.txt": "o\n", "d/sub/s.txt": "s\n", "top.txt": "t\n" });
  try {
    for (let i = 0; i < 12; i++) {
      await repo.write({ "d/busy.txt": `${i}\n` });
      await repo.commit(`busy ${i}`);
    }
    await repo.write({ "d/sub/s.txt": "s2\n", "d/odd name\t.txt": "tab\n" });
    const head = await repo.commit("sub and odd");
    await fn(repo, head);
  } finally {
    await removeDir(dirname(repo.path));
  }
}

// One history for both cases (both only read it).
Deno.test("last commits: one history, case by case", (t) =>
  withRepo(async (repo, head) => {
    await t.step(
      "last commits: each entry's commit is the one git log -1 names; the walk stops once all are found",
      async () => {
        const names = ["busy.txt", "old.txt", "sub", "odd name\t.txt"];
        const walked = await lastCommits(repo.path, { commit: head, folder: "d", names });
        for (const name of names) {
          const expected = await repo.git("log", "-1", "--format=%H %s", head, "--", `d/${name}`);
          const found = walked.found.get(name)!;
          assertEquals(`${found.commit} ${found.subject}`, expected, name);
        }
        // The first commit (old.txt) is the 14th from the head: nothing older was read.
        assertEquals([walked.walked, walked.cut], [14, null]);
        const recent = await lastCommits(repo.path, { commit: head, folder: "d", names: ["sub"] });
        assertEquals([recent.walked, recent.cut], [1, null]);
        const top = await lastCommits(repo.path, {
          commit: head,
          folder: "",
          names: ["d", "top.txt"],
        });
        assertEquals(top.found.get("d")!.subject, "sub and odd");
        assertEquals(top.found.get("top.txt")!.subject, "initial");
      },
    );
    await t.step(
      "last commits: a walk past its bound of commits leaves the rest without and says so",
      async () => {
        const cut = await lastCommits(repo.path, {
          commit: head,
          folder: "d",
          names: ["old.txt", "sub", "busy.txt"],
          bounds: { commits: 3, timeoutMs: 60_000 },
        });
        assertEquals([cut.walked, cut.cut, [...cut.found.keys()].sort()], [3, "commits", [
          "busy.txt",
          "sub",
        ]]);
        const none = await lastCommits(repo.path, {
          commit: head,
          folder: "d",
          names: ["old.txt"],
          pathspecs: [],
        });
        assertEquals([none.walked, none.found.size], [0, 0]);
      },
    );
  }));
