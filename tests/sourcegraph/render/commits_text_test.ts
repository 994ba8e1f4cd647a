/**
 * A page of a commit search is rendered within its byte budget: rows that
 * do not fit are left to the next page, whose cursor starts right after
 * the last row shown (in its repository), and long subjects and author
 * names are cut as `history` cuts them.
 */

import { assert, assertEquals } from "../../support/assert.ts";
import { renderCommits } from "../../../sourcegraph/render/commits_text.ts";
import { decodeCommitsCursor } from "../../../sourcegraph/render/search_cursor.ts";
import type { CommitsResult } from "../../../sourcegraph/service/repository_commits.ts";

function result(repo: string, count: number): CommitsResult {
  const commits = Array.from({ length: count }, (_, i) => ({
    commit: i.toString(16).padStart(40, "0"),
    authorName: `Ä ${"n".repeat(400)}`,
    authorDate: "2026-01-01T00:00:00+00:00",
    subject: `${i} ${"é".repeat(1000)}`,
    path: null,
    hunk: null,
  }));
  return {
    repo,
    heads: [{ branch: "main", commit: "f".repeat(40) }],
    scope: null,
    from: 3,
    commits,
    positions: commits.map((_, i) => 3 + 2 * i),
    next: null,
    partial: false,
    unchecked: [],
  };
}

Deno.test("commits answer: within its byte budget, continued after the last row shown", () => {
  for (const maxBytes of [8 * 1024, 32 * 1024]) {
    const page = {
      results: [result("org/a", 100), result("org/b", 5)],
      skipped: [],
      next: null,
      partial: false,
    };
    const text = renderCommits(page, { maxBytes, key: "k" });
    assert(new TextEncoder().encode(text).length <= maxBytes, `${text.length}`);
    const rows = text.split("\n").filter((line) => /^[0-9a-f]{40} "/.test(line));
    assert(rows.length > 0 && rows.length < 100, `${rows.length}`);
    assert(rows[0].includes(`"Ä ${"n".repeat(198)}…"`), rows[0]);
    const cursor = JSON.parse(/NextCursor: ("[^"]+")/.exec(text)![1]);
    assertEquals(decodeCommitsCursor(cursor, "k"), {
      repo: "org/a",
      walk: { heads: ["f".repeat(40)], index: 3 + 2 * (rows.length - 1) + 1 },
    });
    assert(!text.includes("org/b"), "the next repository waits for the next page");
  }
});
