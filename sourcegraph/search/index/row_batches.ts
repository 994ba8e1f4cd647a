/**
 * Rows inserted several to a statement. node:sqlite spends about 2 µs on
 * each call of a statement (binding its values, stepping, resetting):
 * inserting the 215,552 posting lists of the Git source tree one row a call
 * took 600–640 ms on a 2-core AMD EPYC VM, 64 rows a call about 250 ms.
 *
 * @module
 */

import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";

/** Rows a statement inserts at most (its values stay far below SQLite's bound of 32,766). */
export const ROWS_PER_STATEMENT = 64;

/**
 * Inserts rows into one table, `ROWS_PER_STATEMENT` to a statement; rows
 * added wait until the batch is full or `flush` is called (call it before
 * the transaction ends, which a failed statement must end with a rollback).
 */
export class RowBatches {
  #db: DatabaseSync;
  #head: string;
  #width: number;
  // The values of the rows that wait, in one array of a full batch's size reused batch after
  // batch (a statement binds them before `run` returns): not grown value by value each time.
  #values: SQLInputValue[];
  #length = 0;
  #full: StatementSync | null = null;

  /**
   * Rows of `columns` for `table`; `conflict` `"ignore"` skips a row that
   * breaks a unique key instead of failing (`INSERT OR IGNORE`).
   *
   * Otherwise such a row fails its statement without undoing the statement's
   * earlier rows (`INSERT OR FAIL`): the transaction around it is what is
   * rolled back. A plain `INSERT` of several rows has SQLite keep a statement
   * journal, a copy of every page the statement changes, in a temporary
   * file: 333 MiB written for a 46 MiB tree's build.
   */
  constructor(
    db: DatabaseSync,
    options: { table: string; columns: readonly string[]; conflict?: "fail" | "ignore" },
  ) {
    this.#db = db;
    this.#width = options.columns.length;
    this.#values = new Array(this.#width * ROWS_PER_STATEMENT).fill(null);
    const verb = options.conflict === "ignore" ? "INSERT OR IGNORE" : "INSERT OR FAIL";
    this.#head = `${verb} INTO ${options.table}(${options.columns.join(", ")}) VALUES `;
  }

  /** Adds one row (its values in the order of the columns). */
  add(row: readonly SQLInputValue[]): void {
    if (row.length !== this.#width) {
      throw new TypeError(`a row of ${this.#width} values was given ${row.length}`);
    }
    const values = this.#values;
    for (let i = 0; i < row.length; i++) values[this.#length++] = row[i];
    if (this.#length === values.length) this.flush();
  }

  /** Inserts the rows that wait. */
  flush(): void {
    const rows = this.#length / this.#width;
    if (rows === 0) return;
    this.#length = 0;
    if (rows === ROWS_PER_STATEMENT) {
      (this.#full ??= this.#statement(rows)).run(...this.#values);
    } else {
      this.#statement(rows).run(...this.#values.slice(0, rows * this.#width));
    }
  }

  #statement(rows: number): StatementSync {
    const row = `(${Array(this.#width).fill("?").join(", ")})`;
    return this.#db.prepare(this.#head + Array(rows).fill(row).join(", "));
  }
}
