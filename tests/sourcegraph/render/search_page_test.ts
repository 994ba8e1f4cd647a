/**
 * A search page of many files makes rows only up to its byte budget, and the
 * page is the one every file's rows would have given; lines are cut at
 * 2,048 UTF-8 bytes whatever the characters (the ASCII fast path included).
 */

import { pageRows, searchPage } from "../../../sourcegraph/render/search_text.ts";
import type { SearchResult } from "../../../sourcegraph/service/repository_reads.ts";
import { assert, assertEquals } from "../../support/assert.ts";

// A search that found `files` files, each with `lines` matching lines of `text`.
function found(files: number, lines: number, text: (n: number) => string): SearchResult {
  return {
    repo: "org/repo",
    commit: "a".repeat(40),
    scope: null,
    outcome: {
      files: Array.from({ length: files }, (_, f) => ({
        path: `src/file${String(f).padStart(4, "0")}.ts`,
        lines: Array.from({ length: lines }, (_, l) => ({ number: l + 1, text: text(l) })),
        matchCount: lines + 1,
      })),
      fileCount: files,
      matchCount: files * (lines + 1),
      truncated: false,
      partial: false,
      index: "ready",
    },
  };
}

Deno.test("search page: rows are made up to the byte budget, and the page is the same", () => {
  const result = found(1000, 3, (l) => `const value${l} = call(value${l});`);
  for (const output of ["content", "files"] as const) {
    // Content rows take about 180 KB, file rows about 30 KB.
    for (const maxBytes of output === "files" ? [4096, 16_384] : [4096, 32_768, 100_000]) {
      const every = pageRows(result, output);
      const bounded = pageRows(result, output, { maxBytes });
      assert(bounded.length < every.length, `${output} ${maxBytes}: ${bounded.length} rows`);
      assertEquals(bounded, every.slice(0, bounded.length));
      const page = searchPage(result, { output, maxLinesPerFile: 10, maxBytes });
      assert(new TextEncoder().encode(page.text).length <= maxBytes, `${output} ${maxBytes}`);
      // The page's rows are the first of every file's rows, and rows were made
      // past its end: the bound never decided where the page stops.
      assertEquals(page.rows, every.slice(0, page.rows.length));
      assert(page.rows.length < bounded.length && page.next !== null, `${output} ${maxBytes}`);
    }
  }
  // A page that holds everything is not cut.
  const small = found(3, 2, (l) => `line ${l}`);
  assertEquals(pageRows(small, "content", { maxBytes: 32 * 1024 }), pageRows(small, "content"));
});

Deno.test("search page: a line is cut at 2,048 UTF-8 bytes, ASCII or not", () => {
  const row = (text: string) =>
    pageRows(found(1, 1, () => text), "content").find((r) => /^1: /.test(r.text))!.text;
  assertEquals(row("a".repeat(682)), `1: ${"a".repeat(682)}`);
  assertEquals(row("a".repeat(2048)), `1: ${"a".repeat(2048)}`);
  assertEquals(row("a".repeat(2049)), `1: ${"a".repeat(2048)} [line cut]`);
  // 683 three-byte characters are 2,049 bytes: the last one is dropped whole.
  assertEquals(row("é".repeat(1025)), `1: ${"é".repeat(1024)} [line cut]`);
  assertEquals(row("日".repeat(683)), `1: ${"日".repeat(682)} [line cut]`);
  assertEquals(row("日".repeat(682)), `1: ${"日".repeat(682)}`);
});
