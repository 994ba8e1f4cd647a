/**
 * Querying an index: the files of an indexed commit with the chunks of
 * their blobs that hold every trigram a query requires, among the paths
 * whose own trigrams the search's scope requires. Posting lists of one
 * trigram are read from each segment and united; an AND intersects its
 * parts smallest first and stops once nothing is left. Candidates come
 * back in path order with their chunks in text order, ready to be verified.
 *
 * @module
 */

import type { StatementSync } from "node:sqlite";
import { decodeCommitFiles } from "./commit_files.ts";
import { unpackNumbers } from "./packed_numbers.ts";
import type { IndexDatabase } from "./index_database.ts";
import { decodePostings, intersect, union } from "./postings.ts";
import type { TrigramQuery } from "./trigrams.ts";
import { CommitSymbols } from "./commit_symbols.ts";
import { ChunkReads } from "./chunk_reads.ts";
export { CHUNK_BATCH } from "./chunk_reads.ts";

/** A chunk of a file's text: its number and how many lines of the file come before it. */
export interface ChunkRef {
  id: number;
  line: number;
}

/** A file to verify: the chunks of its text that may match, in order. */
export interface Candidate {
  path: string;
  chunks: ChunkRef[];
}

// A blob's chunks as stored.
interface BlobChunks {
  ids: Uint32Array;
  lines: Uint32Array;
}

/** One indexed commit, ready for queries. */
export class IndexedCommit {
  readonly commit: string;
  /** The definitions in the commit's files. */
  readonly symbols: CommitSymbols;
  #paths: string[];
  #pathIds: Uint32Array;
  #chunks: BlobChunks[];
  #postings: StatementSync;
  #pathPostings: StatementSync;
  #chunkReads: ChunkReads;
  #databasePath: string;
  #byChunk: { chunks: Uint32Array; files: Uint32Array } | null = null;

  private constructor(
    index: IndexDatabase,
    commit: string,
    files: {
      paths: string[];
      pathIds: Uint32Array;
      blobIds: Uint32Array;
      chunks: BlobChunks[];
      symbolsSkipped: number;
    },
  ) {
    this.commit = commit;
    this.symbols = new CommitSymbols(index, {
      paths: files.paths,
      blobIds: files.blobIds,
      skipped: files.symbolsSkipped,
    });
    this.#paths = files.paths;
    this.#pathIds = files.pathIds;
    this.#chunks = files.chunks;
    // Every segment (kept segment by segment), read in the statement's own snapshot:
    // a merge in between replaces segments.
    this.#postings = index.db.prepare(
      "SELECT count, ids FROM postings WHERE segment IN (SELECT id FROM segments) AND trigram = ?",
    );
    this.#pathPostings = index.db.prepare("SELECT count, ids FROM path_postings WHERE trigram = ?");
    this.#chunkReads = new ChunkReads(index.db);
    this.#databasePath = index.path;
  }

  /** Loads `commit` of `index`; null when it is not fully indexed. */
  static open(index: IndexDatabase, commit: string): IndexedCommit | null {
    const db = index.db;
    const row = db.prepare("SELECT path_ids, blob_ids FROM commits WHERE commit_id = ?").get(
      commit,
    ) as { path_ids: Uint8Array; blob_ids: Uint8Array } | undefined;
    if (!row) return null;
    const files = decodeCommitFiles({ pathIds: row.path_ids, blobIds: row.blob_ids });
    // Written with the commit's row, in its transaction.
    const skipped = db.prepare("SELECT files FROM commit_symbols_skipped WHERE commit_id = ?")
      .get(commit) as { files: number } | undefined;
    const pathOf = new Map<number, string>();
    for (
      const path of db.prepare("SELECT id, path FROM paths").iterate() as Iterable<
        { id: number; path: string }
      >
    ) {
      pathOf.set(path.id, path.path);
    }
    const wanted = new Set(files.blobIds);
    const chunksOf = new Map<number, BlobChunks>();
    const blobs = db.prepare("SELECT id, chunk_ids, chunk_lines FROM blobs WHERE indexed = 1")
      .iterate() as Iterable<{ id: number; chunk_ids: Uint8Array; chunk_lines: Uint8Array }>;
    for (const blob of blobs) {
      if (!wanted.has(blob.id)) continue;
      chunksOf.set(blob.id, {
        ids: unpackNumbers(blob.chunk_ids),
        lines: unpackNumbers(blob.chunk_lines),
      });
    }
    const count = files.pathIds.length;
    const loaded = {
      paths: new Array<string>(count),
      pathIds: files.pathIds,
      blobIds: files.blobIds,
      chunks: new Array<BlobChunks>(count),
      symbolsSkipped: skipped?.files ?? 0,
    };
    for (let i = 0; i < count; i++) {
      const path = pathOf.get(files.pathIds[i]);
      const chunks = chunksOf.get(files.blobIds[i]);
      if (path === undefined || chunks === undefined) {
        throw new Error(`the search index of ${commit} names a missing path or blob`);
      }
      loaded.paths[i] = path;
      loaded.chunks[i] = chunks;
    }
    return new IndexedCommit(index, commit, loaded);
  }

  /** How many files the commit has. */
  get fileCount(): number {
    return this.#paths.length;
  }

  /** How many files of the commit `counted` accepts. */
  filesWhere(counted: (path: string) => boolean): number {
    let count = 0;
    for (const path of this.#paths) if (counted(path)) count++;
    return count;
  }

  /**
   * The files in path order whose text may match `query`, among those whose
   * paths may match `paths` and that `keep` accepts.
   */
  candidates(
    query: TrigramQuery,
    options: { paths: TrigramQuery; keep: (path: string) => boolean },
  ): Candidate[] {
    const matching = query.op === "all"
      ? null
      : evaluate(query, (t) => this.#list(this.#postings, t));
    if (matching !== null && matching.length === 0) return [];
    const pathIds = options.paths.op === "all"
      ? null
      : new Set(evaluate(options.paths, (t) => this.#list(this.#pathPostings, t)));
    const out: Candidate[] = [];
    const files = matching === null || this.#chunks.length >= MAX_PACKED_FILES
      ? null
      : this.#filesHolding(matching);
    const count = files === null ? this.#paths.length : files.length;
    for (let f = 0; f < count; f++) {
      const i = files === null ? f : files[f];
      const { ids, lines } = this.#chunks[i];
      if (ids.length === 0 || (pathIds !== null && !pathIds.has(this.#pathIds[i]))) continue;
      const chunks: ChunkRef[] = [];
      for (let c = 0; c < ids.length; c++) {
        if (matching === null || contains(matching, ids[c])) {
          chunks.push({ id: ids[c], line: lines[c] });
        }
      }
      if (chunks.length > 0 && options.keep(this.#paths[i])) {
        out.push({ path: this.#paths[i], chunks });
      }
    }
    return out;
  }

  /**
   * How far the restrictions narrow a search that found nothing, from the
   * postings alone (no text is read): the files whose paths `paths` and
   * `keep` accept, then those of them whose text holds the trigrams of
   * `query` in any case (null: it has no trigram).
   */
  narrowing(
    query: TrigramQuery,
    options: { paths: TrigramQuery; keep: (path: string) => boolean },
  ): { inScope: number; holdingTrigrams: number | null } {
    const scoped = { paths: options.paths, keep: options.keep };
    return {
      inScope: this.candidates({ op: "all" }, scoped).length,
      holdingTrigrams: query.op === "all" ? null : this.candidates(query, scoped).length,
    };
  }

  /**
   * The texts of the chunks `ids`, by id (`ChunkReads`); a chunk that is gone
   * (its commit was pruned meanwhile) is absent.
   */
  chunkTexts(ids: readonly number[]): Map<number, string> {
    return this.#chunkReads.texts(ids);
  }

  /** The index database file (scanning workers open it themselves). */
  get databasePath(): string {
    return this.#databasePath;
  }

  // The files (ascending indexes, so in path order) holding any of the
  // chunks `ids`, found through the chunks sorted by id: a rare literal's few
  // chunks no longer walk every file of the commit.
  #filesHolding(ids: Uint32Array): number[] {
    const byChunk = this.#byChunk ??= chunkOwners(this.#chunks);
    const files: number[] = [];
    for (const id of ids) {
      let low = 0;
      let high = byChunk.chunks.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (byChunk.chunks[middle] < id) low = middle + 1;
        else high = middle;
      }
      for (let at = low; at < byChunk.chunks.length && byChunk.chunks[at] === id; at++) {
        files.push(byChunk.files[at]);
      }
    }
    files.sort((a, b) => a - b);
    return files.filter((file, i) => i === 0 || files[i - 1] !== file);
  }

  #list(statement: StatementSync, trigram: number): Uint32Array {
    const rows = statement.all(trigram) as { count: number; ids: Uint8Array }[];
    let list: Uint32Array = new Uint32Array(0);
    for (const row of rows) list = union(list, decodePostings(row.ids, row.count));
    return list;
  }
}

/** Most files a commit may have for its chunks to be sorted by owner (more walk every file). */
const MAX_PACKED_FILES = 2 ** 21;

// Every (chunk, file) pair of a commit sorted by chunk id: a chunk id and a
// file index packed in one float64 (ids below 2^32, files below 2^21) and sorted natively.
function chunkOwners(chunks: readonly BlobChunks[]): { chunks: Uint32Array; files: Uint32Array } {
  let total = 0;
  for (const blob of chunks) total += blob.ids.length;
  const packed = new Float64Array(total);
  let at = 0;
  chunks.forEach((blob, file) => {
    for (const id of blob.ids) packed[at++] = id * MAX_PACKED_FILES + file;
  });
  packed.sort();
  const owners = { chunks: new Uint32Array(total), files: new Uint32Array(total) };
  packed.forEach((value, i) => {
    owners.files[i] = value % MAX_PACKED_FILES;
    owners.chunks[i] = (value - owners.files[i]) / MAX_PACKED_FILES;
  });
  return owners;
}

function evaluate(query: TrigramQuery, list: (trigram: number) => Uint32Array): Uint32Array {
  switch (query.op) {
    case "trigram":
      return list(query.trigram);
    case "and": {
      const lists = query.subs.map((sub) => evaluate(sub, list)).sort((a, b) =>
        a.length - b.length
      );
      let result = lists[0];
      for (let i = 1; i < lists.length && result.length > 0; i++) {
        result = intersect(result, lists[i]);
      }
      return result;
    }
    case "or":
      return query.subs.reduce<Uint32Array>(
        (all, sub) => union(all, evaluate(sub, list)),
        new Uint32Array(0),
      );
    default:
      throw new Error("an all query has no posting list");
  }
}

// Whether ascending `list` holds `id` (binary search).
function contains(list: Uint32Array, id: number): boolean {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid] < id) low = mid + 1;
    else high = mid;
  }
  return low < list.length && list[low] === id;
}
