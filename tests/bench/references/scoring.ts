/**
 * Scoring of "find references" and "go to definition" answers against a
 * reference set, at line granularity: two locations agree when they name
 * the same file and line, whatever their columns (a tool that answers with
 * lines, as `git grep -n` does, is judged on what it can say).
 *
 * @example Scoring one identifier's answer
 * ```ts
 * import { scoreReferences } from "./scoring.ts";
 *
 * const truth = [{ path: "a.ts", line: 1, column: 17 }, { path: "b.ts", line: 4, column: 3 }];
 * const answer = [{ path: "a.ts", line: 1, column: 1 }, { path: "c.ts", line: 9, column: 1 }];
 * const score = scoreReferences(truth, answer);
 * if (score.precision !== 0.5 || score.recall !== 0.5) throw new Error(JSON.stringify(score));
 * ```
 *
 * @module
 */

/** A position in a tree: a file path relative to the tree's top, 1-based line and column. */
export interface Location {
  /** Path relative to the tree's top, `/`-separated. */
  path: string;
  /** 1-based line. */
  line: number;
  /** 1-based column, in UTF-16 code units. */
  column: number;
}

/**
 * What the benchmark measures: given a position on an identifier, the
 * locations that refer to the same symbol, and where that symbol is declared.
 */
export interface ReferenceFinder {
  /** A short name for tables. */
  readonly name: string;
  /** Every location that refers to the symbol at `position` (its declaration included). */
  references(position: Location, name: string): Promise<Location[]>;
  /** Where the symbol at `position` is declared, or null when the finder has no answer. */
  definition(position: Location, name: string): Promise<Location | null>;
}

/** One identifier's score at line granularity. */
export interface ReferenceScore {
  /** Distinct true lines (file and line). */
  truthLines: number;
  /** Distinct answered lines. */
  answerLines: number;
  /** Answered lines that are true lines. */
  hits: number;
  /** hits / answerLines; 0 for an empty answer (it helps nobody). */
  precision: number;
  /** hits / truthLines; 1 when there is nothing to find. */
  recall: number;
}

/** The key of a location at line granularity. */
export function lineKey(location: Location): string {
  return `${location.path}:${location.line}`;
}

function lineSet(locations: Location[]): Set<string> {
  return new Set(locations.map(lineKey));
}

/** Precision and recall of `answer` against `truth`, counting distinct (file, line) pairs. */
export function scoreReferences(truth: Location[], answer: Location[]): ReferenceScore {
  const truthSet = lineSet(truth);
  const answerSet = lineSet(answer);
  let hits = 0;
  for (const key of answerSet) if (truthSet.has(key)) hits++;
  return {
    truthLines: truthSet.size,
    answerLines: answerSet.size,
    hits,
    precision: answerSet.size === 0 ? 0 : hits / answerSet.size,
    recall: truthSet.size === 0 ? 1 : hits / truthSet.size,
  };
}

/** The mean precision and recall over identifiers, each counting once whatever its size. */
export function macroAverage(scores: ReferenceScore[]): { precision: number; recall: number } {
  if (scores.length === 0) return { precision: 0, recall: 0 };
  let precision = 0;
  let recall = 0;
  for (const score of scores) {
    precision += score.precision;
    recall += score.recall;
  }
  return { precision: precision / scores.length, recall: recall / scores.length };
}

/** Whether a definition answer names one of the true declarations' lines. */
export function definitionHit(declarations: Location[], answer: Location | null): boolean {
  return answer !== null && lineSet(declarations).has(lineKey(answer));
}

/** The share of true outcomes; 0 when there are none. */
export function share(outcomes: boolean[]): number {
  return outcomes.length === 0 ? 0 : outcomes.filter(Boolean).length / outcomes.length;
}
