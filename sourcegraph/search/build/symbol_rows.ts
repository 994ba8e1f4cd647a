/**
 * Writing extracted symbols into the index: one row per definition of a
 * blob, its name numbered once in `symbol_names` for every blob and
 * version that defines it. An index with no names yet (its first build)
 * has none to look up: names are numbered here, as SQLite would number them,
 * and inserted 64 to a statement, not inserted and looked up a call each.
 * Each write's rows go in in key order (name, blob, line), not scattered
 * over the table's pages. The deno tree's 106,420 symbols (50,760 names)
 * written in process: 630–750 -> 450–520 ms of processor time (2-core AMD
 * EPYC VM, 24 GiB, load average about 30).
 *
 * @module
 */

import type { StatementSync } from "node:sqlite";
import type { IndexDatabase } from "../index/index_database.ts";
import { RowBatches } from "../index/row_batches.ts";
import { SYMBOL_KINDS } from "../../symbols/defined_symbol.ts";
import type { BlobSymbols } from "./symbol_extraction.ts";

const KIND_NUMBERS = new Map<string, number>(SYMBOL_KINDS.map((kind, i) => [kind, i]));

/**
 * Writes symbol rows, numbering names as it goes (call `write` inside a
 * transaction: it inserts all its rows before it returns).
 */
export class SymbolRows {
  #names = new Map<string, number>();
  #insertName: StatementSync;
  #nameId: StatementSync;
  #rows: RowBatches;
  // The next name's number when the index had no names (null: names are looked up).
  #nextName: number | null;
  #newNames: RowBatches;
  /** Rows written so far. */
  written = 0;

  /** Rows of `index`. */
  constructor(index: IndexDatabase) {
    const db = index.db;
    this.#insertName = db.prepare("INSERT OR IGNORE INTO symbol_names(name) VALUES (?)");
    this.#nameId = db.prepare("SELECT id FROM symbol_names WHERE name = ?");
    this.#rows = new RowBatches(db, {
      table: "symbols",
      columns: ["name", "blob", "start_line", "end_line", "kind", "container", "language"],
      conflict: "ignore",
    });
    const empty = db.prepare("SELECT 1 FROM symbol_names LIMIT 1").get() === undefined;
    this.#nextName = empty ? index.nextId("symbol_names") : null;
    this.#newNames = new RowBatches(db, { table: "symbol_names", columns: ["id", "name"] });
  }

  /** Writes the symbols of `blobs`. */
  write(blobs: readonly BlobSymbols[]): void {
    const rows: [number, number, number, number, number, string | null, string | null][] = [];
    for (const { blob, extraction } of blobs) {
      for (const symbol of extraction.symbols) {
        rows.push([
          this.#nameNumber(symbol.name),
          blob,
          symbol.startLine,
          symbol.endLine,
          KIND_NUMBERS.get(symbol.kind)!,
          symbol.container,
          extraction.language,
        ]);
        this.written++;
      }
    }
    // A stable sort: of two rows with one key, the one given first is still the one kept.
    rows.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
    for (const row of rows) this.#rows.add(row);
    this.#newNames.flush();
    this.#rows.flush();
  }

  // Names numbered by an earlier build may have been pruned since: looked up, never cached across builds.
  #nameNumber(name: string): number {
    if (this.#nextName !== null) return this.#newNameNumber(name);
    let id = this.#names.get(name);
    if (id === undefined) {
      const inserted = this.#insertName.run(name);
      id = inserted.changes === 1
        ? Number(inserted.lastInsertRowid)
        : (this.#nameId.get(name) as { id: number }).id;
      this.#names.set(name, id);
    }
    return id;
  }

  // A name's number in an index that had no names: a lone surrogate is stored as U+FFFD, so a
  // name is numbered by the text SQLite keeps.
  #newNameNumber(name: string): number {
    const text = name.isWellFormed() ? name : name.toWellFormed();
    let id = this.#names.get(text);
    if (id === undefined) {
      id = this.#nextName!++;
      this.#names.set(text, id);
      this.#newNames.add([id, text]);
    }
    return id;
  }
}
