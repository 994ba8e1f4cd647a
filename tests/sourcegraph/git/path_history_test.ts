/**
 * The Git side of history: a history past its output cap or deadline is refused with a
 * code that says how to recover, and a path is a literal pathspec after `--`.
 */

import { assertEquals, assertRejects } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { pathHistory } from "../../../sourcegraph/git/path_history.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";

Deno.test("history: past the output cap or the deadline it is HISTORY_TOO_COSTLY; paths are literal", async () => {
  const parent = await tempDir("sg-history-");
  try {
    const repo = await createRepo({ "a.txt": "one\n", ":(exclude)a.txt": "x\n" }, { parent });
    await repo.write({ "a.txt": "two\n" });
    const head = await repo.commit("second");
    const all = await pathHistory(repo.path, {
      commit: head,
      target: { kind: "commit" },
      skip: 0,
      count: 10,
    });
    assertEquals(all.map((entry) => entry.subject), ["second", "initial"]);
    // Not Git's exclude magic (which would list "second" only): the file of that name.
    const magic = await pathHistory(repo.path, {
      commit: head,
      target: { kind: "folders", paths: [":(exclude)a.txt"] },
      skip: 0,
      count: 10,
    });
    assertEquals(magic.map((entry) => entry.subject), ["initial"]);
    const error = await assertRejects(
      () =>
        pathHistory(repo.path, {
          commit: head,
          target: { kind: "lines", path: "a.txt", start: 1, end: 1 },
          skip: 0,
          count: 10,
          limits: { timeoutMs: 20_000, maxOutputBytes: 64 },
        }),
      SourcegraphError,
    );
    assertEquals(error.code, "HISTORY_TOO_COSTLY");
    // A deadline already passed when Git starts: the same code, never a hang.
    const late = await assertRejects(
      () =>
        pathHistory(repo.path, {
          commit: head,
          target: { kind: "file", path: "a.txt" },
          skip: 0,
          count: 10,
          limits: { timeoutMs: 0, maxOutputBytes: 1024 * 1024 },
        }),
      SourcegraphError,
    );
    assertEquals(late.code, "HISTORY_TOO_COSTLY");
  } finally {
    await removeDir(parent);
  }
});
