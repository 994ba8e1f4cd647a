/**
 * Writing extracted symbols into the index: one row per definition of a
 * blob, its name numbered once in `symbol_names` for every blob and
 * version that defines it.
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
  }

  /** Writes the symbols of `blobs`. */
  write(blobs: readonly BlobSymbols[]): void {
    for (const { blob, extraction } of blobs) {
      for (const symbol of extraction.symbols) {
        this.#rows.add([
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
    this.#rows.flush();
  }

  // Names numbered by an earlier build may have been pruned since: looked up, never cached across builds.
  #nameNumber(name: string): number {
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
}
