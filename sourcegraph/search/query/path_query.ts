/**
 * The trigrams the paths of a search's scope require: a file under one of
 * the `paths` roots contains that root, and with include globs a kept file
 * matches one of them, so it contains every literal run of that glob. Runs
 * are taken only between wildcards, classes and separators, and a glob
 * with braces, groups or escapes counts as having none: the result only
 * narrows, the glob filter itself still decides.
 *
 * @module
 */

import { literalTrigrams, type TrigramQuery } from "../index/trigrams.ts";
import { allOf, anyOf, boundedQuery } from "./trigram_query.ts";

/** The path query of a search scope (`all` when nothing narrows it). */
export function pathQuery(
  scope: { paths: readonly string[]; globs: readonly string[] },
): TrigramQuery {
  const includes = scope.globs.filter((glob) => !glob.startsWith("!"));
  return boundedQuery(allOf([
    anyOf(scope.paths.map((root) => ofLiterals([root]))),
    anyOf(includes.map((glob) => ofLiterals(globLiterals(glob)))),
  ]));
}

/** The literal runs every path a glob matches contains ([] when none is known). */
export function globLiterals(glob: string): string[] {
  if (/[{}()\\]/.test(glob)) return [];
  return glob.replace(/\[[^\]]*\]?/g, "/").split(/[*?/!+@]+/).filter((run) => run.length >= 3);
}

function ofLiterals(literals: readonly string[]): TrigramQuery {
  const trigrams = literals.flatMap((literal) =>
    literalTrigrams(literal, { ignoreCase: false }) ?? []
  );
  return allOf(trigrams.map((trigram) => ({ op: "trigram", trigram })));
}
