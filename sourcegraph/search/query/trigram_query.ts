/**
 * The trigrams a pattern requires. For a regular expression, re2js's own
 * prefilter (`pattern_literals.ts`) is turned into trigram sets; a fixed
 * string is one literal. Anything that yields no trigram is `all`: every
 * file is a candidate. Queries are bounded: past `MAX_QUERY_TRIGRAMS`
 * lookups an OR degrades to `all`.
 *
 * @module
 */

import { patternPrefilter, PREFILTER, type Prefilter } from "./pattern_literals.ts";
import { literalTrigrams, type TrigramQuery } from "../index/trigrams.ts";

/** Most posting lists one query reads. */
export const MAX_QUERY_TRIGRAMS = 256;
const ALL: TrigramQuery = { op: "all" };

/** The trigram query of a search pattern (compiling it: a search reads its compiled one). */
export function trigramQuery(
  pattern: string,
  options: { fixedStrings: boolean; ignoreCase: boolean },
): TrigramQuery {
  return options.fixedStrings
    ? fixedQuery(pattern, options)
    : prefilterQuery(patternPrefilter(pattern), options);
}

/** The trigram query of a fixed string. */
export function fixedQuery(text: string, options: { ignoreCase: boolean }): TrigramQuery {
  return boundedQuery(literal(text, options.ignoreCase));
}

/** The trigram query of a pattern's prefilter (`all` without one). */
export function prefilterQuery(
  prefilter: Prefilter | null,
  options: { ignoreCase: boolean },
): TrigramQuery {
  return prefilter === null ? ALL : boundedQuery(fromPrefilter(prefilter, options.ignoreCase));
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
    case PREFILTER.exact:
      return literal(prefilter.str, ignoreCase);
    case PREFILTER.and:
      return allOf(prefilter.subs.map((sub) => fromPrefilter(sub, ignoreCase)));
    case PREFILTER.or:
      return anyOf(prefilter.subs.map((sub) => fromPrefilter(sub, ignoreCase)));
    default:
      return ALL;
  }
}

function literal(text: string, ignoreCase: boolean): TrigramQuery {
  const trigrams = literalTrigrams(text, { ignoreCase });
  if (trigrams === null) return ALL;
  return allOf(trigrams.map((trigram) => ({ op: "trigram", trigram })));
}

/** The query every part of which must hold (`all` parts dropped). */
export function allOf(subs: TrigramQuery[]): TrigramQuery {
  const kept = subs.flatMap((sub) => sub.op === "and" ? sub.subs : sub.op === "all" ? [] : [sub]);
  if (kept.length === 0) return ALL;
  return kept.length === 1 ? kept[0] : { op: "and", subs: kept };
}

/** The query one part of which must hold (`all` when a part is `all`). */
export function anyOf(subs: TrigramQuery[]): TrigramQuery {
  if (subs.length === 0 || subs.some((sub) => sub.op === "all")) return ALL;
  const kept = subs.flatMap((sub) => sub.op === "or" ? sub.subs : [sub]);
  return kept.length === 1 ? kept[0] : { op: "or", subs: kept };
}

/**
 * `query` within `MAX_QUERY_TRIGRAMS` lookups: an AND keeps its first parts
 * (still required), an OR that does not fit matches everything.
 */
export function boundedQuery(query: TrigramQuery, budget = MAX_QUERY_TRIGRAMS): TrigramQuery {
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
    return allOf(kept);
  }
  return ALL;
}
