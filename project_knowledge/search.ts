/**
 * The search tool: BM25 over the published index, then every candidate's
 * source is re-read, re-checked against the current tracked set and
 * eligibility, and hash-verified before its lines are returned. Excerpts come
 * from the current bytes, never from the cache.
 *
 * @module
 */

import { splitLines } from "../shared/text.ts";
import { analyzeQuery, ftsMatchExpression } from "./analysis.ts";
import { type CacheDir, publishedIndexExists } from "./cache_dir.ts";
import { readCurrentSource } from "./current_source.ts";
import { KnowledgeError } from "./errors.ts";
import { openIndex, rebuildRequired } from "./index_store.ts";
import { SEARCH_MAX_CANDIDATES } from "./limits.ts";
import { type ProjectRoot, verifyProjectRoot } from "./project_root.ts";
import { observeHead, observeTrackedSet } from "./tracked_files.ts";

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

/** Runs one search. */
export async function searchIndex(
  target: { root: ProjectRoot; cache: CacheDir; rootHash: string },
  query: string,
  options: SearchOptions,
): Promise<SearchOutcome> {
  const deadline = Date.now() + options.budgetMs;
  verifyProjectRoot(target.root);
  if (!publishedIndexExists(target.cache)) {
    throw new KnowledgeError("index_missing", "no index yet; run index first");
  }
  const index = openIndex(target.cache.indexPath, { readOnly: true, rootHash: target.rootHash });
  try {
    const outcome: SearchOutcome = {
      hits: [],
      stale_candidates_omitted: 0,
      results_truncated: false,
    };
    const terms = analyzeQuery(query);
    if (terms.length === 0) return outcome;
    const [tracked, observedRevision] = await Promise.all([
      observeTrackedSet(target.root.path, { timeoutMs: deadline - Date.now() }),
      observeHead(target.root.path, { timeoutMs: deadline - Date.now() }),
    ]);
    const eligible = new Set(tracked.eligible);
    const indexRevision = index.coverage.revision ?? null;
    const verdicts = new Map<string, Verdict>();
    const statement = index.db.prepare(`
      SELECT t.rowid AS chunk_id, c.start_line, c.end_line, s.path, s.source_hash, s.lines
      FROM chunk_terms AS t
      LEFT JOIN chunks AS c ON c.id = t.rowid
      LEFT JOIN sources AS s ON s.id = c.source_id
      WHERE chunk_terms MATCH ? ORDER BY t.rank LIMIT ?
    `);
    let examined = 0;
    let candidates: Iterable<unknown>;
    try {
      candidates = statement.iterate(ftsMatchExpression(terms), SEARCH_MAX_CANDIDATES + 1);
    } catch {
      throw rebuildRequired("the index cannot be searched");
    }
    for (const row of iterateSafely(candidates)) {
      const candidate = row as Candidate;
      if (examined === SEARCH_MAX_CANDIDATES || Date.now() >= deadline) {
        outcome.results_truncated = true;
        break;
      }
      examined++;
      if (outcome.hits.length === options.limit) {
        outcome.results_truncated = true; // more candidates than requested hits
        break;
      }
      const { path, source_hash: hash, start_line: start, end_line: end, lines } = candidate;
      if (path === null || hash === null || start === null || end === null || lines === null) {
        throw rebuildRequired("the index chunks and terms disagree");
      }
      let verdict = verdicts.get(path);
      if (verdict === undefined) {
        verdict = verify(target.root, path, hash, eligible);
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
      outcome.hits.push(hit);
      if (!options.fits(outcome)) {
        outcome.hits.pop();
        outcome.results_truncated = true;
        break;
      }
    }
    return outcome;
  } finally {
    index.db.close();
  }
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

function verify(root: ProjectRoot, path: string, hash: string, eligible: Set<string>): Verdict {
  if (!eligible.has(path)) return { ok: false };
  const current = readCurrentSource(root, path);
  if (!current.ok || current.hash !== hash) return { ok: false };
  return { ok: true, lines: splitLines(current.text) };
}
