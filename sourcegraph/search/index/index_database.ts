/**
 * The search index of one repository: a SQLite file (node:sqlite, WAL) under
 * the data folder. Content-addressed: every blob ever indexed has a number
 * and, when searches read it, its searchable text (UTF-8, verified from
 * here rather than through Git, which costs a process round trip per blob)
 * cut into chunks of whole lines (`text_chunks.ts`). Chunks are
 * content-addressed too (by their SHA-1): a blob is its list of chunk
 * numbers with the line each starts at, so a new version of a file that
 * changed near its end stores only its last chunks. Posting lists map a
 * trigram to the numbers of the chunks containing it, in segments (one per
 * build, merged as they accumulate). Paths are numbered once for
 * every version that has them and have posting lists of their own, so a
 * search limited to some paths reads only theirs; each indexed commit is
 * its path numbers, in path order, and the blob number of each. A build
 * stages its new blobs, then writes their postings, marks them indexed and
 * adds the commit row in one transaction, so a commit is either fully
 * indexed or not indexed at all, whatever moment a build is killed at
 * (staged blobs of a build that never finished are discarded by the next
 * one). The symbols a blob defines (`symbols/`) are content-addressed the
 * same way: rows per blob, staged with it, their names numbered once. A blob
 * whose symbols a build's extraction budget left out is listed in
 * `symbols_skipped` (it has none until the index is rebuilt), and each
 * commit holding such blobs has the count of its files that do in
 * `commit_symbols_skipped`, written with the commit (an index of before
 * these tables has them created empty: it skipped nothing).
 *
 * Why SQLite rather than segment files of our own: posting lists are read
 * by key (a B-tree lookup per trigram), writes need atomic batches and crash
 * safety, and the service already depends on node:sqlite. Measured on the
 * Git source tree (see the README's search index table), a trigram lookup
 * with its decode costs microseconds, far below the cost of verifying the
 * candidates, so own files would buy nothing a query can feel.
 *
 * @module
 */

import { DatabaseSync } from "node:sqlite";
import { createFileOnce } from "../../../shared/safe_fs.ts";

// How long opening the index waits for the other process's lock.
const BUSY_TIMEOUT_MS = 10_000;

/** SQLite's page cache per connection, by default (its own default), in KiB. */
export const DEFAULT_CACHE_KIB = 2000;

// The page size index files are made with.
const PAGE_BYTES = 16384;

/** The layout version; another version is rebuilt, never read. */
export const INDEX_FORMAT = 4;

// The index tables, created after the format check.
const TABLES = `
  CREATE TABLE IF NOT EXISTS blobs(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    oid TEXT NOT NULL UNIQUE,
    searchable INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    indexed INTEGER NOT NULL,
    chunk_ids BLOB NOT NULL,
    chunk_lines BLOB NOT NULL
  );
  CREATE TABLE IF NOT EXISTS chunks(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    hash BLOB NOT NULL UNIQUE,
    text BLOB NOT NULL
  );
  CREATE TABLE IF NOT EXISTS segments(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    bytes INTEGER NOT NULL
  );
  ${postingTable("postings", "segment, trigram")}
  CREATE TABLE IF NOT EXISTS paths(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL UNIQUE
  );
  ${postingTable("path_postings", "trigram, segment")}
  CREATE TABLE IF NOT EXISTS commits(
    commit_id TEXT PRIMARY KEY,
    files INTEGER NOT NULL,
    path_ids BLOB NOT NULL,
    blob_ids BLOB NOT NULL
  );
  CREATE TABLE IF NOT EXISTS symbol_names(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE
  );
  CREATE TABLE IF NOT EXISTS symbols(
    name INTEGER NOT NULL,
    blob INTEGER NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    container TEXT,
    language TEXT NOT NULL,
    PRIMARY KEY (name, blob, start_line)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS symbols_by_blob ON symbols(blob);
  CREATE TABLE IF NOT EXISTS symbols_skipped(blob INTEGER PRIMARY KEY);
  CREATE TABLE IF NOT EXISTS commit_symbols_skipped(
    commit_id TEXT PRIMARY KEY,
    files INTEGER NOT NULL
  );
`;

// Index files opened by this process so far.
let openings = 0;

/** One repository's index file, open. */
export class IndexDatabase {
  readonly db: DatabaseSync;
  readonly path: string;
  /**
   * This opening's number in the process: an index removed and built again
   * at the same path (a repository id used again) is another opening, so
   * a scanning worker never reads the old file for it.
   */
  readonly opening: number = ++openings;

  /** Opens (creating) the index at `path`; a file of another format or a damaged one is refused. */
  constructor(path: string) {
    this.path = path;
    // A new index is made whole under a name of its own and then linked into
    // place, so no process ever opens a half-made file. Processes that made
    // one file together in place raced in SQLite's switch to WAL and one of
    // them read the file as damaged.
    if (!exists(path)) createFileOnce(path, (temp) => openIndexFile(temp).close());
    this.db = openIndexFile(path);
  }

  /** Runs `work` in one transaction (all of it or none of it is written). */
  transaction<T>(work: () => T): T {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const result = work();
      this.db.exec("COMMIT");
      return result;
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }

  /** Returns the pages merges and prunes freed to the file system, and empties the log. */
  compact(): void {
    this.db.exec("PRAGMA incremental_vacuum");
    this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }

  /** Whether `commit` is fully indexed. */
  hasCommit(commit: string): boolean {
    return this.db.prepare("SELECT 1 FROM commits WHERE commit_id = ?").get(commit) !== undefined;
  }

  /** The indexed commits. */
  commits(): string[] {
    return (this.db.prepare("SELECT commit_id FROM commits").all() as { commit_id: string }[])
      .map((row) => row.commit_id);
  }

  /** The next number of `table` (an AUTOINCREMENT table: numbers are never reused). */
  nextId(table: "blobs" | "chunks" | "paths" | "symbol_names"): number {
    const row = this.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?").get(table) as
      | { seq: number }
      | undefined;
    const highest = this.db.prepare(`SELECT MAX(id) AS id FROM ${table}`).get() as {
      id: number | null;
    };
    return Math.max(row?.seq ?? 0, highest.id ?? 0) + 1;
  }

  /** KiB of pages this connection's page cache keeps at most (SQLite's `cache_size`). */
  get cacheKib(): number {
    const { cache_size } = this.db.prepare("PRAGMA cache_size").get() as { cache_size: number };
    // Negative: KiB; positive: pages.
    return cache_size < 0 ? -cache_size : cache_size * PAGE_BYTES / 1024;
  }

  /** Sets how many KiB of pages this connection's page cache keeps (fewer free the rest). */
  set cacheKib(kib: number) {
    this.db.exec(`PRAGMA cache_size = ${-Math.max(1, Math.floor(kib))}`);
  }

  /** Bytes of the index file and its write-ahead log. */
  sizeOnDisk(): number {
    let total = 0;
    for (const suffix of ["", "-wal"]) {
      try {
        total += Deno.statSync(this.path + suffix).size;
      } catch {
        // not there
      }
    }
    return total;
  }

  /** Closes the file. */
  close(): void {
    this.db.close();
  }
}

// Opens an index file (creating its tables when the file is empty or older
// tables are missing), checking its format first.
function openIndexFile(path: string): DatabaseSync {
  // The builder writes the file while the service opens it to search: both
  // wait for the other's lock rather than failing at once with SQLITE_BUSY
  // (which read as a damaged index and stopped the build).
  const db = new DatabaseSync(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.exec(`
      PRAGMA page_size = ${PAGE_BYTES};
      PRAGMA auto_vacuum = INCREMENTAL;
      PRAGMA journal_mode = WAL;
      PRAGMA synchronous = NORMAL;
      CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `);
    // The format is checked before any table is created: a file of another
    // format is refused untouched.
    const format = db.prepare("SELECT value FROM meta WHERE key = 'format'").get() as
      | { value: string }
      | undefined;
    if (format !== undefined && format.value !== String(INDEX_FORMAT)) {
      throw new IndexUnusable(path, `has format ${format.value}, not ${INDEX_FORMAT}`);
    }
    db.exec(TABLES);
    if (format === undefined) {
      db.prepare("INSERT OR IGNORE INTO meta(key, value) VALUES ('format', ?)").run(
        String(INDEX_FORMAT),
      );
    }
    return db;
  } catch (error) {
    db.close();
    if (error instanceof IndexUnusable) throw error;
    throw new IndexUnusable(path, "cannot be read as a search index");
  }
}

// Whether a file is at `path`.
function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

// A table of posting lists: one row per trigram and segment, in `order`.
// Chunk postings are kept segment by segment: a build's new segment goes
// at the end of the table. Kept by trigram, its rows went into nearly every
// page of a 100 MiB table (a 1%-changed commit of a 322 MiB tree: 600 ms of
// inserts and commit, against about 100 ms now); a query probes each of
// the few segments instead. Path postings are small, and kept by trigram.
/** The columns of a posting table (`postings`, `path_postings`), in the order rows give them. */
export const POSTING_COLUMNS: readonly string[] = ["trigram", "segment", "count", "ids"];

function postingTable(name: string, order: "segment, trigram" | "trigram, segment"): string {
  return `CREATE TABLE IF NOT EXISTS ${name}(
    trigram INTEGER NOT NULL,
    segment INTEGER NOT NULL,
    count INTEGER NOT NULL,
    ids BLOB NOT NULL,
    PRIMARY KEY (${order})
  ) WITHOUT ROWID;`;
}

/** An index file that cannot be used (it is rebuilt from the mirror). */
export class IndexUnusable extends Error {
  override readonly name = "IndexUnusable";

  /** `path` and what is wrong with it. */
  constructor(path: string, problem: string) {
    super(`the search index ${path} ${problem}`);
  }
}
