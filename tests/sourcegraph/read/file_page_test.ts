import { join } from "node:path";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import { MirrorObjects } from "../../../sourcegraph/git/mirror_objects.ts";
import { PAGE_MAX_LINES, readFilePage } from "../../../sourcegraph/read/file_page.ts";
import { assertEquals, assertRejects } from "../../support/assert.ts";
import { addSubmodule, createRepo, removeDir, tempDir } from "../../support/git_repo.ts";

const lines = (count: number, width = 0) =>
  Array.from({ length: count }, (_, i) => `${i + 1}`.padEnd(width, "x")).join("\n") + "\n";

Deno.test("file pages: 5,000 lines a page in one read, withheld reasons as codes, kinds and link targets", async () => {
  const parent = await tempDir("sg-page-");
  try {
    const repo = await createRepo({
      "long.txt": lines(12_001),
      // 2,000 lines of 2 KiB: the page stops at 2.5 MiB, not at 5,000 lines.
      "wide.txt": lines(2_000, 2048),
      "bin.dat": new Uint8Array([1, 0, 2]),
      "huge-line.txt": "a\n" + "b".repeat(300 * 1024) + "\n",
      "lfs.txt": "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n",
    }, { parent, name: "pages" });
    await Deno.symlink("long.txt", join(repo.path, "alias.txt"));
    await Deno.symlink("../outside", join(repo.path, "escape.txt"));
    await addSubmodule(repo, { parent, path: "sub", files: { "x.txt": "x" } });
    const commit = await repo.commit("files");
    const tree = new MirrorObjects(repo.path);
    try {
      const read = (path: string, startLine = 1) => readFilePage(tree, { commit, path, startLine });
      const first = await read("long.txt");
      assertEquals(
        [first.lines.length, first.lines[0], first.lines.at(-1), first.nextStartLine],
        [PAGE_MAX_LINES, "1", "5000", 5001],
      );
      const last = await read("long.txt", 10_001);
      assertEquals([last.lines.length, last.firstLine, last.nextStartLine], [2_001, 10_001, null]);
      const wide = await read("wide.txt");
      assertEquals([wide.lines.length, wide.nextStartLine], [1_279, 1_280]);
      assertEquals((await read("bin.dat")).withheld, "BINARY_FILE");
      // The first page shows nothing of a file with an oversized line at its start…
      assertEquals((await read("huge-line.txt", 2)).withheld, "FILE_LINE_TOO_LARGE");
      // …and stops before one further down.
      const before = await read("huge-line.txt");
      assertEquals([before.lines, before.nextStartLine, before.withheld], [["a"], 2, null]);
      assertEquals((await read("lfs.txt")).isLfsPointer, true);
      const alias = await read("alias.txt", 3);
      assertEquals([alias.target, alias.lines[0]], ["long.txt", "3"]);
      const escape = await read("escape.txt");
      assertEquals([escape.kind, escape.lines, escape.followError !== null], ["symlink", [], true]);
      assertEquals((await read("sub")).kind, "submodule");
      for (
        const [path, start, code] of [
          ["long.txt", 20_000, "LINE_RANGE_NOT_SATISFIABLE"],
          ["missing.txt", 1, "FILE_NOT_FOUND"],
        ] as const
      ) {
        const error = await assertRejects(() => read(path, start), SourcegraphError);
        assertEquals(error.code, code);
      }
    } finally {
      await tree.close();
    }
  } finally {
    await removeDir(parent);
  }
});
