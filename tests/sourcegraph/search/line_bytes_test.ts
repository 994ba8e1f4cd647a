/**
 * A search told how many bytes of lines its page can show (`lineBytes`, the
 * MCP page's `max_bytes`): once the lines kept pass them, later files'
 * lines are only counted; the counts, the files and their order, and the
 * page made from the answer are those of the search without the bound.
 */

import { searchCommit, type SearchOutcome } from "../../../sourcegraph/search/code_search.ts";
import { compileSearch } from "../../../sourcegraph/search/query/compiled_search.ts";
import { MirrorObjects } from "../../../sourcegraph/git/mirror_objects.ts";
import { SEARCH_MIN_MAX_BYTES, searchPage } from "../../../sourcegraph/render/search_text.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";

// Thirty files of four lines, three holding the needle; the second file's first line is longer
// than a page shows of a line.
function files(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (let i = 0; i < 30; i++) {
    const long = i === 1 ? "é".repeat(3000) : "";
    const lines = [1, 2, 3].map((j) => `needle ${i} ${j} ${"x".repeat(40)}${j === 1 ? long : ""}`);
    entries[`f${String(i).padStart(2, "0")}.txt`] = [...lines, "other"].join("\n") + "\n";
  }
  return entries;
}

Deno.test("line bytes: past the page's bytes lines are only counted, and the page is the same", async () => {
  const parent = await tempDir("sg-line-bytes-");
  try {
    const repo = await createRepo(files(), { parent });
    const commit = await repo.git("rev-parse", "HEAD");
    const objects = new MirrorObjects(repo.path);
    const maxBytes = SEARCH_MIN_MAX_BYTES;
    const search = async (lineBytes?: number): Promise<SearchOutcome> =>
      await searchCommit(objects, {
        search: compileSearch({ pattern: "needle", fixedStrings: true, lineBytes }),
        commit,
      });
    const whole = await search();
    const bounded = await search(maxBytes);
    await objects.close();
    assertEquals(
      [bounded.fileCount, bounded.matchCount, bounded.truncated],
      [whole.fileCount, whole.matchCount, whole.truncated],
    );
    assertEquals(
      bounded.files.map((file) => [file.path, file.matchCount]),
      whole.files.map((file) => [file.path, file.matchCount]),
    );
    const cut = bounded.files.findIndex((file) => file.lines.length === 0);
    assert(cut > 0 && cut < 30, `lines of every file kept (${cut})`);
    assertEquals(bounded.files.slice(0, cut), whole.files.slice(0, cut));
    const page = (outcome: SearchOutcome) =>
      searchPage({ repo: "r", commit, outcome, scope: null }, {
        output: "content",
        maxLinesPerFile: 10,
        maxBytes,
      });
    assertEquals(page(bounded), page(whole));
  } finally {
    await removeDir(parent);
  }
});
