/**
 * A compiled search (`query/compiled_search.ts`) run at one retained commit,
 * correct first: candidate files come from the commit's trigram index
 * (`index/`) when it is built, else from `git grep -F -l` on literals one of
 * which every match must contain (or all files when there are none); each
 * candidate's lines are then verified with the compiled RE2 program, so both
 * ways give the same answer.
 *
 * @module
 */

import { runGit } from "../../shared/git.ts";
import { type MirrorObjects, READ_SCAN_LIMIT } from "../git/mirror_objects.ts";
import { type Candidate, CHUNK_BATCH, type IndexedCommit } from "./index/index_reader.ts";
import {
  type CompiledSearch,
  compileSearch,
  SEARCH_MAX_FILES,
  SEARCH_MAX_MS,
  type SearchTier,
  SHOWN_LINE_BYTES,
} from "./query/compiled_search.ts";
import { comparePaths } from "./query/path_order.ts";
import { isTestOrGenerated } from "./query/path_kinds.ts";
import { commitPaths } from "../git/commit_paths.ts";
import { type CandidateLine, CandidateLines, type LineFinder } from "./query/line_candidates.ts";
import { searchableText } from "./searchable_text.ts";
import type { ChunkScanner, ScannedLines } from "./scan/chunk_scanner.ts";
import type { SearchPosition } from "./query/compiled_search.ts";
import type { TrigramQuery } from "./index/trigrams.ts";

/** One file's matches. */
export interface FileMatches {
  path: string;
  /**
   * The shown matching lines; with `matchRanges`, each with its matches'
   * [start, end) offsets in `text` (UTF-16 code units, the program's own matches).
   */
  lines: { number: number; text: string; ranges?: [number, number][] }[];
  matchCount: number;
  /** In a ranked search, the matching names this file defines (such files come first). */
  defines?: string[];
  /** In a ranked search, the file's group (`SearchTier`). */
  tier?: SearchTier;
  /** In a ranked search, its place in the search's order: twice its group, plus one unless it has the whole name. */
  rank?: number;
}

/**
 * How the candidates were found: `ready` through the commit's index,
 * `scan` (indexed, but the pattern has no trigram: every file in scope was
 * read), `not_ready` (the index of the commit is still being built: through
 * Git).
 */
export type IndexUse = "ready" | "scan" | "not_ready";

/** What a search found. */
export interface SearchOutcome {
  files: FileMatches[];
  fileCount: number;
  matchCount: number;
  /** A cap applied: more files or lines may match. */
  truncated: boolean;
  /** The time bound stopped the search before every candidate was verified. */
  partial: boolean;
  index: IndexUse;
  /**
   * Files defining a matching name came first (through the index's
   * symbols), then files whose name the pattern matches, then the rest.
   */
  ranked?: boolean;
  /** For a search through the index that found nothing: what each restriction left. */
  narrowing?: Narrowing;
}

/** How far a search's restrictions narrowed the commit's files (from the index alone). */
export interface Narrowing {
  /** Files of the commit (those inside the path groups, when it has them). */
  filesAtCommit: number;
  /** Searchable (text) files the paths and globs keep. */
  inScope: number;
  /** Of those, files holding the pattern's literals in any case (null: it has none). */
  holdingTrigrams: number | null;
  /**
   * Whether the same search with ignore_case matches some file (null: it
   * ignored case, or none held the literals); found at the first such file.
   */
  ignoreCaseMatches: boolean | null;
}

/** Most files one search collects; time one search may spend verifying candidates. */
export { SEARCH_MAX_FILES, SEARCH_MAX_MS };
/** Most matching lines one search collects. */
export const SEARCH_MAX_MATCHES = 10_000;
/** Most bytes one search answer may be (the largest `max_bytes`). */
export const SEARCH_VIEW_BYTES = 256 * 1024;
const GREP_THREADS = Math.min(8, Math.max(2, navigator.hardwareConcurrency ?? 2));

/**
 * Runs `search` at `commit` in the mirror of `tree`: candidates from the commit's index
 * when it is given, else from Git; then every candidate verified line by
 * line with the compiled program.
 */
export async function searchCommit(
  tree: MirrorObjects,
  request: {
    search: CompiledSearch;
    commit: string;
    /** The commit's index, when it is built. */
    index?: IndexedCommit | null;
    /** Workers that read and scan chunks when a search reads many. */
    scanner?: ChunkScanner;
  },
): Promise<SearchOutcome> {
  const { commit, search } = request;
  const index = request.index ?? null;
  if (index !== null) {
    const holding = index.candidates(search.trigrams, {
      paths: search.pathTrigrams,
      keep: search.keep,
      groups: search.groups,
    });
    // No candidate, nothing to rank: most repositories a search across many asks hold no
    // candidate of a rare literal, and the ranking's name lookups were a tenth of their cost.
    const ranking = holding.length === 0 ? null : rankingOf(index, search);
    const placed = ranked(holding, { ranking, testsLast: search.testsLast });
    // The cursor's place, with its rank inside its group worked out as its file's was.
    const after = search.after === null
      ? null
      : { ...search.after, rank: rankOf(search.after, ranking, search.testsLast) };
    const candidates = placed.candidates.filter((candidate) =>
      after === null || comparePlaces(candidate, after) >= 0
    );
    const page: PageFill = { full: false };
    const read = {
      candidates,
      finder: search.finder,
      scanner: request.scanner,
      maxFiles: search.maxFiles,
      // Files past a full page are only counted, which a worker may do for the last ones.
      counted: search.finderMatches && Number.isFinite(search.lineBytes) ? page : undefined,
    };
    const outcome = await verify(fromIndex(index, read), {
      search,
      after,
      index: search.trigrams.op === "all" ? "scan" : "ready",
      page,
    });
    if (placed.ranked) outcome.ranked = true;
    if (outcome.fileCount > 0 || outcome.partial || search.after !== null) return outcome;
    const found = { search, candidates: placed.candidates, scanner: request.scanner };
    return { ...outcome, narrowing: await narrowingOf(index, found) };
  }
  return await searchWithGit(tree, { search, commit });
}

// The search without an index: candidates from `git grep` (or every file), in path order (test
// and generated files last when asked).
async function searchWithGit(
  tree: MirrorObjects,
  at: { search: CompiledSearch; commit: string },
): Promise<SearchOutcome> {
  const { search, commit } = at;
  // git grep -i folds ASCII only: RE2 also matches KELVIN SIGN for k and
  // LONG S for s, and folds non-ASCII letters, so such literals select nothing.
  const { literals, ignoreCase } = search;
  const grepLiterals = ignoreCase && literals?.some((l) => /[^\x20-\x7e]|[ks]/i.test(l))
    ? null
    : literals;
  const paths = (await candidateFiles(tree.path, commit, grepLiterals, ignoreCase, search.paths))
    .filter(search.keep);
  const rank = search.testsLast ? (path: string) => rankOf({ path }, null, true) : undefined;
  return await verify(
    fromGit(tree, {
      commit,
      paths: rank === undefined
        ? paths
        : testsLast(paths.map((path) => ({ path }))).map((c) => c.path),
      finder: search.finder,
      rank,
    }),
    {
      search,
      after: search.after && rank
        ? { ...search.after, rank: rank(search.after.path) }
        : search.after,
      index: "not_ready",
    },
  );
}

// What ranks a search's files (see `rankingOf`).
interface Ranking {
  /** The files defining a matching name, with those names. */
  defining: Map<string, string[]>;
  /** Whether the pattern matches a file's name. */
  namedLike: (path: string) => boolean;
  /** Whether one of `names` is the whole name searched for. */
  definesWhole: (names: string[]) => boolean;
  /** Whether a file's name without its extensions is the whole name searched for. */
  namedWhole: (path: string) => boolean;
}

// What ranks the search: the files of the commit that define a name it
// matches (with those names), and whether the pattern matches a file's name;
// null when the search is not ranked: it has no literal, or its first page
// was not ranked.
function rankingOf(
  index: IndexedCommit,
  search: CompiledSearch,
): Ranking | null {
  if (search.literals === null || (search.after !== null && search.after.tier === undefined)) {
    return null;
  }
  const defining = index.symbols.definingPaths({
    literals: search.literals,
    ignoreCase: search.ignoreCase,
    test: (name) => search.regex.test(name),
    // Under path groups, names defined outside them neither rank nor use up the name cap.
    within: search.groups.length === 0
      ? undefined
      : index.symbols.namesDefinedIn({ roots: search.groups }),
  });
  // A whole name: one of the literals every match holds, as the search compares case.
  const fold = (text: string) => search.ignoreCase ? text.toLowerCase() : text;
  const whole = new Set(search.literals.map(fold));
  return {
    // Too many matching names mean nothing: only the names rank then.
    defining: defining ?? new Map(),
    namedLike: (path) => search.regex.test(path.slice(path.lastIndexOf("/") + 1)),
    definesWhole: (names) => names.some((name) => whole.has(fold(name))),
    namedWhole: (path) => whole.has(fold(path.slice(path.lastIndexOf("/") + 1).split(".")[0])),
  };
}

// What a test or generated file's rank has added when such files come last: past every other rank.
const LATER = 5;

// A place's rank: twice its group, plus one unless it matches the whole
// name (a file defining exactly the name searched before one defining a
// longer name holding it; `strbuf.c` before `strbuf-util.c` for `strbuf`);
// plus `LATER` for a test or generated file when those come last.
function rankOf(
  place: { path: string; tier?: SearchTier },
  ranking: Ranking | null,
  testsLast = false,
): number {
  const tier = place.tier ?? 2;
  const later = testsLast && isTestOrGenerated(place.path) ? LATER : 0;
  if (ranking === null || tier === 2) return 2 * tier + later;
  const whole = tier === 0
    ? ranking.definesWhole(ranking.defining.get(place.path) ?? [])
    : ranking.namedWhole(place.path);
  return 2 * tier + (whole ? 0 : 1) + later;
}

// Unranked candidates (path order) with test and generated files moved after the others,
// each with its rank (its part's), so a cursor compares with them.
function testsLast<T extends { path: string }>(candidates: readonly T[]): (T & { rank: number })[] {
  const first: (T & { rank: number })[] = [];
  const later: (T & { rank: number })[] = [];
  for (const candidate of candidates) {
    const rank = rankOf(candidate, null, true);
    (rank > 4 ? later : first).push({ ...candidate, rank });
  }
  return [...first, ...later];
}

// A candidate in the search's order: its tier and rank when ranked.
type Placed = Candidate & { tier?: SearchTier; rank?: number; defines?: string[] };

// The candidates (in path order) in their tiers, when some file defines a
// matching name or has a name the pattern matches (otherwise path order,
// unranked: a page continued from it stays so).
function ranked(
  candidates: readonly Candidate[],
  order: { ranking: ReturnType<typeof rankingOf>; testsLast: boolean },
): { candidates: Placed[]; ranked: boolean } {
  const { ranking } = order;
  const unranked = () => ({
    candidates: order.testsLast ? testsLast(candidates) : [...candidates],
    ranked: false,
  });
  if (ranking === null) return unranked();
  // By rank: 0 and 1 the definitions (whole name first), 2 and 3 the file names, 4 the rest;
  // then the same for test and generated files when they come last.
  const ranks: Placed[][] = Array.from({ length: 2 * LATER }, () => []);
  let rest = 0;
  for (const candidate of candidates) {
    const defines = ranking.defining.get(candidate.path);
    const tier: SearchTier = defines ? 0 : ranking.namedLike(candidate.path) ? 1 : 2;
    const rank = rankOf({ path: candidate.path, tier }, ranking, order.testsLast);
    ranks[rank].push({ ...candidate, tier, rank, ...(defines ? { defines } : {}) });
    if (tier === 2) rest++;
  }
  if (rest === candidates.length) return unranked();
  return { candidates: ranks.flat(), ranked: true };
}

/** Orders places: by rank (or tier) when both are ranked, then by path. */
export function comparePlaces(
  a: { path: string; tier?: SearchTier; rank?: number },
  b: { path: string; tier?: SearchTier; rank?: number },
): number {
  const rank = (place: typeof a) => place.rank ?? 2 * (place.tier ?? 2);
  return (rank(a) - rank(b)) || comparePaths(a.path, b.path);
}

// What each restriction of a search that found nothing left: the files in
// its scope counted once per scope (`filesInScope`), the files holding its
// literals in any case being its own candidates (postings fold case); for a
// case-sensitive search whose literals some files hold, whether the same
// search ignoring case matches one of those files (it stops at the first).
async function narrowingOf(
  index: IndexedCommit,
  found: { search: CompiledSearch; candidates: readonly Placed[]; scanner?: ChunkScanner },
): Promise<Narrowing> {
  const { search } = found;
  const scoped = { paths: search.pathTrigrams, keep: search.keep, groups: search.groups };
  const inScope = index.filesInScope({
    ...scoped,
    key: JSON.stringify([search.paths, search.globs, search.groups]),
  });
  const holdingTrigrams = search.trigrams.op === "all" ? null : found.candidates.length;
  let ignoreCaseMatches: boolean | null = null;
  if (!search.ignoreCase && holdingTrigrams !== null && holdingTrigrams > 0) {
    const caseless = compileSearch({
      ...search.request,
      ignoreCase: true,
      maxFiles: 1,
      maxLinesPerFile: 1,
    });
    // Folded postings give both the same trigrams, unless folding beyond ASCII differs.
    const candidates = sameQuery(caseless.trigrams, search.trigrams)
      ? found.candidates
      : index.candidates(caseless.trigrams, scoped);
    const texts = fromIndex(index, {
      candidates,
      finder: caseless.finder,
      scanner: found.scanner,
    });
    const confirmed = await verify(texts, { search: caseless, after: null, index: "ready" });
    ignoreCaseMatches = confirmed.fileCount > 0;
  }
  // Under path groups, the commit's files are those the caller may see.
  const filesAtCommit = index.filesWithin(search.groups);
  return { filesAtCommit, inScope, holdingTrigrams, ignoreCaseMatches };
}

function sameQuery(a: TrigramQuery, b: TrigramQuery): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

// A candidate's entry before its lines are verified (its place kept when ranked).
function noMatchesYet(
  candidate: { path: string; tier?: SearchTier; rank?: number; defines?: string[] },
): FileMatches {
  const { path, tier, rank, defines } = candidate;
  const found: FileMatches = { path, lines: [], matchCount: 0 };
  if (defines) found.defines = defines;
  if (tier !== undefined) found.tier = tier;
  if (rank !== undefined) found.rank = rank;
  return found;
}

interface VerifyOptions {
  search: CompiledSearch;
  index: IndexUse;
  /** Where the search continues (a ranked place with its rank), or null from the start. */
  after: (SearchPosition & { rank?: number }) | null;
  /** Told when the lines kept pass the bytes a page can show. */
  page?: PageFill;
}

// Whether a search's page is full: no line of a later file is shown, only counted.
interface PageFill {
  full: boolean;
}

// Every candidate's lines tested with the compiled program, within the file,
// match and time caps.
async function verify(
  texts: Candidates,
  at: VerifyOptions,
): Promise<SearchOutcome> {
  const outcome: SearchOutcome = {
    files: [],
    fileCount: 0,
    matchCount: 0,
    truncated: false,
    partial: false,
    index: at.index,
  };
  const deadline = performance.now() + at.search.maxMs;
  const { after } = at;
  // Bytes of the lines kept so far, each as its row shows at least (`lineBytes`).
  let shownBytes = 0;
  for await (const candidate of texts) {
    const { path, tier, rank } = candidate;
    const order = after === null ? 1 : comparePlaces({ path, tier, rank }, after);
    if (order < 0 || (order === 0 && after!.line === null)) continue;
    if (
      outcome.fileCount >= Math.min(at.search.maxFiles, SEARCH_MAX_FILES) ||
      outcome.matchCount >= SEARCH_MAX_MATCHES
    ) {
      outcome.truncated = true;
      break;
    }
    if (performance.now() >= deadline) {
      outcome.partial = true;
      outcome.truncated = true;
      break;
    }
    const { found, capped } = fileMatches(candidate, {
      search: at.search,
      fromLine: order === 0 ? after!.line! + 1 : 1,
      room: SEARCH_MAX_MATCHES - outcome.matchCount,
      show: shownBytes <= at.search.lineBytes,
    });
    if (capped) outcome.truncated = true; // the match cap applies inside one file too
    if (found.matchCount === 0) continue;
    for (const line of found.lines) shownBytes += Math.min(line.text.length, SHOWN_LINE_BYTES) + 1;
    if (at.page && shownBytes > at.search.lineBytes) at.page.full = true;
    outcome.files.push(found);
    outcome.fileCount++;
    outcome.matchCount += found.matchCount;
  }
  return outcome;
}

// One candidate's matching lines from `fromLine` on, at most `room` of them
// (`capped` when more were left). A line's number and text are read only
// when needed: past the lines a file shows (none unless `show`: its page is
// full before it), a proven line is only counted.
function fileMatches(
  candidate: CandidateFile,
  at: { search: CompiledSearch; fromLine: number; room: number; show: boolean },
): { found: FileMatches; capped: boolean } {
  const { search, fromLine, room } = at;
  const maxLines = at.show ? search.maxLinesPerFile : 0;
  const pattern = search.regex;
  // A line the finder gave already holds a match: RE2 would only say so again
  // (the common and ignore-case literals: 2.4 and 4.2 of about 30 processor-ms
  // on the deno tree's 7,200 matching lines).
  const proven = search.finderMatches && search.finder !== null;
  const found = noMatchesYet(candidate);
  if (maxLines === 0 && proven && fromLine === 1 && candidate.countLines !== undefined) {
    // No line is kept: the count alone (a worker's), without reading the lines.
    const count = candidate.countLines(room + 1);
    found.matchCount = Math.min(count, room);
    return { found, capped: count > room };
  }
  for (const line of candidate.lines) {
    if (fromLine > 1 && line.number < fromLine) continue;
    if (!proven && !pattern.test(line.text)) continue;
    if (found.matchCount >= room) return { found, capped: true };
    found.matchCount++;
    if (found.lines.length >= maxLines) continue;
    const { number } = line;
    const text = ownCopy(line.text);
    found.lines.push(
      search.matchRanges ? { number, text, ranges: matchRanges(pattern, text) } : { number, text },
    );
  }
  return { found, capped: false };
}

// A line of its own: a line cut from a chunk's text is a V8 slice, which
// keeps the whole chunk alive while it lives, so the young-generation
// collections during a search that keeps many lines copied their chunks
// (15-30 ms each, every other search of a literal in 1,000 files of
// duckdb's tree: p50 44 ms in process); with copies they took about 5 ms
// (p50 25-28 ms). (`slice` flattens the string `" " + line` into a new one.)
function ownCopy(line: string): string {
  return (" " + line).slice(1);
}

// Where the program matches in `line`, left to right, at most MAX_RANGES
// (an empty match is skipped: nothing to mark).
function matchRanges(pattern: CompiledSearch["regex"], line: string): [number, number][] {
  const ranges: [number, number][] = [];
  const matcher = pattern.matcher(line);
  let from = 0;
  while (ranges.length < MAX_RANGES && from <= line.length && matcher.find(from)) {
    const start = matcher.start();
    const end = matcher.end();
    if (end > start) ranges.push([start, end]);
    from = end > start ? end : end + 1;
  }
  return ranges;
}

const MAX_RANGES = 100;

// A candidate file: its place and the lines that may match, in order (each read before the next).
interface CandidateFile {
  path: string;
  lines: Iterable<CandidateLine>;
  /** How many lines `lines` would give, at most `limit` (when known without reading them). */
  countLines?: (limit: number) => number;
  tier?: SearchTier;
  rank?: number;
  defines?: string[];
}

type Candidates = AsyncIterable<CandidateFile>;

/** Fewest files a search must want for the workers to read its chunks. */
export const SCAN_MIN_FILES = 32;
// Batches a search asks the workers for ahead of the one it checks, and the chunks of one.
const SCAN_AHEAD = 4;
const SCAN_JOB_CHUNKS = 4 * CHUNK_BATCH;

// Each candidate chunk is decoded and its lines found; numbers count from
// the chunk's first line. Chunks are read for several candidates at once
// (`CHUNK_BATCH`, a candidate with more chunks on its own), by the scanning
// workers when the search reads many (a batch a worker could not read is
// read here).
async function* fromIndex(
  index: IndexedCommit,
  options: {
    candidates: readonly Placed[];
    finder: LineFinder;
    scanner?: ChunkScanner;
    /** Most files the search wants (default: all of them). */
    maxFiles?: number;
    /** Given when every line the finder gives matches: past a full page, lines are counted. */
    counted?: PageFill;
  },
): Candidates {
  const { candidates, finder } = options;
  const chunks = candidates.reduce((sum, candidate) => sum + candidate.chunks.length, 0);
  // Without a finder every line would cross from the worker: RE2 on this
  // thread is the cost then. A search that wants few files (a ranking probe
  // across repositories wants one) ends long before the batches sent to the
  // workers ahead are back.
  const scanner = options.scanner?.available && chunks >= options.scanner.minChunks &&
      finder !== null && (options.maxFiles ?? Infinity) >= SCAN_MIN_FILES
    ? options.scanner
    : null;
  const groups = chunkGroups(candidates, scanner === null ? CHUNK_BATCH : SCAN_JOB_CHUNKS);
  const ids = ([start, end]: [number, number]) =>
    candidates.slice(start, end).flatMap((candidate) => candidate.chunks.map((c) => c.id));
  // A worker counts the last files' lines meanwhile (of a full page's files only counts count).
  const tail = scanner === null && finder !== null && options.counted !== undefined
    ? countedTail(index, { candidates, groups, finder, counter: options.scanner })
    : null;
  const ahead: Promise<ScannedLines>[] = [];
  for (let g = 0; g < groups.length; g++) {
    if (tail !== null && groups[g][0] === tail.from) {
      yield* countedFiles(index, {
        candidates,
        batches: groups.slice(g),
        tail,
        finder: finder!,
        page: options.counted!,
      });
      return;
    }
    while (scanner !== null && ahead.length < SCAN_AHEAD && g + ahead.length < groups.length) {
      ahead.push(scanner.scan(index.database, ids(groups[g + ahead.length]), finder));
    }
    const scanned = scanner === null ? null : await ahead.shift()!;
    const texts = scanned === null ? index.chunkTexts(ids(groups[g])) : null;
    for (const candidate of candidates.slice(...groups[g])) {
      yield {
        path: candidate.path,
        lines: scanned !== null
          ? scannedLines(candidate, scanned)
          : chunkLines(candidate, { texts: texts!, finder }),
        tier: candidate.tier,
        rank: candidate.rank,
        defines: candidate.defines,
      };
    }
  }
}

// The last candidates (from `from`), counted by a worker.
interface CountedTail {
  from: number;
  counts: Promise<number[] | null>;
}

// The candidates past about half of the chunks, for a worker to count while the search reads
// the first half (null when too few, or no worker).
function countedTail(
  index: IndexedCommit,
  options: {
    candidates: readonly Placed[];
    /** The batches the search reads (`chunkGroups` with CHUNK_BATCH). */
    groups: readonly [number, number][];
    finder: NonNullable<LineFinder>;
    counter?: ChunkScanner;
  },
): CountedTail | null {
  const { candidates, groups, finder, counter } = options;
  if (counter === undefined || !counter.counting) return null;
  let chunks = 0;
  for (const candidate of candidates) chunks += candidate.chunks.length;
  if (chunks < counter.minCountChunks) return null;
  // The tail starts at the batch whose chunks before it are nearest half.
  let from = -1;
  let nearest = Infinity;
  let read = 0;
  for (const [start, end] of groups) {
    if (start > 0 && Math.abs(read - chunks / 2) < nearest) {
      from = start;
      nearest = Math.abs(read - chunks / 2);
    }
    for (let i = start; i < end; i++) read += candidates[i].chunks.length;
  }
  if (from === -1) return null;
  const files = candidates.slice(from).map((candidate) => candidate.chunks.map((c) => c.id));
  const counts = counter.count(index.database, {
    files,
    finder,
    limit: SEARCH_MAX_MATCHES + 1,
  }).catch(() => null);
  return { from, counts };
}

// The last candidates (`tail.from` on, in `batches`): while the page is not full, each read for
// its lines (a batch's chunks at once, when the first of its files needs them); once it is, each
// with the worker's count, unless the worker could not count them.
async function* countedFiles(
  index: IndexedCommit,
  options: {
    candidates: readonly Placed[];
    batches: readonly [number, number][];
    tail: CountedTail;
    finder: NonNullable<LineFinder>;
    page: PageFill;
  },
): Candidates {
  const { candidates, tail, finder, page } = options;
  let counts: number[] | null | undefined;
  for (const [start, end] of options.batches) {
    let texts: Map<number, string> | undefined;
    const read = () =>
      texts ??= index.chunkTexts(
        candidates.slice(start, end).flatMap((candidate) => candidate.chunks.map((c) => c.id)),
      );
    for (let i = start; i < end; i++) {
      const candidate = candidates[i];
      if (page.full && counts === undefined) counts = await tail.counts;
      const count = page.full ? counts?.[i - tail.from] : undefined;
      yield {
        path: candidate.path,
        lines: unreadLines({ candidate, finder, read }),
        ...(count === undefined ? {} : { countLines: (limit: number) => Math.min(count, limit) }),
        tier: candidate.tier,
        rank: candidate.rank,
        defines: candidate.defines,
      };
    }
  }
}

// A candidate's lines, its batch's chunks read (`read`) only once they are iterated.
function* unreadLines(
  at: { candidate: Candidate; finder: LineFinder; read: () => Map<number, string> },
): Generator<CandidateLine> {
  yield* chunkLines(at.candidate, { texts: at.read(), finder: at.finder });
}

// The candidates in runs whose chunks fit `size` ([start, end) indexes).
function chunkGroups(candidates: readonly Candidate[], size: number): [number, number][] {
  const groups: [number, number][] = [];
  for (let start = 0; start < candidates.length;) {
    let end = start + 1;
    let count = candidates[start].chunks.length;
    while (end < candidates.length && count + candidates[end].chunks.length <= size) {
      count += candidates[end++].chunks.length;
    }
    groups.push([start, end]);
    start = end;
  }
  return groups;
}

function* scannedLines(
  candidate: Candidate,
  scanned: Map<number, [number, string][]>,
): Generator<CandidateLine> {
  for (const chunk of candidate.chunks) {
    for (const [number, text] of scanned.get(chunk.id) ?? []) {
      yield { number: chunk.line + number, text };
    }
  }
}

// Each chunk's lines, numbered after the lines before it (one cursor a chunk, yielded as it moves).
function* chunkLines(
  candidate: Candidate,
  read: { texts: Map<number, string>; finder: LineFinder },
): Generator<CandidateLine> {
  for (const chunk of candidate.chunks) {
    const text = read.texts.get(chunk.id);
    if (text !== undefined) yield* candidateLines(text, read.finder, chunk.line);
  }
}

// The lines of `text` that may match, numbered after `before` lines (one cursor, yielded as it
// moves: each is read before the next).
function* candidateLines(
  text: string,
  finder: LineFinder,
  before: number,
): Generator<CandidateLine> {
  const lines = new CandidateLines(text, finder, before);
  while (lines.next()) yield lines;
}

// Blobs read per round trip to Git, at first and at most: a search that stops at its first files
// reads few ahead, one that reads every file pays a round trip per `FROM_GIT_MOST` blobs, not
// two per blob. Reading all 1,025 files of the index parity corpus on the 2-core AMD EPYC VM
// (24 GiB, load average 23-25): 360-520 -> 116-166 processor-ms in the service, 1.7-3.1 ->
// 0.6-1.8 s (with Git's answers buffered, `GitObjectReader`).
const FROM_GIT_FIRST = 4;
const FROM_GIT_MOST = 64;

async function* fromGit(
  tree: MirrorObjects,
  options: { commit: string; paths: string[]; finder: LineFinder; rank?: (path: string) => number },
): Candidates {
  const { paths } = options;
  for (let start = 0, size = FROM_GIT_FIRST; start < paths.length; start += size, size *= 2) {
    size = Math.min(size, FROM_GIT_MOST);
    const files: { path: string; oid: string }[] = [];
    for (const path of paths.slice(start, start + size)) {
      const entry = await tree.lookup(options.commit, path);
      if (entry?.kind === "file") files.push({ path, oid: entry.oid });
    }
    const blobs = await tree.blobs(files.map((file) => file.oid), READ_SCAN_LIMIT);
    for (const [i, { path }] of files.entries()) {
      const text = blobs[i] === null ? null : searchableText(blobs[i]);
      // Binary and non-UTF-8 files are skipped, as indexed.
      if (text === null) continue;
      const lines = candidateLines(text, options.finder, 0);
      yield options.rank === undefined
        ? { path, lines }
        : { path, lines, rank: options.rank(path) };
    }
  }
}

async function candidateFiles(
  mirror: string,
  commit: string,
  literals: readonly string[] | null,
  ignoreCase: boolean,
  pathspecs: string[],
): Promise<string[]> {
  if (literals === null) {
    return (await commitPaths(mirror, { commit, pathspecs })).sort(comparePaths);
  }
  const out = await runGit([
    "--literal-pathspecs",
    "grep",
    // Git greps a commit on one thread unless told otherwise.
    `--threads=${GREP_THREADS}`,
    "-l",
    "-z",
    "-I",
    "-F",
    ...(ignoreCase ? ["-i"] : []),
    ...literals.flatMap((literal) => ["-e", literal]),
    commit,
    "--",
    ...pathspecs,
  ], { cwd: mirror, okExitCodes: [0, 1], maxStdoutBytes: 64 * 1024 * 1024, timeoutMs: 30_000 });
  const prefix = `${commit}:`;
  return new TextDecoder().decode(out.stdout).split("\0").filter((name) => name !== "")
    .map((name) => name.startsWith(prefix) ? name.slice(prefix.length) : name).sort(comparePaths);
}
