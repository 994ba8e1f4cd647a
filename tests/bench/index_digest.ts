/**
 * A digest of every table of a built index, to tell whether a change to
 * the builder leaves its output the same: the rows of each table in key
 * order, symbols by their name's text (names are numbered in the order
 * extractions come back, so their numbers differ between any two builds
 * with workers). Two builds of one commit by builders that agree have the
 * same digest.
 *
 * Run: deno run --allow-read --allow-write tests/bench/index_digest.ts INDEX_FILE
 *
 * @module
 */

import { createHash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";

// Each table's rows in an order that does not depend on insertion order (symbol names aside).
const TABLES: readonly { name: string; sql: string }[] = [
  { name: "blobs", sql: "SELECT * FROM blobs ORDER BY id" },
  { name: "chunks", sql: "SELECT * FROM chunks ORDER BY id" },
  { name: "segments", sql: "SELECT * FROM segments ORDER BY id" },
  { name: "postings", sql: "SELECT * FROM postings ORDER BY segment, trigram" },
  { name: "paths", sql: "SELECT * FROM paths ORDER BY id" },
  { name: "path_postings", sql: "SELECT * FROM path_postings ORDER BY trigram, segment" },
  { name: "commits", sql: "SELECT * FROM commits ORDER BY commit_id" },
  { name: "symbol_names", sql: "SELECT name FROM symbol_names ORDER BY name" },
  {
    name: "symbols",
    sql: "SELECT n.name, s.blob, s.start_line, s.end_line, s.kind, s.container, s.language " +
      "FROM symbols s JOIN symbol_names n ON n.id = s.name ORDER BY n.name, s.blob, s.start_line",
  },
  { name: "symbols_skipped", sql: "SELECT * FROM symbols_skipped ORDER BY blob" },
  {
    name: "commit_symbols_skipped",
    sql: "SELECT * FROM commit_symbols_skipped ORDER BY commit_id",
  },
];

/** One table's digest and row count. */
export interface TableDigest {
  table: string;
  rows: number;
  /** SHA-256 of its rows, hex, first 16 digits. */
  digest: string;
}

/** The digest of each table of the index at `path` (opened read-only). */
export function indexDigest(path: string): TableDigest[] {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return TABLES.map(({ name, sql }) => {
      const hash = createHash("sha256");
      let rows = 0;
      for (const row of db.prepare(sql).iterate()) {
        for (const value of Object.values(row as Record<string, unknown>)) {
          hash.update(value instanceof Uint8Array ? value : `${value}`);
          hash.update("\0");
        }
        hash.update("\n");
        rows++;
      }
      return { table: name, rows, digest: hash.digest("hex").slice(0, 16) };
    });
  } finally {
    db.close();
  }
}

/** The digests as one line per table and a last line that sums them up. */
export function formatDigest(digests: readonly TableDigest[]): string {
  const all = createHash("sha256").update(digests.map((d) => d.digest).join()).digest("hex");
  return [
    ...digests.map((d) => `${d.table} ${d.rows} rows ${d.digest}`),
    `index ${all.slice(0, 16)}`,
  ].join("\n");
}

if (import.meta.main) {
  const [path] = Deno.args;
  if (path === undefined) {
    console.error("usage: index_digest.ts INDEX_FILE");
    Deno.exit(2);
  }
  console.log(formatDigest(indexDigest(path)));
}
