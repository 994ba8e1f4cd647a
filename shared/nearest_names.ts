/**
 * The names nearest to one a caller got wrong (a repository, a path, a
 * branch, a tool), so an error can say what does exist. Ranking is by edit
 * distance, caseless, of the last `/`-segment first (a file or repository
 * is usually misspelled, not moved), then of the whole name. The cost stays
 * small on large trees: whole names are compared only for the candidates
 * whose last segments ranked best.
 *
 * @module
 */

// Whole names are compared for this many of the best last segments.
const SHORTLIST = 64;
// Longer segments are compared by their first characters only (bounded cost).
const MAX_COMPARED = 128;

/**
 * Up to `limit` (default 5) names of `candidates` nearest to `query`,
 * nearest first; ties go to the shorter, then the alphabetically first name.
 * With `maxDistance`, only names within that many edits of `query` (whole,
 * caseless) are returned: for a "did you mean" that must be close.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const near = nearestNames("src/mian.ts", ["src/main.ts", "docs/guide.md", "src/lib/main.ts"]);
 * assert.deepStrictEqual(near.slice(0, 2), ["src/main.ts", "src/lib/main.ts"]);
 * assert.deepStrictEqual(nearestNames("raed", ["read", "search"], { maxDistance: 2 }), ["read"]);
 * ```
 */
export function nearestNames(
  query: string,
  candidates: Iterable<string>,
  options: { limit?: number; maxDistance?: number } = {},
): string[] {
  const limit = options.limit ?? 5;
  const wanted = query.toLowerCase();
  const wantedLast = lastSegment(wanted);
  const shortlist: { name: string; last: number }[] = [];
  for (const name of candidates) {
    const last = editDistance(wantedLast, lastSegment(name.toLowerCase()));
    if (shortlist.length === SHORTLIST && last >= shortlist[SHORTLIST - 1].last) continue;
    const at = shortlist.findIndex((entry) => entry.last > last);
    shortlist.splice(at === -1 ? shortlist.length : at, 0, { name, last });
    if (shortlist.length > SHORTLIST) shortlist.pop();
  }
  return shortlist
    .map(({ name, last }) => ({ name, last, whole: editDistance(wanted, name.toLowerCase()) }))
    .filter(({ whole }) => whole <= (options.maxDistance ?? Infinity))
    .sort((a, b) =>
      a.last - b.last || a.whole - b.whole || a.name.length - b.name.length ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
    )
    .slice(0, limit)
    .map(({ name }) => name);
}

function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf("/", name.length - 2) + 1);
}

// Levenshtein distance over UTF-16 units, on at most MAX_COMPARED of each.
function editDistance(a: string, b: string): number {
  const left = a.slice(0, MAX_COMPARED);
  const right = b.slice(0, MAX_COMPARED);
  let previous = Array.from({ length: right.length + 1 }, (_, i) => i);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const substitution = previous[j - 1] + (left[i - 1] === right[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length];
}
