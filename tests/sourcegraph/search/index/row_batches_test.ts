/**
 * Rows inserted several to a statement arrive whole and in order, whatever
 * their count against the batch size; `ignore` skips duplicates within and
 * across batches; otherwise a duplicate fails its statement, whose earlier
 * rows the transaction's rollback undoes; a row of the wrong width is
 * refused before anything is written.
 */

import { DatabaseSync } from "node:sqlite";
import {
  RowBatches,
  ROWS_PER_STATEMENT,
} from "../../../../sourcegraph/search/index/row_batches.ts";
import { assertEquals, assertIncludes, assertThrows } from "../../../support/assert.ts";

function table(): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL, data BLOB)");
  return db;
}

Deno.test("row batches: every row once, in order, for counts around the batch size", () => {
  for (
    const count of [0, 1, ROWS_PER_STATEMENT - 1, ROWS_PER_STATEMENT, 3 * ROWS_PER_STATEMENT + 5]
  ) {
    const db = table();
    const rows = new RowBatches(db, { table: "t", columns: ["id", "name", "data"] });
    for (let i = 1; i <= count; i++) rows.add([i, `n${i}`, new Uint8Array([i & 0xff, 7])]);
    rows.flush();
    rows.flush(); // nothing waits: a second flush writes nothing
    const got = db.prepare("SELECT id, name, data FROM t ORDER BY rowid").all() as {
      id: number;
      name: string;
      data: Uint8Array;
    }[];
    assertEquals(got.length, count, `${count} rows`);
    got.forEach((row, i) => {
      assertEquals([row.id, row.name, [...row.data]], [i + 1, `n${i + 1}`, [(i + 1) & 0xff, 7]]);
    });
    db.close();
  }
});

Deno.test("row batches: rows wait for flush; a full batch is written at once", () => {
  const db = table();
  const rows = new RowBatches(db, { table: "t", columns: ["id", "name", "data"] });
  const count = () => (db.prepare("SELECT COUNT(*) AS n FROM t").get() as { n: number }).n;
  for (let i = 1; i < ROWS_PER_STATEMENT; i++) rows.add([i, "x", null]);
  assertEquals(count(), 0);
  rows.add([ROWS_PER_STATEMENT, "x", null]);
  assertEquals(count(), ROWS_PER_STATEMENT);
  rows.add([ROWS_PER_STATEMENT + 1, "x", null]);
  rows.flush();
  assertEquals(count(), ROWS_PER_STATEMENT + 1);
  db.close();
});

Deno.test("row batches: ignore skips duplicates; fail throws on them; a wrong width is refused", () => {
  const db = table();
  const ignoring = new RowBatches(db, {
    table: "t",
    columns: ["id", "name"],
    conflict: "ignore",
  });
  for (const id of [1, 2, 1, 3, 2]) ignoring.add([id, `first ${id}`]);
  ignoring.flush();
  ignoring.add([3, "again"]);
  ignoring.flush();
  assertEquals(
    db.prepare("SELECT id, name FROM t ORDER BY id").all().map((row) => [row.id, row.name]),
    [[1, "first 1"], [2, "first 2"], [3, "first 3"]],
  );
  const failing = new RowBatches(db, { table: "t", columns: ["id", "name"] });
  failing.add([3, "clash"]);
  assertIncludes(assertThrows(() => failing.flush(), Error).message, "UNIQUE constraint failed");
  // The rows before the clash stay (no statement journal undoes them) until the transaction
  // around them is rolled back.
  db.exec("BEGIN");
  for (const id of [10, 11, 2]) failing.add([id, `late ${id}`]);
  assertIncludes(assertThrows(() => failing.flush(), Error).message, "UNIQUE constraint failed");
  const ids = () => db.prepare("SELECT id FROM t ORDER BY id").all().map((row) => row.id);
  assertEquals(ids(), [1, 2, 3, 10, 11]);
  db.exec("ROLLBACK");
  assertEquals(ids(), [1, 2, 3]);
  assertEquals(
    assertThrows(() => failing.add([4]), TypeError).message,
    "a row of 2 values was given 1",
  );
  db.close();
});
