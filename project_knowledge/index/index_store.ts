/**
 * The SQLite index file: schema, metadata and integrity checks. Format 2 adds
 * the pending set and cursor of resumable refresh to format 1; format 3 (what
 * this release writes) gives each chunk two more term columns, the names it
 * defines and its file's path, which BM25 weighs above body text (the weights
 * are the table's own `rank` setting, so every query uses them). Older formats
 * stay searchable as they are; their first refresh rebuilds them as format 3.
 * Any SQLite failure or inconsistency while opening becomes a known
 * `rebuild_required` error, never a wrong answer.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { KnowledgeError } from "../errors.ts";

/** The format this release writes. */
export const CURRENT_FORMAT = 3;

/** A known index format. */
export type IndexFormat = 1 | 2 | 3;

/**
 * BM25 column weights of format 3: body terms, defined names, path terms.
 * Chosen with the relevance benchmark (see the README).
 */
export const COLUMN_WEIGHTS = [1, 6, 2] as const;

/** Coverage of one indexing run, as stored and returned by status. */
export interface Coverage {
  revision: string | null;
  indexed_at_unix: number;
  eligible_files: number;
  indexed_files: number;
  indexed_bytes: number;
  chunks: number;
  excluded_entries: number;
  skipped_files: number;
  oversized_lines_omitted: number;
  unprocessed_files: number;
  stop_reason: StopReason;
  /** Format 2 only from here on. */
  mode?: "rebuild" | "refresh";
  reused_files?: number;
  updated_files?: number;
  deleted_files?: number;
  remaining_files?: number;
}

/** Why an indexing run stopped. */
export type StopReason = "complete" | "time_budget" | "file_limit" | "corpus_limit";

const STOP_REASONS = new Set(["complete", "time_budget", "file_limit", "corpus_limit"]);
const COVERAGE_V1_FIELDS = [
  "indexed_at_unix",
  "eligible_files",
  "indexed_files",
  "indexed_bytes",
  "chunks",
  "excluded_entries",
  "skipped_files",
  "oversized_lines_omitted",
  "unprocessed_files",
] as const;
const COVERAGE_V2_FIELDS = [
  "reused_files",
  "updated_files",
  "deleted_files",
  "remaining_files",
] as const;

/** The tokenizer: analysis already produced lower-case single-token terms. */
const FTS_TOKENIZER = "unicode61 remove_diacritics 0";

/** Creates the tables of `format` in an empty database. */
export function createSchema(db: DatabaseSync, format: IndexFormat): void {
  const columns = format === 3 ? "terms, names, path" : "terms";
  db.exec(`
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE sources(
      id INTEGER PRIMARY KEY,
      path TEXT NOT NULL UNIQUE,
      source_hash TEXT NOT NULL,
      bytes INTEGER NOT NULL,
      lines INTEGER NOT NULL
    );
    CREATE TABLE chunks(
      id INTEGER PRIMARY KEY,
      source_id INTEGER NOT NULL,
      start_line INTEGER NOT NULL,
      end_line INTEGER NOT NULL
    );
    CREATE INDEX chunks_by_source ON chunks(source_id);
    CREATE VIRTUAL TABLE chunk_terms USING fts5(
      ${columns}, content='', contentless_delete=1, tokenize='${FTS_TOKENIZER}'
    );
  `);
  if (format >= 2) db.exec("CREATE TABLE pending(path TEXT PRIMARY KEY) WITHOUT ROWID;");
  if (format === 3) {
    db.prepare("INSERT INTO chunk_terms(chunk_terms, rank) VALUES ('rank', ?)").run(
      `bm25(${COLUMN_WEIGHTS.join(", ")})`,
    );
  }
}

/** Writes one metadata value. */
export function setMeta(db: DatabaseSync, entry: { key: string; value: string }): void {
  db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)").run(entry.key, entry.value);
}

/** Reads one metadata value, or null. */
export function getMeta(db: DatabaseSync, key: string): string | null {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as
    | { value: string }
    | undefined;
  return row?.value ?? null;
}

/** An opened, validated index. */
export interface OpenIndex {
  db: DatabaseSync;
  format: IndexFormat;
  coverage: Coverage;
}

/**
 * Opens an index file and validates its metadata. `readOnly` for search and
 * status; refresh opens its private copy writable.
 */
export function openIndex(
  path: string,
  options: { readOnly: boolean; rootHash: string },
): OpenIndex {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: options.readOnly, enableForeignKeyConstraints: false });
  } catch {
    throw rebuildRequired("the index cannot be opened");
  }
  try {
    const format = Number(getMeta(db, "format"));
    if (format !== 1 && format !== 2 && format !== 3) {
      throw rebuildRequired("the index format is unknown");
    }
    if (getMeta(db, "root_hash") !== options.rootHash) {
      throw rebuildRequired("the index belongs to another root");
    }
    if (format >= 2 && !tableExists(db, "pending")) {
      throw rebuildRequired("the index bookkeeping is missing");
    }
    const coverage = parseCoverage(getMeta(db, "coverage"), format);
    return { db, format, coverage };
  } catch (error) {
    db.close();
    if (error instanceof KnowledgeError) throw error;
    throw rebuildRequired("the index metadata is unreadable");
  }
}

function tableExists(db: DatabaseSync, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !==
    undefined;
}

/** Parses stored coverage, refusing anything malformed. */
export function parseCoverage(raw: string | null, format: IndexFormat): Coverage {
  let value: unknown;
  try {
    value = raw === null ? null : JSON.parse(raw);
  } catch {
    throw rebuildRequired("the index metadata is malformed");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw rebuildRequired("the index metadata is malformed");
  }
  const record = value as Record<string, unknown>;
  const counts = format >= 2 ? [...COVERAGE_V1_FIELDS, ...COVERAGE_V2_FIELDS] : COVERAGE_V1_FIELDS;
  for (const field of counts) {
    const n = record[field];
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
      throw rebuildRequired("the index metadata is malformed");
    }
  }
  const revision = record.revision;
  if (revision !== null && (typeof revision !== "string" || !/^[0-9a-f]{40,64}$/.test(revision))) {
    throw rebuildRequired("the index metadata is malformed");
  }
  if (typeof record.stop_reason !== "string" || !STOP_REASONS.has(record.stop_reason)) {
    throw rebuildRequired("the index metadata is malformed");
  }
  if (format >= 2 && record.mode !== "rebuild" && record.mode !== "refresh") {
    throw rebuildRequired("the index metadata is malformed");
  }
  return record as unknown as Coverage;
}

/**
 * Checks bookkeeping consistency: every chunk belongs to a source and has
 * possible line coordinates, and the FTS table has exactly one row per chunk.
 */
export function checkIntegrity(db: DatabaseSync): void {
  try {
    const bad = db.prepare(`
      SELECT count(*) AS n FROM chunks c LEFT JOIN sources s ON s.id = c.source_id
      WHERE s.id IS NULL OR c.start_line < 1 OR c.end_line < c.start_line OR c.end_line > s.lines
    `).get() as { n: number };
    if (bad.n !== 0) throw rebuildRequired("the index has invalid line coordinates");
    const chunks = (db.prepare("SELECT count(*) AS n FROM chunks").get() as { n: number }).n;
    const rows = (db.prepare("SELECT count(*) AS n FROM chunk_terms").get() as { n: number }).n;
    if (chunks !== rows) throw rebuildRequired("the index chunks and terms disagree");
    const hashes = db.prepare(
      "SELECT count(*) AS n FROM sources WHERE length(source_hash) != 64 OR lines < 0 OR bytes < 0",
    ).get() as { n: number };
    if (hashes.n !== 0) throw rebuildRequired("the index sources are malformed");
  } catch (error) {
    if (error instanceof KnowledgeError) throw error;
    throw rebuildRequired("the index failed its integrity check");
  }
}

/** The known error for a cache that must be rebuilt. */
export function rebuildRequired(detail: string): KnowledgeError {
  return new KnowledgeError(
    "rebuild_required",
    `${detail}; run index with mode "rebuild"`,
  );
}
