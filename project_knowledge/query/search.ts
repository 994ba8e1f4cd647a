/**
 * The search tool: BM25 over the published index, then every candidate's
 * source is re-read, re-checked against the current tracked set and
 * eligibility, and hash-verified before its lines are returned. Excerpts come
 * from the current bytes, never from the cache.
 *
 * @module
 */

import { decodeUtf8Strict, splitLines } from "../../shared/text.ts";
import { analyzeQuery, ftsMatchExpression, queryPhrase } from "../analysis.ts";
import { readCurrentSource } from "../project/current_source.ts";
import { KnowledgeError } from "../errors.ts";
import type { GitState } from "../project/git_state.ts";
import type { IndexReader } from "./index_reader.ts";
import { rebuildRequired } from "../index/index_store.ts";
import { SEARCH_MAX_CANDIDATES } from "../limits.ts";
import { type ProjectRoot, verifyProjectRoot } from "../project/project_root.ts";

/** One verified hit. */
export interface SearchHit {
  path: string;
  start_line: number;
  end_line: number;
  text: string;
  source_hash: string;
  index_revision: string | null;
  observed_revision: string | null;
}

/** What search returns. */
export interface SearchOutcome {
  hits: SearchHit[];
  stale_candidates_omitted: number;
  results_truncated: boolean;
}

/** Options of {@linkcode searchIndex}. */
export interface SearchOptions {
  /** Most hits. */
  limit: number;
  /** Work budget in milliseconds. */
  budgetMs: number;
  /** Whether an outcome still fits the result byte bound. */
  fits: (outcome: SearchOutcome) => boolean;
  /** Most candidates examined: 16,384 unless lowered (tests). */
  maxCandidates?: number;
}

interface Candidate {
  chunk_id: number;
  start_line: number | null;
  end_line: number | null;
  path: string | null;
  source_hash: string | null;
  lines: number | null;
}

type Verdict = { ok: true; lines: string[] } | { ok: false };

/** What search works on. */
export interface SearchTarget {
  root: ProjectRoot;
  reader: IndexReader;
  git: GitState;
}

/** Runs one search. */
export async function searchIndex(
  target: SearchTarget,
  query: string,
  options: SearchOptions,
): Promise<SearchOutcome> {
  const deadline = Date.now() + options.budgetMs;
  verifyProjectRoot(target.root);
  const index = target.reader.current();
  if (index === null) {
    throw new KnowledgeError("index_missing", "no index yet; run index first");
  }
  const outcome: SearchOutcome = {
    hits: [],
    stale_candidates_omitted: 0,
    results_truncated: false,
  };
  const plan = planQuery(index, { terms: analyzeQuery(query), phrase: queryPhrase(query) });
  if (plan.length === 0) return outcome;
  const [tracked, observedRevision] = await Promise.all([
    target.git.trackedSet({ timeoutMs: deadline - Date.now() }),
    target.git.head({ timeoutMs: deadline - Date.now() }),
  ]);
  const indexRevision = index.coverage.revision ?? null;
  const verdicts = new Map<string, Verdict>();
  const maxCandidates = options.maxCandidates ?? SEARCH_MAX_CANDIDATES;
  // Past MAX_HITS_PER_FILE hits of one file, its further hits wait until the
  // candidates run out, so other files that match get the places first.
  const perFile = new Map<string, number>();
  const deferred: SearchHit[] = [];
  const finish = (truncated: boolean): SearchOutcome => {
    while (deferred.length > 0 && outcome.hits.length < options.limit) {
      outcome.hits.push(deferred.shift()!);
      if (!options.fits(outcome)) {
        outcome.hits.pop();
        outcome.results_truncated = true;
        return outcome;
      }
    }
    if (truncated || deferred.length > 0) outcome.results_truncated = true;
    return outcome;
  };
  let examined = 0;
  for (const expression of plan) {
    const statement = index.db.prepare(expression.sql);
    let candidates: Iterable<unknown>;
    try {
      candidates = statement.iterate(expression.match, maxCandidates + 1 - examined);
    } catch {
      throw rebuildRequired("the index cannot be searched");
    }
    for (const row of iterateSafely(candidates)) {
      const candidate = row as Candidate;
      if (examined === maxCandidates || Date.now() >= deadline) return finish(true);
      examined++;
      if (outcome.hits.length === options.limit) {
        return finish(true); // more candidates than requested hits
      }
      const { path, source_hash: hash, start_line: start, end_line: end, lines } = candidate;
      if (path === null || hash === null || start === null || end === null || lines === null) {
        throw rebuildRequired("the index chunks and terms disagree");
      }
      let verdict = verdicts.get(path);
      if (verdict === undefined) {
        verdict = verify(target.root, path, hash, tracked.eligibleSet);
        verdicts.set(path, verdict);
      }
      if (!verdict.ok) {
        outcome.stale_candidates_omitted++;
        continue;
      }
      if (start < 1 || end < start || end > lines || lines !== verdict.lines.length) {
        throw rebuildRequired("the index has invalid line coordinates");
      }
      const hit: SearchHit = {
        path,
        start_line: start,
        end_line: end,
        text: verdict.lines.slice(start - 1, end).join("\n"),
        source_hash: hash,
        index_revision: indexRevision,
        observed_revision: observedRevision,
      };
      const seen = perFile.get(path) ?? 0;
      perFile.set(path, seen + 1);
      if (seen >= MAX_HITS_PER_FILE) {
        if (deferred.length < options.limit) deferred.push(hit);
        continue;
      }
      outcome.hits.push(hit);
      if (!options.fits(outcome)) {
        outcome.hits.pop();
        outcome.results_truncated = true;
        return outcome;
      }
    }
  }
  return finish(false);
}

/** Hits one file takes before other matching files get theirs. */
export const MAX_HITS_PER_FILE = 2;

const CANDIDATES = `
  SELECT t.rowid AS chunk_id, c.start_line, c.end_line, s.path, s.source_hash, s.lines
  FROM chunk_terms AS t
  LEFT JOIN chunks AS c ON c.id = t.rowid
  LEFT JOIN sources AS s ON s.id = c.source_id
  WHERE chunk_terms MATCH ?`;

interface Expression {
  sql: string;
  match: string;
}

/**
 * Plans the candidate queries. First the chunks holding the query's words as
 * a phrase (the identifier `parseHttpRequest` is the phrase `parse http
 * request` followed by `parsehttprequest`, so the query `parse http request`
 * or `HttpRequest` finds it that way), ranked by BM25. Then the rest: FTS5's
 * BM25 gives a term in half or more of all chunks a zero weight (its IDF is
 * clamped to 1e-6), so when rarer terms exist those are ranked first, by BM25
 * over the weighted terms only; chunks matching nothing but zero-weight terms
 * follow in index order (their BM25 scores differ only below 1e-6). A query of
 * zero-weight terms alone is ranked by BM25 over all of them. Terms in no
 * chunk are dropped; a phrase with such a term is not asked.
 */
export function planQuery(
  index: { chunkCount: number; documentFrequency(term: string): number },
  query: { terms: readonly string[]; phrase?: readonly string[] },
): Expression[] {
  const weighted: string[] = [];
  const zeroWeight: string[] = [];
  for (const term of query.terms) {
    const frequency = index.documentFrequency(term);
    if (frequency === 0) continue;
    if (2 * frequency < index.chunkCount) weighted.push(term);
    else zeroWeight.push(term);
  }
  const ranked = (match: string) => ({ sql: `${CANDIDATES} ORDER BY t.rank LIMIT ?`, match });
  const phrase = query.phrase ?? [];
  const asked = phrase.length >= 2 && phrase.every((term) => index.documentFrequency(term) > 0)
    ? `"${phrase.join(" ")}"`
    : null;
  const without = (match: string) => asked === null ? match : `(${match}) NOT ${asked}`;
  const plan: Expression[] = asked === null ? [] : [ranked(asked)];
  if (weighted.length === 0) {
    if (zeroWeight.length > 0) plan.push(ranked(without(ftsMatchExpression(zeroWeight))));
    return plan;
  }
  plan.push(ranked(without(ftsMatchExpression(weighted))));
  if (zeroWeight.length > 0) {
    plan.push({
      sql: `${CANDIDATES} ORDER BY t.rowid LIMIT ?`,
      match: without(`(${ftsMatchExpression(zeroWeight)}) NOT (${ftsMatchExpression(weighted)})`),
    });
  }
  return plan;
}

function* iterateSafely(rows: Iterable<unknown>): Generator<unknown> {
  const iterator = rows[Symbol.iterator]();
  while (true) {
    let step: IteratorResult<unknown>;
    try {
      step = iterator.next();
    } catch {
      throw rebuildRequired("the index cannot be searched");
    }
    if (step.done) return;
    yield step.value;
  }
}

function verify(
  root: ProjectRoot,
  path: string,
  hash: string,
  eligible: ReadonlySet<string>,
): Verdict {
  if (!eligible.has(path)) return { ok: false };
  // Bytes that still hash as indexed passed the content rules when indexed.
  const current = readCurrentSource(root, path, { unchangedHash: hash });
  if (!current.ok || !("unchanged" in current)) return { ok: false };
  const text = decodeUtf8Strict(current.content);
  return text === null ? { ok: false } : { ok: true, lines: splitLines(text) };
}
