/**
 * Building the index of one commit: list its regular files, index only the
 * blobs the repository's index does not have yet (streamed through Git
 * processes of its own, so reads of the service are never queued behind
 * them), stage their texts in chunks, in batches of about
 * `BATCH_TEXT_BYTES`, then publish their postings (one segment), the paths
 * not numbered yet with their postings, and the commit's path → blob
 * mapping in one transaction, then merge small segments. Blobs searches
 * skip (binary, not UTF-8, over the read scan limit) are recorded as such
 * and get no postings, exactly as searches skip them.
 *
 * @module
 */

import { runGit } from "../../../shared/git.ts";
import { streamBlobs } from "../../../shared/git_objects.ts";
import { isRegularFile, parseTreeListing } from "../../../shared/tree_listing.ts";
import { READ_SCAN_LIMIT } from "../../git/mirror_objects.ts";
import { searchableText } from "../searchable_text.ts";
import { type IndexDatabase, POSTING_COLUMNS } from "../index/index_database.ts";
import { createHash } from "node:crypto";
import type { StatementSync } from "node:sqlite";
import { encodeCommitFiles } from "../index/commit_files.ts";
import { packNumbers } from "../index/packed_numbers.ts";
import { mergePathSegments, mergeSegments } from "./segment_merge.ts";
import { PostingTable, PostingWriter } from "../index/postings.ts";
import { RowBatches } from "../index/row_batches.ts";
import { textChunks } from "../index/text_chunks.ts";
import type { TrigramCollector } from "../index/trigrams.ts";
import { type BlobSymbols, SymbolExtraction } from "./symbol_extraction.ts";
import { SymbolRows } from "./symbol_rows.ts";

/** Text indexed per batch (one segment, one transaction). */
export const BATCH_TEXT_BYTES = 8 * 1024 * 1024;

/** What one build did. */
export interface BuildStats {
  commit: string;
  files: number;
  /** Blobs indexed by this build (the others were indexed before). */
  newBlobs: number;
  /** Bytes of the new blobs. */
  newBytes: number;
  /** Symbols the new blobs define. */
  newSymbols: number;
  /**
   * Files of the commit whose symbols are not in the index (the extraction
   * budget of this build or of an earlier one with the same blob ran out).
   */
  symbolsSkipped: number;
  ms: number;
}

/** How far a build is: the new blobs read so far, of how many, and their bytes. */
export interface BuildProgress {
  blobsRead: number;
  /** Blobs this build indexes (those the index does not have yet). */
  newBlobs: number;
  bytesRead: number;
}

/** What to index, and how. */
export interface BuildRequest {
  mirror: string;
  commit: string;
  collector: TrigramCollector;
  /** Where the build gathers its posting lists (reused across builds when given). */
  postings?: PostingTable;
  /** Checked between blobs: a build stops (writing nothing more) once it returns true. */
  cancelled?: () => boolean;
  batchTextBytes?: number;
  /** The chunk size, in code units (tests and measurements). */
  chunkUnits?: number;
  /**
   * Hears of each batch and segment written, and of the publish, with the
   * build's progress (the builder reports it; tests stop a build at a chosen
   * point).
   */
  onBatch?: (progress: BuildProgress) => void;
  /** Finds the new blobs' symbols (none are stored without it). */
  symbols?: SymbolExtraction;
  /**
   * Bytes of posting lists held in memory before they are written as a
   * segment of their own (default `MAX_HELD_POSTING_BYTES`): what bounds a
   * large repository's build.
   */
  maxHeldPostingBytes?: number;
}

/** MiB of posting lists a build holds by default (`SOURCEGRAPH_INDEX_BUILD_POSTINGS_MIB`). */
export const DEFAULT_HELD_POSTINGS_MIB = 96;
/** Posting bytes a build holds before writing them (each posting takes 1–2 bytes). */
export const MAX_HELD_POSTING_BYTES = DEFAULT_HELD_POSTINGS_MIB * 1024 * 1024;

/** Indexes `commit` of `mirror` into `index` unless it is indexed already. */
export async function buildCommitIndex(
  index: IndexDatabase,
  request: BuildRequest,
): Promise<BuildStats | null> {
  const { mirror, commit, collector } = request;
  const started = performance.now();
  if (index.hasCommit(commit)) return null;
  request.symbols?.startCommit();
  const files = await commitFiles(mirror, commit);
  discardStaged(index);
  const { known, fresh } = knownBlobs(index, files);
  const batch = new Batch(index, {
    limit: request.batchTextBytes ?? BATCH_TEXT_BYTES,
    collector,
    postings: request.postings ?? new PostingTable(),
    chunkUnits: request.chunkUnits,
    symbols: request.symbols,
    maxHeldPostingBytes: request.maxHeldPostingBytes ?? MAX_HELD_POSTING_BYTES,
  });
  const stats = await indexAndPublish(batch, { request, files, known, fresh });
  if (stats === null) return null;
  mergeSegments(index);
  mergePathSegments(index);
  index.compact();
  return {
    commit,
    files: files.length,
    newBlobs: fresh.size,
    ...stats,
    ms: Math.round(performance.now() - started),
  };
}

// Indexes the fresh blobs and publishes the commit; null when the build was cancelled.
async function indexAndPublish(
  batch: Batch,
  build: {
    request: BuildRequest;
    files: readonly { oid: string; path: string }[];
    known: Map<string, number>;
    fresh: Set<string>;
  },
): Promise<{ newBytes: number; newSymbols: number; symbolsSkipped: number } | null> {
  const { request, files, known } = build;
  let published = false;
  try {
    const newBlobs = build.fresh.size;
    const pathOf = new Map(files.map((file) => [file.oid, file.path]));
    // A worker starts while the blobs are read when any of them is to be extracted.
    if ([...build.fresh].some((oid) => SymbolExtraction.wants(pathOf.get(oid)!))) {
      request.symbols?.warm();
    }
    const newBytes = await indexBlobs(batch, {
      mirror: request.mirror,
      fresh: build.fresh,
      known,
      pathOf,
      cancelled: request.cancelled,
      onBatch: request.onBatch,
      symbols: request.symbols,
    });
    if (newBytes === null || request.cancelled?.()) return null;
    // While workers may still extract, the builder's thread writes what it holds (the last
    // rows, the postings as a staged segment) beside them, not alone after them.
    if (request.symbols?.sentToWorkers) batch.writeAllHeld();
    batch.stage(await request.symbols?.finish());
    const mapping = files.map((file) => ({ path: file.path, blob: known.get(file.oid)! }));
    const symbolsSkipped = batch.publish(mapping, {
      commit: request.commit,
      symbolsSkipped: request.symbols?.skipped ?? [],
    });
    published = true;
    request.onBatch?.({ blobsRead: newBlobs, newBlobs, bytesRead: newBytes });
    return { newBytes, newSymbols: batch.symbolCount, symbolsSkipped };
  } finally {
    // Extractions still in flight belong to blobs this build never published.
    if (!published) await request.symbols?.finish().catch(() => []);
  }
}

// Reads the fresh blobs into batches, staging each full one; their bytes,
// or null when the build was cancelled.
async function indexBlobs(
  batch: Batch,
  at: {
    mirror: string;
    fresh: Set<string>;
    known: Map<string, number>;
    /** A path of each blob (its language decides how symbols are found). */
    pathOf: Map<string, string>;
    cancelled?: () => boolean;
    onBatch?: (progress: BuildProgress) => void;
    symbols?: SymbolExtraction;
  },
): Promise<number | null> {
  let newBytes = 0;
  let blobsRead = 0;
  const progress = () => ({ blobsRead, newBlobs: at.fresh.size, bytesRead: newBytes });
  const reads = streamBlobs(at.mirror, { oids: [...at.fresh], maxBytes: READ_SCAN_LIMIT });
  try {
    for await (const read of reads) {
      if (at.cancelled?.()) return null;
      const text = read.status === "ok" ? searchableText(read.bytes) : null;
      const size = read.status === "ok" || read.status === "too_large" ? read.size : 0;
      newBytes += size;
      blobsRead++;
      const bytes = read.status === "ok" ? read.bytes : undefined;
      const blob = batch.add(read.oid, { text, size, bytes });
      at.known.set(read.oid, blob);
      const path = at.pathOf.get(read.oid)!;
      if (text !== null && at.symbols && SymbolExtraction.wants(path)) {
        await at.symbols.submit(blob, path, text);
      }
      if (batch.full) {
        batch.stage();
        at.onBatch?.(progress());
      }
      if (batch.heldPostingsFull) {
        batch.writeHeldPostings();
        at.onBatch?.(progress());
      }
    }
  } finally {
    await reads.return(undefined);
  }
  return newBytes;
}

// The commit's regular files, sorted by path.
async function commitFiles(
  mirror: string,
  commit: string,
): Promise<{ oid: string; path: string }[]> {
  const listing = await runGit(["ls-tree", "-r", "-z", "--full-tree", commit], {
    cwd: mirror,
    maxStdoutBytes: 256 * 1024 * 1024,
    timeoutMs: 60_000,
  });
  return parseTreeListing(listing.stdout).filter(isRegularFile)
    .map(({ oid, path }) => ({ oid, path }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

// The blob rows the index already has (by oid) and the blobs it has not.
function knownBlobs(
  index: IndexDatabase,
  files: readonly { oid: string }[],
): { known: Map<string, number>; fresh: Set<string> } {
  const numbers = allNumbers(index, "SELECT oid, id FROM blobs");
  const known = new Map<string, number>();
  const fresh = new Set<string>();
  for (const { oid } of files) {
    const id = numbers.get(oid);
    if (id !== undefined) known.set(oid, id);
    else fresh.add(oid);
  }
  return { known, fresh };
}

// Every row of a `(key, number)` query, by key. One scan of a covering index
// with rows as arrays: a point lookup per file cost about 13 µs in node:sqlite
// (430 ms for the 33,000 files of a 322 MiB tree, for blobs and again for
// paths); the scan reads 32,000 rows in about 11 ms.
function allNumbers(index: IndexDatabase, query: string): Map<string, number> {
  // Deno's node:sqlite has `setReturnArrays`; the Node types it ships do not name it yet.
  const statement = index.db.prepare(query) as StatementSync & {
    setReturnArrays(enabled: boolean): void;
  };
  statement.setReturnArrays(true);
  return new Map(statement.all() as unknown as [string, number][]);
}

// The `meta` key listing the segments a build wrote before publishing.
const STAGED_SEGMENTS = "staged_segments";
// The `meta` key holding the first blob and chunk numbers the next build
// gives (`[blob, chunk]`): every row a build stages is numbered from there.
const STAGED_FROM = "staged_from";

// A `meta` value as JSON, or undefined.
function metaValue<T>(index: IndexDatabase, key: string): T | undefined {
  const row = index.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as
    | { value: string }
    | undefined;
  return row === undefined ? undefined : JSON.parse(row.value);
}

// Blobs of a build that never published (it was stopped or killed), and the
// posting segments it wrote for them: they are read again by the next build.
// (Until then such postings are harmless: they name chunks no indexed commit
// has, and searches look only at the chunks of their commit's files.)
// Staged rows are found by their numbers (`STAGED_FROM`): a scan of the
// chunks table for a flag read all of a 565 MiB index's texts, twice a
// build. An index without the key has published nothing: all its rows go.
function discardStaged(index: IndexDatabase): void {
  index.transaction(() => {
    const db = index.db;
    for (const segment of metaValue<number[]>(index, STAGED_SEGMENTS) ?? []) {
      db.prepare("DELETE FROM postings WHERE segment = ?").run(segment);
      db.prepare("DELETE FROM segments WHERE id = ?").run(segment);
    }
    db.prepare("DELETE FROM meta WHERE key = ?").run(STAGED_SEGMENTS);
    const [blobs, chunks] = metaValue<[number, number]>(index, STAGED_FROM) ?? [0, 0];
    db.prepare("DELETE FROM chunks WHERE id >= ?").run(chunks);
    db.prepare("DELETE FROM blobs WHERE id >= ? AND indexed = 0").run(blobs);
  });
}

// The new blobs of one build: their rows and chunks are staged in batches
// (bounded memory); their postings are gathered for the whole build and
// published with the commit in one transaction, which is also what marks
// the staged blobs indexed.
class Batch {
  #index: IndexDatabase;
  #limit: number;
  #collector: TrigramCollector;
  #chunkUnits: number | undefined;
  #encoder = new TextEncoder();
  #blobs: {
    id: number;
    oid: string;
    searchable: boolean;
    size: number;
    chunkIds: Uint32Array;
    chunkLines: Uint32Array;
  }[] = [];
  #chunks: { id: number; hash: Uint8Array; text: Uint8Array }[] = [];
  // The chunks this build numbered, by hash (those of earlier builds are looked up).
  #numbered = new Map<string, number>();
  #knownChunk: StatementSync;
  #postings: PostingTable;
  #maxHeldPostingBytes: number;
  #stagedSegments: number[] = [];
  #textBytes = 0;
  #symbols: SymbolExtraction | undefined;
  #symbolRows: SymbolRows;
  #nextBlob: number;
  #nextChunk: number;
  // The numbers of this build's first rows (it stages no row below them).
  #firstBlob: number;
  #firstChunk: number;
  #added = false;

  constructor(
    index: IndexDatabase,
    options: {
      limit: number;
      collector: TrigramCollector;
      postings: PostingTable;
      chunkUnits?: number;
      symbols?: SymbolExtraction;
      maxHeldPostingBytes: number;
    },
  ) {
    this.#maxHeldPostingBytes = options.maxHeldPostingBytes;
    this.#symbols = options.symbols;
    this.#symbolRows = new SymbolRows(index);
    this.#postings = options.postings;
    this.#postings.clear();
    this.#index = index;
    this.#limit = options.limit;
    this.#collector = options.collector;
    this.#chunkUnits = options.chunkUnits;
    this.#nextBlob = this.#firstBlob = index.nextId("blobs");
    this.#nextChunk = this.#firstChunk = index.nextId("chunks");
    this.#knownChunk = index.db.prepare("SELECT id FROM chunks WHERE hash = ?");
  }

  get full(): boolean {
    return this.#textBytes >= this.#limit;
  }

  /** Whether the postings held reached their bound (`writeHeldPostings` then). */
  get heldPostingsFull(): boolean {
    return this.#postings.heldBytes >= this.#maxHeldPostingBytes;
  }

  /**
   * Writes the postings held as a segment, listed as staged until the
   * commit is published (a build that never publishes has them discarded).
   */
  writeHeldPostings(): void {
    this.#index.transaction(() => {
      this.#stagedSegments.push(this.#insertSegment());
      this.#index.db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)").run(
        STAGED_SEGMENTS,
        JSON.stringify(this.#stagedSegments),
      );
    });
    this.#postings.clear();
  }

  /**
   * Writes the rows gathered so far and the postings held (as a staged
   * segment, when there are any): the same rows and segments publishing
   * would write, written sooner.
   */
  writeAllHeld(): void {
    this.stage();
    if (this.#postings.byteLength > 0) this.writeHeldPostings();
  }

  // Marks what this build staged indexed: its rows (numbered from its first
  // ones) and the segments it wrote before; records where the next build's
  // rows begin.
  #markIndexed(): void {
    const db = this.#index.db;
    db.prepare("DELETE FROM meta WHERE key = ?").run(STAGED_SEGMENTS);
    // OR FAIL: no statement journal of the rows' pages (`row_batches.ts`); the publish is one
    // transaction.
    db.prepare("UPDATE OR FAIL blobs SET indexed = 1 WHERE id >= ? AND indexed = 0").run(
      this.#firstBlob,
    );
    db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)").run(
      STAGED_FROM,
      JSON.stringify([this.#nextBlob, this.#nextChunk]),
    );
  }

  // Writes the postings held as a new segment; its number.
  #insertSegment(): number {
    const db = this.#index.db;
    const segment = Number(
      db.prepare("INSERT INTO segments(bytes) VALUES (?)").run(this.#postings.byteLength)
        .lastInsertRowid,
    );
    insertLists(db, { table: "postings", segment, lists: this.#postings.lists() });
    return segment;
  }

  /** Symbol rows written so far. */
  get symbolCount(): number {
    return this.#symbolRows.written;
  }

  /**
   * Numbers a new blob and the chunks of it no earlier blob has, and
   * gathers those chunks' postings; returns the blob's number. `bytes` are
   * the blob's as read (their UTF-8 is its text's, BOM aside).
   */
  add(oid: string, blob: { text: string | null; size: number; bytes?: Uint8Array }): number {
    const id = this.#nextBlob++;
    this.#added = true;
    const chunks = blob.text === null ? [] : textChunks(blob.text, { units: this.#chunkUnits });
    const chunkIds = new Uint32Array(chunks.length);
    const chunkLines = new Uint32Array(chunks.length);
    // A text of as many bytes as code units is ASCII: its chunks' UTF-8 are views of its bytes
    // (no copy, no encoder call).
    const ascii = blob.text !== null && blob.bytes?.length === blob.text.length ? blob.bytes : null;
    const firstNew = this.#chunks.length;
    let at = 0;
    chunks.forEach((chunk, i) => {
      const text = ascii === null
        ? this.#encoder.encode(chunk.text)
        : ascii.subarray(at, at += chunk.text.length);
      const hash = createHash("sha1").update(text).digest();
      const key = hash.toString("hex");
      // An index that had no chunk before this build has none to look up.
      let chunkId = this.#numbered.get(key) ??
        (this.#firstChunk === 1
          ? undefined
          : (this.#knownChunk.get(hash) as { id: number } | undefined)?.id);
      if (chunkId === undefined) {
        chunkId = this.#nextChunk++;
        this.#numbered.set(key, chunkId);
        this.#chunks.push({ id: chunkId, hash, text });
        this.#textBytes += text.length;
        // A chunk of as many bytes as code units is ASCII (in a text that is not, too).
        const trigrams = text.length === chunk.text.length
          ? this.#collector.collectAscii(text)
          : this.#collector.collect(chunk.text);
        this.#postings.add(trigrams, chunkId);
      }
      chunkIds[i] = chunkId;
      chunkLines[i] = chunk.line;
    });
    if (ascii !== null) this.#ownNewChunks(ascii, firstNew);
    this.#blobs.push({
      id,
      oid,
      searchable: blob.text !== null,
      size: blob.size,
      chunkIds,
      chunkLines,
    });
    return id;
  }

  // A view keeps its blob's whole buffer until the batch is written: when the blob's new chunks
  // (from `first`) are less than half of it, each gets a copy of its own.
  #ownNewChunks(bytes: Uint8Array, first: number): void {
    let viewed = 0;
    for (let c = first; c < this.#chunks.length; c++) viewed += this.#chunks[c].text.length;
    if (viewed * 2 >= bytes.length) return;
    for (let c = first; c < this.#chunks.length; c++) {
      this.#chunks[c].text = this.#chunks[c].text.slice();
    }
  }

  /**
   * Writes the blobs gathered since the last call (not yet indexed: no
   * postings) and the symbols extracted meanwhile (`last`: the rest of them,
   * once every file is extracted).
   */
  stage(last?: BlobSymbols[]): void {
    const symbols = [...(this.#symbols?.take() ?? []), ...(last ?? [])];
    if (this.#blobs.length === 0 && symbols.length === 0) return;
    this.#index.transaction(() => {
      const db = this.#index.db;
      const blobs = new RowBatches(db, {
        table: "blobs",
        columns: ["id", "oid", "searchable", "bytes", "indexed", "chunk_ids", "chunk_lines"],
      });
      for (const blob of this.#blobs) {
        blobs.add([
          blob.id,
          blob.oid,
          blob.searchable ? 1 : 0,
          blob.size,
          0,
          packNumbers(blob.chunkIds),
          packNumbers(blob.chunkLines),
        ]);
      }
      blobs.flush();
      const chunks = new RowBatches(db, { table: "chunks", columns: ["id", "hash", "text"] });
      for (const chunk of this.#chunks) chunks.add([chunk.id, chunk.hash, chunk.text]);
      chunks.flush();
      this.#symbolRows.write(symbols);
    });
    this.#blobs = [];
    this.#chunks = [];
    this.#textBytes = 0;
  }

  /**
   * Writes the postings as one segment, marks the blobs indexed, lists the
   * new blobs whose symbols were skipped, numbers the paths not numbered yet
   * (with their postings) and adds the commit's `files` (in path order),
   * atomically; how many of the commit's files have no symbols extracted
   * (skipped by this build or an earlier one).
   */
  publish(
    files: readonly { path: string; blob: number }[],
    at: { commit: string; symbolsSkipped: readonly number[] },
  ): number {
    const { commit } = at;
    const db = this.#index.db;
    const numbered = allNumbers(this.#index, "SELECT path, id FROM paths");
    const pathIds = new Uint32Array(files.length);
    const blobIds = new Uint32Array(files.length);
    files.forEach((file, i) => {
      pathIds[i] = numbered.get(file.path) ?? 0;
      blobIds[i] = file.blob;
    });
    const symbolsSkipped = this.#index.transaction(() => {
      if (this.#added) {
        if (this.#postings.byteLength > 0) this.#insertSegment();
        this.#markIndexed();
      }
      // New paths are numbered in path order, so their posting lists ascend.
      const firstPath = this.#index.nextId("paths");
      let nextPath = firstPath;
      const paths = new RowBatches(db, { table: "paths", columns: ["id", "path"] });
      const pathLists = new Map<number, PostingWriter>();
      files.forEach((file, i) => {
        if (pathIds[i] !== 0) return;
        const id = nextPath++;
        paths.add([id, file.path]);
        pathIds[i] = id;
        for (const trigram of this.#collector.collect(file.path)) {
          let list = pathLists.get(trigram);
          if (!list) {
            list = new PostingWriter();
            pathLists.set(trigram, list);
          }
          list.add(id);
        }
      });
      paths.flush();
      insertLists(db, {
        table: "path_postings",
        segment: firstPath,
        lists: [...pathLists].sort(([a], [b]) => a - b).map(([trigram, list]) => ({
          trigram,
          count: list.count,
          bytes: list.bytes(),
        })),
      });
      const mapping = encodeCommitFiles({ pathIds, blobIds });
      db.prepare(
        "INSERT OR IGNORE INTO commits(commit_id, files, path_ids, blob_ids) VALUES (?, ?, ?, ?)",
      ).run(commit, files.length, mapping.pathIds, mapping.blobIds);
      return this.#recordSkipped(commit, { blobIds, skipped: at.symbolsSkipped });
    });
    this.#postings.clear();
    return symbolsSkipped;
  }

  // Lists `skipped` blobs as having no symbols extracted and records how
  // many of the commit's files (`blobIds`) hold such a blob, this build's or
  // an earlier one's; that count. (Nearly always none: one empty table read.)
  #recordSkipped(
    commit: string,
    files: { blobIds: Uint32Array; skipped: readonly number[] },
  ): number {
    const db = this.#index.db;
    const insert = db.prepare("INSERT OR IGNORE INTO symbols_skipped(blob) VALUES (?)");
    for (const blob of files.skipped) insert.run(blob);
    const skipped = new Set(
      (db.prepare("SELECT blob FROM symbols_skipped").all() as { blob: number }[])
        .map((row) => row.blob),
    );
    if (skipped.size === 0) return 0;
    let count = 0;
    for (const blob of files.blobIds) if (skipped.has(blob)) count++;
    if (count > 0) {
      db.prepare(
        "INSERT OR REPLACE INTO commit_symbols_skipped(commit_id, files) VALUES (?, ?)",
      ).run(commit, count);
    }
    return count;
  }
}

function insertLists(
  db: IndexDatabase["db"],
  options: {
    table: "postings" | "path_postings";
    segment: number;
    lists: Iterable<{ trigram: number; count: number; bytes: Uint8Array }>;
  },
): void {
  const rows = new RowBatches(db, { table: options.table, columns: POSTING_COLUMNS });
  for (const list of options.lists) {
    rows.add([list.trigram, options.segment, list.count, list.bytes]);
  }
  rows.flush();
}
