/**
 * What a search pattern requires of a matching line, read from re2js's own
 * prefilter: the literals every match must contain, derived from the
 * parsed and simplified expression (concatenations become AND,
 * alternations OR). The prefilter is read from re2js 2.10's compiled
 * program (`re2().prefilter`, typed but undocumented); the version is
 * pinned and a test covers the shape.
 *
 * @module
 */

import { RE2JS } from "re2js";

/** One node of the prefilter. */
export interface Prefilter {
  type: number;
  subs: Prefilter[];
  str: string;
}
/** Prefilter node types. */
export const PREFILTER = { exact: 1, and: 2, or: 3 } as const;

/** Most literals one search looks for per line. */
export const MAX_LITERALS = 32;

/**
 * The prefilter of a program, or of `pattern` compiled without the case
 * flag (a fold happens where the literals are used, so they keep their
 * shape); null when nothing is required or the pattern does not compile.
 */
export function patternPrefilter(pattern: string | RE2JS): Prefilter | null {
  try {
    const program = typeof pattern === "string" ? RE2JS.compile(pattern) : pattern;
    return (program.re2() as unknown as { prefilter: Prefilter | null }).prefilter;
  } catch {
    return null; // the caller's compile reports the syntax error
  }
}

/**
 * Literals one of which every match contains (the longest such set the
 * prefilter names, at most `MAX_LITERALS`), or null when none is known.
 */
export function requiredLiterals(
  request: { pattern: string; fixedStrings?: boolean },
): string[] | null {
  if (request.fixedStrings) return [request.pattern];
  const prefilter = patternPrefilter(request.pattern);
  return prefilter === null ? null : literalsOf(prefilter);
}

/**
 * Literals one of which every match of `node` contains: an AND's best part
 * (the one whose shortest literal is longest), all of an OR's parts (at most
 * `MAX_LITERALS`); null when none is known.
 */
export function literalsOf(node: Prefilter): string[] | null {
  switch (node.type) {
    case PREFILTER.exact:
      return node.str.length > 0 ? [node.str] : null;
    case PREFILTER.and: {
      let best: string[] | null = null;
      for (const sub of node.subs) {
        const literals = literalsOf(sub);
        if (literals !== null && (best === null || shortest(literals) > shortest(best))) {
          best = literals;
        }
      }
      return best;
    }
    case PREFILTER.or: {
      const all: string[] = [];
      for (const sub of node.subs) {
        const literals = literalsOf(sub);
        if (literals === null) return null;
        all.push(...literals);
      }
      const distinct = [...new Set(all)];
      return distinct.length <= MAX_LITERALS ? distinct : null;
    }
    default:
      return null;
  }
}

function shortest(literals: readonly string[]): number {
  return Math.min(...literals.map((literal) => literal.length));
}
