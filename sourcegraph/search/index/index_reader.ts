/**
 * Querying an index: the files of an indexed commit with the chunks of
 * their blobs that hold every trigram a query requires, among the paths
 * whose own trigrams the search's scope requires. Posting lists of one
 * trigram are read from each segment and united; an AND reads its parts
 * shortest first (by their counts), decodes each later one only within what
 * is left, and stops once nothing is left. Candidates come back in path
 * order with their chunks in text order, ready to be verified.
 *
 * @module
 */

import type { StatementSync } from "node:sqlite";
import { decodeCommitFiles } from "./commit_files.ts";
import { unpackNumbers } from "./packed_numbers.ts";
import type { IndexDatabase } from "./index_database.ts";
import { decodePostings, decodePostingsWithin, union } from "./postings.ts";
import type { TrigramQuery } from "./trigrams.ts";
import { CommitSymbols } from "./commit_symbols.ts";
import { ChunkReads } from "./chunk_reads.ts";
import { RecentMap } from "../../../shared/recent_map.ts";
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

/**
 * What a query of the index went through, counted as it goes (tests compare
 * them): posting ids it kept, files whose chunks it walked, chunks it tested,
 * and, when given, statements run on the posting tables (counts and lists).
 */
export interface ReaderVisits {
  postings: number;
  files: number;
  chunks: number;
  statements?: number;
}

/** What a candidates query is restricted to. */
export interface CandidateScope {
  /** The trigrams a kept file's path must hold. */
  paths: TrigramQuery;
  /** Whether a file is kept (its folders, groups and globs). */
  keep: (path: string) => boolean;
  /**
   * The folders path groups make visible (none: the whole commit): only their
   * files' chunks and paths are taken from the postings, before anything else.
   */
  groups?: readonly string[];
  /** Counts the work done (tests). */
  visits?: ReaderVisits;
}

// The files of a commit inside some path groups, and what queries under those
// groups restrict the postings to.
interface VisibleFiles {
  /** Their indexes, ascending (path order). */
  files: Uint32Array;
  /** Their chunks' ids, ascending, each once. */
  chunks: Uint32Array;
  /** Their path ids, ascending. */
  pathIds: Uint32Array;
  /** Their (chunk, file) pairs sorted by chunk (`chunkOwners`); null past MAX_PACKED_FILES. */
  owners: { chunks: Uint32Array; files: Uint32Array } | null;
}

/**
 * Most characters of a chunk `lineTexts` reads: every chunk of several lines
 * is shorter (`CHUNK_UNITS`); a longer one is a single long line, of which
 * this much is plenty for its start.
 */
export const LINE_WINDOW = 16_384;

/** Path group sets whose visible files one commit keeps (the least recently used goes first). */
const VISIBLE_SETS = 8;

/** Scopes whose file counts one commit keeps (`filesInScope`; the least recently used goes first). */
const SCOPE_COUNTS = 64;

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
  #postingCounts: StatementSync;
  #pathCounts: StatementSync;
  #chunkReads: ChunkReads;
  #chunkStart: StatementSync;
  #database: IndexFile;
  #byChunk: { chunks: Uint32Array; files: Uint32Array } | null = null;
  #visible = new RecentMap<string, VisibleFiles>(VISIBLE_SETS);
  #inScope = new RecentMap<string, number>(SCOPE_COUNTS);

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
    // The counts alone (the ids, after them in the row, are not read), of every trigram of a
    // query in one statement (a JSON array of them): one statement a trigram was half the
    // processor time of a rare literal's search across sixty repositories.
    this.#postingCounts = index.db.prepare(
      "SELECT trigram, sum(count) AS count FROM postings WHERE segment IN (SELECT id FROM segments) " +
        "AND trigram IN (SELECT value FROM json_each(?)) GROUP BY trigram",
    );
    this.#pathCounts = index.db.prepare(
      "SELECT trigram, sum(count) AS count FROM path_postings " +
        "WHERE trigram IN (SELECT value FROM json_each(?)) GROUP BY trigram",
    );
    this.#chunkReads = new ChunkReads(index.db);
    this.#chunkStart = index.db.prepare(
      "SELECT substr(CAST(text AS TEXT), 1, ?) AS text FROM chunks WHERE id = ?",
    );
    this.#database = { path: index.path, opening: index.opening };
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

  /**
   * The files in path order whose text may match `query`, among those whose
   * paths may match `paths` and that `keep` accepts. Under path groups only
   * the visible files' chunks and paths are kept from the postings, before
   * they are intersected and before any file is walked: a text held only by
   * hidden files costs what a text held nowhere costs.
   */
  candidates(query: TrigramQuery, options: CandidateScope): Candidate[] {
    const visits = options.visits;
    const visible = options.groups && options.groups.length > 0
      ? this.#visibleFiles(options.groups)
      : null;
    const matching = query.op === "all"
      ? null
      : this.#evaluate(query, { statement: this.#postings, within: visible?.chunks, visits });
    if (matching !== null && matching.length === 0) return [];
    const pathIds = options.paths.op === "all" ? null : new Set(
      this.#evaluate(options.paths, {
        statement: this.#pathPostings,
        within: visible?.pathIds,
        visits,
      }),
    );
    const out: Candidate[] = [];
    const files = this.#filesToWalk(matching, visible);
    const count = files === null ? this.#paths.length : files.length;
    for (let f = 0; f < count; f++) {
      const i = files === null ? f : files[f];
      const { ids, lines } = this.#chunks[i];
      if (visits) visits.files++;
      if (ids.length === 0 || (pathIds !== null && !pathIds.has(this.#pathIds[i]))) continue;
      const chunks: ChunkRef[] = [];
      for (let c = 0; c < ids.length; c++) {
        if (visits) visits.chunks++;
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

  /** How many files of the commit lie inside the folders `groups` (all of them: none). */
  filesWithin(groups: readonly string[]): number {
    return groups.length === 0 ? this.#paths.length : this.#visibleFiles(groups).files.length;
  }

  /**
   * How many files with searchable text `scope` keeps (those a query of every
   * file would walk), for a search that found nothing: counted from the
   * commit's file list and the path postings (no text, no chunk list is
   * built), once per `key` (the paths, globs and groups `scope` was made
   * from) and kept for the next search with the same scope. Under path
   * groups only the visible files are counted.
   */
  filesInScope(scope: CandidateScope & { key: string }): number {
    const kept = this.#inScope.get(scope.key);
    if (kept !== undefined) return kept;
    const visible = scope.groups && scope.groups.length > 0
      ? this.#visibleFiles(scope.groups)
      : null;
    const pathIds = scope.paths.op === "all" ? null : new Set(
      this.#evaluate(scope.paths, {
        statement: this.#pathPostings,
        within: visible?.pathIds,
        visits: scope.visits,
      }),
    );
    const files = visible?.files ?? null;
    const total = files === null ? this.#paths.length : files.length;
    let count = 0;
    for (let f = 0; f < total; f++) {
      const i = files === null ? f : files[f];
      if (scope.visits) scope.visits.files++;
      if (this.#chunks[i].ids.length === 0) continue;
      if (pathIds !== null && !pathIds.has(this.#pathIds[i])) continue;
      if (scope.keep(this.#paths[i])) count++;
    }
    this.#inScope.set(scope.key, count);
    return count;
  }

  /**
   * The texts of the chunks `ids`, by id (`ChunkReads`); a chunk that is gone
   * (its commit was pruned meanwhile) is absent.
   */
  chunkTexts(ids: readonly number[]): Map<number, string> {
    return this.#chunkReads.texts(ids);
  }

  /**
   * The text of line `line` (1-based, without its newline) of the file at
   * `path`, for each of `places`, read from the index's chunks (only the
   * chunk holding each line, each chunk once, and of a chunk at most its
   * first `LINE_WINDOW` characters: a longer chunk is one long line, cut
   * there); null where the commit has no such file or line, or the file
   * has no searchable text.
   */
  lineTexts(places: readonly { path: string; line: number }[]): (string | null)[] {
    const wanted = places.map(({ path, line }) => {
      const file = this.#fileAt(path);
      if (file === -1 || line < 1) return null;
      const { ids, lines } = this.#chunks[file];
      // The last chunk starting at or before the line (chunk c starts `lines[c]` lines in).
      let chunk = -1;
      for (let low = 0, high = ids.length - 1; low <= high;) {
        const middle = (low + high) >> 1;
        if (lines[middle] <= line - 1) {
          chunk = middle;
          low = middle + 1;
        } else high = middle - 1;
      }
      return chunk === -1 ? null : { id: ids[chunk], skip: line - 1 - lines[chunk] };
    });
    const texts = new Map<number, string | undefined>();
    for (const at of wanted) {
      if (at === null || texts.has(at.id)) continue;
      const row = this.#chunkStart.get(LINE_WINDOW, at.id) as { text: string } | undefined;
      texts.set(at.id, row?.text);
    }
    return wanted.map((at) => {
      const text = at === null ? undefined : texts.get(at.id);
      if (at === null || text === undefined) return null;
      let start = 0;
      for (let n = 0; n < at.skip; n++) {
        start = text.indexOf("\n", start) + 1;
        if (start === 0) return null;
      }
      if (start === text.length) return null; // past the text's last line
      const end = text.indexOf("\n", start);
      return text.slice(start, end === -1 ? text.length : end);
    });
  }

  // The position of `path` among the commit's files (the build sorts them in
  // code unit order; should a commit's files be in another, the list is
  // walked), or -1.
  #fileAt(path: string): number {
    for (let low = 0, high = this.#paths.length - 1; low <= high;) {
      const middle = (low + high) >> 1;
      const at = this.#paths[middle];
      if (at === path) return middle;
      if (at < path) low = middle + 1;
      else high = middle - 1;
    }
    return this.#paths.indexOf(path);
  }

  /** The index database file and its opening (scanning workers open it themselves). */
  get database(): IndexFile {
    return this.#database;
  }

  // The files a query walks, ascending (null: every file of the commit):
  // those holding a matching chunk, found through the chunks sorted by id (a
  // rare literal's few chunks no longer walk every file of the commit); under
  // path groups only visible ones, found through the visible chunks' owners.
  #filesToWalk(
    matching: Uint32Array | null,
    visible: VisibleFiles | null,
  ): ArrayLike<number> | null {
    if (visible !== null) {
      return matching === null || visible.owners === null
        ? visible.files
        : filesHolding(matching, visible.owners);
    }
    if (matching === null || this.#chunks.length >= MAX_PACKED_FILES) return null;
    return filesHolding(matching, this.#byChunk ??= chunkOwners(this.#chunks));
  }

  // The visible files under `groups`, computed once per set of groups (a few sets kept).
  #visibleFiles(groups: readonly string[]): VisibleFiles {
    const key = [...groups].sort().join("\0");
    const kept = this.#visible.get(key);
    if (kept !== undefined) return kept;
    const inside = (path: string) =>
      groups.some((root) => path === root || path.startsWith(`${root}/`));
    const files: number[] = [];
    for (let i = 0; i < this.#paths.length; i++) if (inside(this.#paths[i])) files.push(i);
    const visible = visibleFiles(this.#chunks, { files, pathIds: this.#pathIds });
    this.#visible.set(key, visible);
    return visible;
  }

  // A query's ids from the postings of `statement`; with `within`, only
  // those it holds, each list cut to them as it is decoded. An AND decodes
  // each later part only within what is left and stops once nothing is.
  // Without `within` it reads its parts shortest first (by the lists' counts,
  // read without their ids): a literal of common trigrams no longer decodes
  // every long list whole. Under path groups (`within`) it reads them in the
  // query's order: counts of the whole commit would let hidden files decide
  // the work done.
  #evaluate(
    query: TrigramQuery,
    options: { statement: StatementSync; within?: Uint32Array; visits?: ReaderVisits },
  ): Uint32Array {
    const { statement, visits } = options;
    // Under path groups every part is alike (the query's order); else an AND's parts are
    // ordered by counts read at once for the query's every trigram.
    const counts = options.within === undefined && hasAnd(query)
      ? this.#counts(statement, [...trigramsOf(query)])
      : null;
    if (counts !== null && visits?.statements !== undefined) visits.statements++;
    const postings: Postings = {
      list: (trigram, within) => {
        // A trigram no list holds (an absent literal's usual first part) needs no read: a list
        // of this commit's chunks is written with them, so it cannot appear in between.
        if (counts !== null && !counts.has(trigram)) return new Uint32Array(0);
        const ids = this.#list(statement, trigram, within);
        if (visits) visits.postings += ids.length;
        if (visits?.statements !== undefined) visits.statements++;
        return ids;
      },
      count: (trigram) => counts?.get(trigram) ?? 0,
    };
    return evaluate(query, { postings, within: options.within });
  }

  #list(statement: StatementSync, trigram: number, within?: Uint32Array): Uint32Array {
    const rows = statement.all(trigram) as { count: number; ids: Uint8Array }[];
    let list: Uint32Array = new Uint32Array(0);
    for (const row of rows) {
      const ids = within === undefined
        ? decodePostings(row.ids, row.count)
        : decodePostingsWithin(row.ids, { count: row.count, within });
      list = union(list, ids);
    }
    return list;
  }

  // How many ids the list of each of `trigrams` holds (its segments' counts
  // summed; the ids are not read), absent for a trigram no list holds. Counts
  // only order an AND's reads: read across a merge of segments, they change
  // no answer.
  #counts(statement: StatementSync, trigrams: readonly number[]): Map<number, number> {
    const counting = statement === this.#postings ? this.#postingCounts : this.#pathCounts;
    const rows = counting.all(JSON.stringify(trigrams)) as { trigram: number; count: number }[];
    return new Map(rows.map((row) => [row.trigram, row.count]));
  }
}

// Whether `query` holds an AND (whose parts are read in the order of their counts).
function hasAnd(query: TrigramQuery): boolean {
  return query.op === "and" || (query.op === "or" && query.subs.some(hasAnd));
}

// The distinct trigrams of `query`.
function trigramsOf(query: TrigramQuery, into = new Set<number>()): Set<number> {
  if (query.op === "trigram") into.add(query.trigram);
  else if (query.op === "and" || query.op === "or") {
    for (const sub of query.subs) trigramsOf(sub, into);
  }
  return into;
}

// The files (ascending indexes, so in path order) holding any of the chunks
// `ids`, by `byChunk`, the (chunk, file) pairs sorted by chunk.
function filesHolding(
  ids: Uint32Array,
  byChunk: { chunks: Uint32Array; files: Uint32Array },
): number[] {
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

// The files `files` (ascending indexes) of a commit whose blobs' chunks are
// `chunks` and path ids `pathIds`, with their chunks and paths sorted.
function visibleFiles(
  chunks: readonly BlobChunks[],
  options: { files: number[]; pathIds: Uint32Array },
): VisibleFiles {
  const files = Uint32Array.from(options.files);
  const pathIds = Uint32Array.from(options.files, (i) => options.pathIds[i]).sort();
  let total = 0;
  for (const i of files) total += chunks[i].ids.length;
  const ids = new Uint32Array(total);
  let at = 0;
  for (const i of files) {
    ids.set(chunks[i].ids, at);
    at += chunks[i].ids.length;
  }
  ids.sort();
  const unique = ids.filter((id, i) => i === 0 || ids[i - 1] !== id);
  const owners = chunks.length >= MAX_PACKED_FILES ? null : chunkOwners(chunks, files);
  return { files, chunks: unique, pathIds, owners };
}

/** An index file as workers open it: its path, and which opening of it (`IndexDatabase`). */
export interface IndexFile {
  path: string;
  opening: number;
}

/** Most files a commit may have for its chunks to be sorted by owner (more walk every file). */
const MAX_PACKED_FILES = 2 ** 21;

// Every (chunk, file) pair of a commit (of its files `files` only, when
// given) sorted by chunk id: a chunk id and a file index packed in one
// float64 (ids below 2^32, files below 2^21) and sorted natively.
function chunkOwners(
  chunks: readonly BlobChunks[],
  files?: Uint32Array,
): { chunks: Uint32Array; files: Uint32Array } {
  const owned = files ?? chunks.map((_, i) => i);
  let total = 0;
  for (const file of owned) total += chunks[file].ids.length;
  const packed = new Float64Array(total);
  let at = 0;
  for (const file of owned) {
    for (const id of chunks[file].ids) packed[at++] = id * MAX_PACKED_FILES + file;
  }
  packed.sort();
  const owners = { chunks: new Uint32Array(total), files: new Uint32Array(total) };
  packed.forEach((value, i) => {
    owners.files[i] = value % MAX_PACKED_FILES;
    owners.chunks[i] = (value - owners.files[i]) / MAX_PACKED_FILES;
  });
  return owners;
}

// Where a query's lists come from: a trigram's ids (only those `within`
// holds, when given) and how many ids its list holds.
interface Postings {
  list(trigram: number, within?: Uint32Array): Uint32Array;
  count(trigram: number): number;
}

// The ids `query` selects (only those `within` holds, when given). An AND
// evaluates its parts in the order of their estimated sizes, each later one
// within the ids left, and stops at the first that leaves nothing.
function evaluate(
  query: TrigramQuery,
  from: { postings: Postings; within?: Uint32Array },
): Uint32Array {
  const { postings, within } = from;
  switch (query.op) {
    case "trigram":
      return postings.list(query.trigram, within);
    case "and": {
      const subs = query.subs.map((sub) => ({ sub, size: sizeOf(sub, postings) }))
        .sort((a, b) => a.size - b.size);
      let result = within;
      for (const { sub } of subs) {
        result = evaluate(sub, { postings, within: result });
        if (result.length === 0) break;
      }
      return result ?? new Uint32Array(0);
    }
    case "or":
      return query.subs.reduce<Uint32Array>(
        (all, sub) => union(all, evaluate(sub, from)),
        new Uint32Array(0),
      );
    default:
      throw new Error("an all query has no posting list");
  }
}

// The most ids `query` can select, from its lists' counts alone.
function sizeOf(query: TrigramQuery, postings: Postings): number {
  switch (query.op) {
    case "trigram":
      return postings.count(query.trigram);
    case "and":
      return Math.min(...query.subs.map((sub) => sizeOf(sub, postings)));
    case "or":
      return query.subs.reduce((sum, sub) => sum + sizeOf(sub, postings), 0);
    default:
      return Infinity;
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
