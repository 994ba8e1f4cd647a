/**
 * Warnings for `SOURCEGRAPH_*` variables that are set but name no setting (a
 * misspelled `SOURCEGRAPH_SYNC_MINUTE` would otherwise be ignored without a
 * word). With the whole environment visible (`--allow-env` without a list)
 * every unknown name is reported. The start command grants only
 * `--allow-env=SOURCEGRAPH_*,PATH`, under which Deno refuses to list
 * variables but answers any single `SOURCEGRAPH_*` name, so there every name
 * one edit (a letter left out, added, changed, or two swapped) away from a
 * known one is looked up instead: about 60,000 lookups, 60-90 ms of
 * processor time once at start on the 2-core AMD EPYC VM, 24 GiB.
 *
 * @module
 */

const PREFIX = "SOURCEGRAPH_";
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";

/**
 * One line per set variable that starts with `SOURCEGRAPH_` but is not in
 * `known`, naming the nearest known name.
 *
 * @param known Every setting name the service reads.
 * @param options `present`: the names of every environment variable, when
 *   they can be listed; otherwise `read` is asked about near misses.
 * @returns Warning lines, sorted.
 */
export function unknownSettingWarnings(
  known: ReadonlySet<string>,
  options: { present?: readonly string[]; read: (name: string) => string | undefined },
): string[] {
  const unknown = new Set<string>();
  if (options.present !== undefined) {
    for (const name of options.present) {
      if (name.startsWith(PREFIX) && !known.has(name)) unknown.add(name);
    }
  } else {
    // Asked first: nearly every variant is unset, and hashing each new name for the sets
    // costs more than the lookup.
    const look = (variant: string): void => {
      if (options.read(variant) !== undefined && !known.has(variant)) unknown.add(variant);
    };
    for (const name of known) nearMisses(name, look);
  }
  return [...unknown].sort().map((name) => {
    const nearest = nearestName(name, known);
    const hint = nearest === null ? "" : ` (did you mean ${nearest}?)`;
    return `warning: ${name} is not a setting${hint}; it is ignored`;
  });
}

// Hands `look` every name one edit from `name` that keeps the prefix (a callback, not a
// generator: the start runs this once, cold, and a generator's steps cost more than the lookups).
function nearMisses(name: string, look: (variant: string) => void): void {
  const tail = name.slice(PREFIX.length);
  for (let i = 0; i <= tail.length; i++) {
    const before = PREFIX + tail.slice(0, i);
    const after = tail.slice(i);
    const rest = after.slice(1);
    if (i < tail.length) look(before + rest);
    if (i + 1 < tail.length) look(before + after[1] + after[0] + after.slice(2));
    for (let k = 0; k < ALPHABET.length; k++) {
      const letter = ALPHABET[k];
      look(before + letter + after);
      if (i < tail.length && letter !== after[0]) look(before + letter + rest);
    }
  }
}

function nearestName(name: string, known: ReadonlySet<string>): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  // A name that shares little with every setting gets no suggestion.
  return bestDistance <= Math.max(2, Math.floor(name.length / 4)) ? best : null;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}
