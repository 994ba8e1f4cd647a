/**
 * Symbol rows and their numbered names: more names than one batch of rows,
 * across writes of one build and beside names an earlier build numbered, and
 * a name SQLite cannot give back as it was given (a lone surrogate, stored as
 * U+FFFD) gets the number SQLite holds for its text; in an index with no
 * names, names are numbered as SQLite's inserts would number them.
 */

import { join } from "node:path";
import type { BlobSymbols } from "../../../../sourcegraph/search/build/symbol_extraction.ts";
import { SymbolRows } from "../../../../sourcegraph/search/build/symbol_rows.ts";
import { IndexDatabase } from "../../../../sourcegraph/search/index/index_database.ts";
import { ROWS_PER_STATEMENT } from "../../../../sourcegraph/search/index/row_batches.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { removeDir, tempDir } from "../../../support/git_repo.ts";

function blobSymbols(blob: number, names: readonly string[]): BlobSymbols {
  return {
    blob,
    extraction: {
      language: "c",
      outcome: "parsed",
      symbols: names.map((name, i) => ({
        name,
        kind: "function",
        startLine: i + 1,
        endLine: i + 1,
        container: null,
      })),
    },
  };
}

async function withIndex(fn: (index: IndexDatabase) => void): Promise<void> {
  const dir = await tempDir("sg-symbol-rows-");
  const index = new IndexDatabase(join(dir, "index.sqlite3"));
  try {
    fn(index);
  } finally {
    index.close();
    await removeDir(dir);
  }
}

function write(index: IndexDatabase, rows: SymbolRows, blobs: BlobSymbols[]): void {
  index.db.exec("BEGIN");
  rows.write(blobs);
  index.db.exec("COMMIT");
}

// Each blob's symbols as (line, name) read back through the name numbers.
function stored(index: IndexDatabase): Map<number, string[]> {
  const rows = index.db.prepare(
    `SELECT s.blob AS blob, s.start_line AS line, n.name AS name
       FROM symbols s JOIN symbol_names n ON n.id = s.name ORDER BY s.blob, s.start_line`,
  ).all() as { blob: number; line: number; name: string }[];
  const byBlob = new Map<number, string[]>();
  for (const row of rows) byBlob.set(row.blob, [...byBlob.get(row.blob) ?? [], row.name]);
  return byBlob;
}

Deno.test("symbol rows: names numbered once, across writes and beside earlier builds' names", () =>
  withIndex((index) => {
    // Names an earlier build numbered, with numbers of their own.
    index.db.prepare("INSERT INTO symbol_names(id, name) VALUES (500, 'old_a'), (900, 'old_b')")
      .run();
    const many = Array.from({ length: 3 * ROWS_PER_STATEMENT + 5 }, (_, i) => `name_${i}`);
    const first = [
      blobSymbols(1, [...many.slice(0, 150), "old_a", "name_0"]),
      blobSymbols(2, ["old_b", ...many.slice(100)]),
    ];
    const second = [blobSymbols(3, ["name_7", "old_a", "late"]), blobSymbols(4, [])];
    const rows = new SymbolRows(index);
    write(index, rows, first);
    write(index, rows, second);
    assertEquals(rows.written, 152 + 1 + (many.length - 100) + 3);
    const byBlob = stored(index);
    assertEquals(byBlob.get(1), [...many.slice(0, 150), "old_a", "name_0"]);
    assertEquals(byBlob.get(2), ["old_b", ...many.slice(100)]);
    assertEquals(byBlob.get(3), ["name_7", "old_a", "late"]);
    assertEquals(byBlob.has(4), false);
    const names = index.db.prepare("SELECT id, name FROM symbol_names").all() as {
      id: number;
      name: string;
    }[];
    assertEquals(names.length, many.length + 3);
    const ids = new Map(names.map((row) => [row.name, row.id]));
    assertEquals([ids.get("old_a"), ids.get("old_b")], [500, 900]);
  }));

Deno.test("symbol rows: a lone surrogate's name gets the number SQLite keeps for its text", () =>
  withIndex((index) => {
    const rows = new SymbolRows(index);
    write(index, rows, [blobSymbols(1, ["\uFFFDx", "plain"]), blobSymbols(2, ["\uD800x"])]);
    write(index, rows, [blobSymbols(3, ["\uDC00y", "\uFFFDy"])]);
    const byBlob = stored(index);
    assertEquals(byBlob.get(1), ["\uFFFDx", "plain"]);
    assertEquals(byBlob.get(2), ["\uFFFDx"]);
    assertEquals(byBlob.get(3), ["\uFFFDy", "\uFFFDy"]);
    const count = index.db.prepare("SELECT count(*) AS n FROM symbol_names").get() as { n: number };
    assertEquals(count.n, 3);
  }));

Deno.test("symbol rows: an index with no names numbers them as its inserts would", () =>
  withIndex((index) => {
    // Names an earlier build numbered and a prune dropped: their numbers are not given again.
    index.db.exec("INSERT INTO symbol_names(id, name) VALUES (41, 'gone')");
    index.db.exec("DELETE FROM symbol_names");
    const many = Array.from({ length: 2 * ROWS_PER_STATEMENT + 3 }, (_, i) => `name_${i}`);
    const rows = new SymbolRows(index);
    write(index, rows, [blobSymbols(1, ["b", "a", "b"]), blobSymbols(2, many)]);
    write(index, rows, [blobSymbols(3, ["c", "a", "\uD800x", "\uFFFDx"])]);
    const ids = new Map(
      (index.db.prepare("SELECT id, name FROM symbol_names").all() as {
        id: number;
        name: string;
      }[])
        .map((row) => [row.name, row.id]),
    );
    assertEquals([ids.get("b"), ids.get("a"), ids.get(many[0]), ids.get(many.at(-1)!)], [
      42,
      43,
      44,
      43 + many.length,
    ]);
    assertEquals([ids.get("c"), ids.get("\uFFFDx"), ids.size], [
      44 + many.length,
      45 + many.length,
      4 + many.length,
    ]);
    assertEquals(stored(index).get(3), ["c", "a", "\uFFFDx", "\uFFFDx"]);
    // AUTOINCREMENT's counter is where SQLite's inserts would have left it: a later build
    // (looking names up) numbers its new ones after these.
    const sequence = index.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'symbol_names'")
      .get() as { seq: number };
    assertEquals(sequence.seq, 45 + many.length);
    const later = new SymbolRows(index);
    write(index, later, [blobSymbols(4, ["a", "d"])]);
    assertEquals(stored(index).get(4), ["a", "d"]);
    const d = index.db.prepare("SELECT id FROM symbol_names WHERE name = 'd'").get() as {
      id: number;
    };
    assert(d.id > 45 + many.length, `d numbered ${d.id}`);
  }));
