/**
 * The Git side of blame: the ignore-revs file read as Git reads one, full
 * SHAs only; porcelain parsed into lines and commits; and a blame past its
 * output cap refused with a code that says how to recover.
 */

import { assertEquals, assertRejects } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { blameLines, ignoredRevisions } from "../../../sourcegraph/git/file_blame.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";

Deno.test("blame: an ignore-revs file keeps full SHAs only, as Git reads one", () => {
  const sha = "a".repeat(40);
  assertEquals(
    ignoredRevisions(`# c\n${sha} # x\n ${sha.toUpperCase()} \n-x\n${sha}0\nabc\n\n`),
    { revisions: [sha], skipped: 3 },
  );
  assertEquals(ignoredRevisions(""), { revisions: [], skipped: 0 });
});

Deno.test("blame: porcelain becomes lines and commits; past the output cap it is BLAME_TOO_COSTLY", async () => {
  const parent = await tempDir("sg-blame-");
  try {
    const repo = await createRepo({ "a.txt": "one\nline two\n" }, { parent });
    await repo.write({ "a.txt": "one\nline  two\n" });
    const head = await repo.commit("second");
    const first = await repo.git("rev-parse", "HEAD~1");
    const blamed = await blameLines(repo.path, {
      commit: head,
      path: "a.txt",
      start: 1,
      end: 2,
      ignoreRevs: [],
    });
    assertEquals(blamed.lines, [
      { line: 1, commit: first, originalPath: "a.txt", originalLine: 1 },
      { line: 2, commit: head, originalPath: "a.txt", originalLine: 2 },
    ]);
    assertEquals(blamed.commits[head], {
      authorName: "Test",
      authorTime: 1767225600,
      authorTz: "+0000",
      subject: "second",
    });
    // Ignoring the second commit hands its line to the first.
    const ignoring = await blameLines(repo.path, {
      commit: head,
      path: "a.txt",
      start: 2,
      end: 2,
      ignoreRevs: [head],
    });
    assertEquals(ignoring.lines.map((line) => line.commit), [first]);
    const error = await assertRejects(
      () =>
        blameLines(repo.path, {
          commit: head,
          path: "a.txt",
          start: 1,
          end: 2,
          ignoreRevs: [],
          limits: { timeoutMs: 30_000, maxOutputBytes: 64 },
        }),
      SourcegraphError,
    );
    assertEquals([error.code, error.hint], [
      "BLAME_TOO_COSTLY",
      "Blame fewer lines (start_line, end_line).",
    ]);
  } finally {
    await removeDir(parent);
  }
});
