/**
 * A search asked to put test and generated files last (`testsLast`, what
 * `references` asks) without the commit's index: through Git, the other
 * files first in path order, then those; a cursor continues in that order.
 */

import { searchCommit } from "../../../sourcegraph/search/code_search.ts";
import { compileSearch } from "../../../sourcegraph/search/query/compiled_search.ts";
import { MirrorObjects } from "../../../sourcegraph/git/mirror_objects.ts";
import { assertEquals } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";

Deno.test("tests last: through Git, test and generated files after the others, and a cursor keeps that order", async () => {
  const parent = await tempDir("sg-tests-last-");
  try {
    const paths = ["a.ts", "src/x_test.go", "tests/b.ts", "vendor/c.ts", "web/d.ts", "z.ts"];
    const repo = await createRepo(
      Object.fromEntries(paths.map((path) => [path, "needle\n"])),
      { parent },
    );
    const commit = await repo.git("rev-parse", "HEAD");
    const objects = new MirrorObjects(repo.path);
    const order = async (request: Parameters<typeof compileSearch>[0]) =>
      (await searchCommit(objects, { search: compileSearch(request), commit })).files.map((f) =>
        f.path
      );
    assertEquals(await order({ pattern: "needle" }), paths);
    assertEquals(await order({ pattern: "needle", testsLast: true }), [
      "a.ts",
      "web/d.ts",
      "z.ts",
      "src/x_test.go",
      "tests/b.ts",
      "vendor/c.ts",
    ]);
    assertEquals(
      await order({ pattern: "needle", testsLast: true, after: { path: "z.ts", line: null } }),
      ["src/x_test.go", "tests/b.ts", "vendor/c.ts"],
    );
    assertEquals(
      await order({ pattern: "needle", testsLast: true, after: { path: "a.ts", line: 1 } }),
      ["web/d.ts", "z.ts", "src/x_test.go", "tests/b.ts", "vendor/c.ts"],
    );
    assertEquals(
      await order({ pattern: "needle", testsLast: true, after: { path: "tests/b.ts", line: 1 } }),
      ["vendor/c.ts"],
    );
  } finally {
    await removeDir(parent);
  }
});
