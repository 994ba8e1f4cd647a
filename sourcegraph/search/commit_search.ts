/**
 * A page of the commits of a walk (a log's, or the commits of paths) that
 * match a commit search, newest first, as `git log` would select them:
 *
 * - `message` (`--grep`) and `author` (`--author`, on `Name <email>`) are
 *   RE2 patterns matched line by line in-process on the kept log (the
 *   search's compiled pattern and line finder), both required when both
 *   are given, as Git does;
 * - `since` and `until` compare committer times, as Git does;
 * - `addedOrRemoved` (`-S`, a literal handed to Git) and `changed` (`-G`
 *   with RE2, on the streamed patches) check the remaining commits in
 *   batches that grow from `FIRST_BATCH` commits to `MAX_BATCH`.
 *
 * The page ends at `first` commits, at the end of the walk, or at the
 * deadline (`now` is injected): it says where the next one starts. The
 * commits of a first batch whose check alone takes a whole call's time, and
 * a commit whose patch is past its bound, are named unchecked and passed,
 * so every page moves on.
 *
 * @module
 */

import type { CommitLog } from "../git/commit_log.ts";
import { changedLineCommits, type PatchCheck, pickaxeCommits } from "../git/commit_patches.ts";
import type { HistoryCommit } from "../git/path_history.ts";
import { compileSearch } from "./query/compiled_search.ts";
import { linesToVerify } from "./query/line_candidates.ts";

/** Commits the first patch check of a page is given (each next one twice as many). */
export const FIRST_BATCH = 8;
/** Most commits one patch check is given. */
export const MAX_BATCH = 512;
/** Commits scanned between two looks at the clock. */
const SCAN_STEP = 4096;

/** A compiled line test (RE2). */
export type LineTest = (text: string) => boolean;

/** What a commit must be, compiled. */
export interface CommitFilters {
  message: LineTest | null;
  author: LineTest | null;
  /** Seconds since the epoch, inclusive. */
  since: number | null;
  until: number | null;
  addedOrRemoved: string | null;
  changed: LineTest | null;
}

/** A page of matching commits of one walk. */
export interface CommitsPage {
  commits: HistoryCommit[];
  /** Each shown commit's position in the walk. */
  positions: number[];
  /** Where the next page starts in the walk, or null when the walk is done. */
  next: number | null;
  /** The deadline ended the page. */
  partial: boolean;
  /** Commits passed without being checked (a patch past its bound, or a check past the deadline). */
  unchecked: string[];
}

/**
 * The test of a pattern matched line by line as `search` matches it (RE2,
 * INVALID_PATTERN): a leading `(?i)` folds case with the search's finder.
 */
export function compileLineTest(pattern: string): LineTest {
  const folded = pattern.startsWith("(?i)") && pattern.length > 4;
  const compiled = compileSearch({
    pattern: folded ? pattern.slice(4) : pattern,
    ignoreCase: folded,
  });
  const { regex, finder } = compiled;
  return (text) => {
    if (!text.includes("\n") && finder === null) return regex.matcher(text).find();
    for (const [, line] of linesToVerify(text, finder)) {
      if (regex.matcher(line).find()) return true;
    }
    return false;
  };
}

/** Where and how one page is searched. */
export interface CommitsPageRequest {
  mirror: string;
  /** The commits to go through (null: the log's own order). */
  walk: readonly string[] | null;
  filters: CommitFilters;
  /** The paths a patch is read under (none: all). */
  paths: readonly string[];
  /** The position in the walk to start from. */
  from: number;
  first: number;
  /** When the page ends, on the clock `now`. */
  deadline: number;
  now: () => number;
}

/** The page of `request.walk` (positions in `log`) from `request.from`. */
export async function commitsPage(
  log: CommitLog,
  request: CommitsPageRequest,
): Promise<CommitsPage> {
  const { walk, first, now, deadline } = request;
  const size = walk?.length ?? log.commits.length;
  const at = (k: number) => walk === null ? k : log.index.get(walk[k]) ?? -1;
  const cheap = cheapTest(log, request.filters);
  const patches = patchTest(request);
  const page: CommitsPage = {
    commits: [],
    positions: [],
    next: null,
    partial: false,
    unchecked: [],
  };
  const show = (k: number) => {
    page.commits.push(row(log, at(k)));
    page.positions.push(k);
  };
  let k = request.from;
  let batch = FIRST_BATCH;
  while (k < size && page.commits.length < first) {
    if (now() > deadline) {
      page.partial = true;
      break;
    }
    const want = patches === null ? first - page.commits.length : batch;
    const { candidates, end: j } = scan({ from: k, size, want }, (j) => cheap(at(j)));
    if (patches === null || candidates.length === 0) {
      for (const c of candidates) show(c);
      k = j;
      continue;
    }
    const shas = candidates.map((c) => log.commits[at(c)]);
    const check = await patches(shas, Math.max(0, deadline - now()));
    const reached = showChecked(page, { candidates, shas, check, first, show });
    if (reached > 0) k = candidates[reached - 1] + 1;
    if (check.timedOut) {
      // A first batch that alone took the whole call is passed, named, so the next page moves on.
      if (reached === 0 && k === request.from) {
        page.unchecked.push(...shas);
        k = candidates.at(-1)! + 1;
      }
      page.partial = true;
      break;
    }
    if (reached === candidates.length && page.commits.length < first) k = j;
    batch = Math.min(batch * 2, MAX_BATCH);
  }
  page.next = k < size ? k : null;
  return page;
}

// Shows the matches of a checked batch in order, until the page is full;
// how many of the candidates it went through.
function showChecked(
  page: CommitsPage,
  batch: {
    candidates: number[];
    shas: string[];
    check: PatchCheck;
    first: number;
    show: (k: number) => void;
  },
): number {
  let reached = 0;
  for (const [i, c] of batch.candidates.entries()) {
    const outcome = batch.check.outcomes.get(batch.shas[i]);
    if (outcome === undefined) break;
    reached++;
    if (outcome === "match") batch.show(c);
    if (outcome === "capped") page.unchecked.push(batch.shas[i]);
    if (page.commits.length === batch.first) break;
  }
  return reached;
}

// Up to `want` positions from `from` that pass `test`, looking at most at
// `SCAN_STEP` (the clock is read between two scans); where the scan ended.
function scan(
  range: { from: number; size: number; want: number },
  test: (k: number) => boolean,
): { candidates: number[]; end: number } {
  const candidates: number[] = [];
  let k = range.from;
  for (; k < range.size && candidates.length < range.want && k - range.from < SCAN_STEP; k++) {
    if (test(k)) candidates.push(k);
  }
  return { candidates, end: k };
}

function row(log: CommitLog, i: number): HistoryCommit {
  return {
    commit: log.commits[i],
    authorName: log.authorNames[i],
    authorDate: log.authorDates[i],
    subject: log.subjects[i],
    path: null,
    hunk: null,
  };
}

// The tests that read only the kept log (a position not in it never matches).
function cheapTest(log: CommitLog, filters: CommitFilters): (i: number) => boolean {
  const { message, author, since, until } = filters;
  return (i) => {
    if (i < 0) return false;
    const time = log.committerTimes[i];
    if (since !== null && time < since) return false;
    if (until !== null && time > until) return false;
    if (author !== null && !author(log.authors[i])) return false;
    return message === null || message(log.messages[i]);
  };
}

// The check of some commits' patches, or null when the filters need none.
function patchTest(
  request: { mirror: string; filters: CommitFilters; paths: readonly string[] },
): ((commits: string[], timeoutMs: number) => Promise<PatchCheck>) | null {
  const { mirror, filters, paths } = request;
  const literal = filters.addedOrRemoved;
  if (literal !== null) {
    return (commits, timeoutMs) => pickaxeCommits(mirror, { commits, literal, paths, timeoutMs });
  }
  const test = filters.changed;
  if (test !== null) {
    return (commits, timeoutMs) => changedLineCommits(mirror, { commits, test, paths, timeoutMs });
  }
  return null;
}
