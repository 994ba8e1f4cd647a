/**
 * The trigrams a pattern requires. For a regular expression, re2js's own
 * prefilter (the literals every match must contain, derived from the parsed
 * and simplified expression: concatenations become AND, alternations OR) is
 * turned into trigram sets; a fixed string is one literal. Anything that
 * yields no trigram is `all`: every file is a candidate. Queries are
 * bounded: past `MAX_QUERY_TRIGRAMS` lookups an OR degrades to `all`.
 *
 * The prefilter is read from re2js 2.10's compiled program (`re2().prefilter`,
 * typed but undocumented); the version is pinned and a test covers the shape.
 *
 * @module
 */

import { RE2JS } from "re2js";
import { literalTrigrams } from "./trigrams.ts";

/** Which files may match. */
export type TrigramQuery =
  | { op: "all" }
  | { op: "trigram"; trigram: number }
  | { op: "and"; subs: TrigramQuery[] }
  | { op: "or"; subs: TrigramQuery[] };

/** Most posting lists one query reads. */
export const MAX_QUERY_TRIGRAMS = 256;
const ALL: TrigramQuery = { op: "all" };

interface Prefilter {
  type: number;
  subs: Prefilter[];
  str: string;
}
const EXACT = 1;
const AND = 2;
const OR = 3;

/** The trigram query of a search pattern. */
export function trigramQuery(
  pattern: string,
  options: { fixedStrings: boolean; ignoreCase: boolean },
): TrigramQuery {
  const ignoreCase = options.ignoreCase;
  if (options.fixedStrings) return bounded(literal(pattern, ignoreCase));
  let prefilter: Prefilter | null;
  try {
    // Compiled without the case flag: the fold happens in the trigrams, so
    // the literals keep their shape (a folded literal has no prefilter).
    prefilter = (RE2JS.compile(pattern).re2() as unknown as { prefilter: Prefilter | null })
      .prefilter;
  } catch {
    return ALL; // the caller's compile reports the syntax error
  }
  return prefilter === null ? ALL : bounded(fromPrefilter(prefilter, ignoreCase));
}

/** How many posting lists `query` reads. */
export function lookups(query: TrigramQuery): number {
  switch (query.op) {
    case "all":
      return 0;
    case "trigram":
      return 1;
    default:
      return query.subs.reduce((sum, sub) => sum + lookups(sub), 0);
  }
}

function fromPrefilter(prefilter: Prefilter, ignoreCase: boolean): TrigramQuery {
  switch (prefilter.type) {
    case EXACT:
      return literal(prefilter.str, ignoreCase);
    case AND:
      return and(prefilter.subs.map((sub) => fromPrefilter(sub, ignoreCase)));
    case OR:
      return or(prefilter.subs.map((sub) => fromPrefilter(sub, ignoreCase)));
    default:
      return ALL;
  }
}

function literal(text: string, ignoreCase: boolean): TrigramQuery {
  const trigrams = literalTrigrams(text, { ignoreCase });
  if (trigrams === null) return ALL;
  return and(trigrams.map((trigram) => ({ op: "trigram", trigram })));
}

function and(subs: TrigramQuery[]): TrigramQuery {
  const kept = subs.flatMap((sub) => sub.op === "and" ? sub.subs : sub.op === "all" ? [] : [sub]);
  if (kept.length === 0) return ALL;
  return kept.length === 1 ? kept[0] : { op: "and", subs: kept };
}

function or(subs: TrigramQuery[]): TrigramQuery {
  if (subs.length === 0 || subs.some((sub) => sub.op === "all")) return ALL;
  const kept = subs.flatMap((sub) => sub.op === "or" ? sub.subs : [sub]);
  return kept.length === 1 ? kept[0] : { op: "or", subs: kept };
}

// Keeps a query within MAX_QUERY_TRIGRAMS lookups: an AND keeps its first
// parts (still required), an OR that does not fit matches everything.
function bounded(query: TrigramQuery, budget = MAX_QUERY_TRIGRAMS): TrigramQuery {
  if (lookups(query) <= budget) return query;
  if (query.op === "and") {
    const kept: TrigramQuery[] = [];
    let left = budget;
    for (const sub of query.subs) {
      const cost = lookups(sub);
      if (cost <= left) {
        kept.push(sub);
        left -= cost;
      }
    }
    return and(kept);
  }
  return ALL;
}
