/**
 * A page across repositories makes rows only up to its byte budget: its
 * rows are the first of every repository's rows, it fits `max_bytes`, it
 * holds as many rows as fit, and its cursor continues after its last match,
 * in the repository the budget stopped in.
 */

import {
  decodeFanoutCursor,
  fanoutSearchPage,
} from "../../../sourcegraph/render/fanout_search_text.ts";
import type { FanoutSearchResult } from "../../../sourcegraph/service/repository_fanout.ts";
import type { SearchResult } from "../../../sourcegraph/service/repository_reads.ts";
import { assert, assertEquals } from "../../support/assert.ts";

// A repository's search that found `files` files of `lines` matching lines each.
function repositoryResult(name: string, files: number, lines: number): SearchResult {
  return {
    repo: name,
    commit: "c".repeat(40),
    scope: null,
    outcome: {
      files: Array.from({ length: files }, (_, f) => ({
        path: `src/${name.length % 2 ? "deeply/nested/folder/" : ""}file${f}.ts`,
        lines: Array.from({ length: lines }, (_, l) => ({
          number: l * 3 + 1,
          text: `export const value${l} = Deno.call(${"x".repeat((f * 7 + l) % 50)});`,
        })),
        matchCount: lines,
      })),
      fileCount: files,
      matchCount: files * lines,
      truncated: false,
      partial: false,
      index: "ready",
    },
  };
}

// Sixteen repositories searched of twenty pinned, four of them without a match.
function found(): FanoutSearchResult {
  const names = Array.from({ length: 20 }, (_, r) => `org/repo${String(r).padStart(2, "0")}`);
  return {
    pins: names.map((repo) => ({ repo, commit: "c".repeat(40) })),
    firstIndex: 0,
    results: names.slice(0, 16).map((name, r) =>
      repositoryResult(name, r % 4 === 3 ? 0 : 20 + r * 5, 1 + r % 3)
    ),
    skipped: [],
    unsearched: names.slice(16),
    partial: false,
  };
}

const bytes = (text: string): number => new TextEncoder().encode(text).length;

Deno.test("page across repositories: rows up to the budget, the page every row would give", () => {
  const all = found();
  const every = fanoutSearchPage(all, { output: "content", maxBytes: 1e9 });
  assert(bytes(every.text) > 100_000, `every row: ${bytes(every.text)} bytes`);
  for (const output of ["content", "files"] as const) {
    const whole = fanoutSearchPage(all, { output, maxBytes: 1e9 });
    for (const maxBytes of output === "files" ? [4_096, 8_192] : [4_096, 8_192, 32_768]) {
      const page = fanoutSearchPage(all, { output, maxBytes });
      const label = `${output} ${maxBytes}`;
      assert(bytes(page.text) <= maxBytes, `${label}: ${bytes(page.text)} bytes`);
      assert(page.rows.length < whole.rows.length, label);
      // The first of every row, and no row that would still fit was left out:
      // the next row alone would take the page past its budget (a cursor's
      // length moves by a few bytes between rows).
      assertEquals(page.rows, whole.rows.slice(0, page.rows.length), label);
      const next = whole.rows[page.rows.length];
      assert(bytes(page.text) + bytes(next.text) + 1 > maxBytes - 64, label);
      // The cursor continues after the last match shown, in its repository.
      const cursor = decodeFanoutCursor(page.next!);
      const last = page.rows.findLast((row) => row.place !== undefined)!;
      assertEquals({ index: cursor.index, position: cursor.position }, last.place, label);
    }
    // A budget too small for the first match says so, and shows no row.
    const tiny = fanoutSearchPage(all, { output, maxBytes: 2_000 });
    assertEquals([tiny.rows.length, tiny.next], [0, null], output);
    assert(tiny.text.includes("max_bytes is too small for the first match"), tiny.text);
    // A budget that holds every row gives them all, with no cursor into a repository.
    const roomy = fanoutSearchPage(all, { output, maxBytes: bytes(whole.text) + 1_000 });
    assertEquals(roomy.rows.length, whole.rows.length, output);
    assertEquals(decodeFanoutCursor(roomy.next!).position, null, output);
    assertEquals(decodeFanoutCursor(roomy.next!).index, 16, output);
  }
});

Deno.test("page across repositories: the budget stopping inside the last repository still cuts", () => {
  const one: FanoutSearchResult = {
    ...found(),
    results: [repositoryResult("org/repo00", 400, 2)],
    unsearched: [],
    pins: [{ repo: "org/repo00", commit: "c".repeat(40) }],
  };
  const page = fanoutSearchPage(one, { output: "content", maxBytes: 4_096 });
  assert(bytes(page.text) <= 4_096);
  assert(page.text.includes("Truncated: true"), page.text);
  const cursor = decodeFanoutCursor(page.next!);
  assertEquals(cursor.index, 0);
  assertEquals(cursor.position, page.rows.findLast((row) => row.place)!.place!.position);
});

Deno.test("page across repositories: files past the budget are never rendered", () => {
  const all = found();
  let read = 0;
  // Each file counts once when its lines are read (what rendering its rows takes).
  for (const result of all.results) {
    result.outcome.files = result.outcome.files.map((file) => {
      let counted = false;
      return {
        ...file,
        get lines() {
          if (!counted) read++;
          counted = true;
          return file.lines;
        },
      };
    });
  }
  const files = all.results.reduce((sum, result) => sum + result.outcome.files.length, 0);
  const page = fanoutSearchPage(all, { output: "content", maxBytes: 8_192 });
  assert(page.next !== null && page.rows.length > 20, page.text);
  assert(read < files / 10, `${read} of ${files} files rendered for one page of 8 KiB`);
});
