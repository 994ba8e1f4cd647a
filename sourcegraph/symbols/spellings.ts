/**
 * Where a text spells a name, and whether one of those places falls in a
 * range: what the Rust and TypeScript parses of `references` ask to leave
 * out the blocks and items that cannot hold the name.
 *
 * @example
 * ```ts
 * import { spelledBetween, spellingsOf } from "./spellings.ts";
 *
 * const at = spellingsOf("fn a() { b(); } fn b() {}", "b");
 * if (at.join() !== "9,19") throw new Error(at.join());
 * if (!spelledBetween(at, 8, 10) || spelledBetween(at, 9, 19)) throw new Error("range");
 * ```
 *
 * @module
 */

/** Where `text` spells `name` (also inside a longer word), in order. */
export function spellingsOf(text: string, name: string): number[] {
  const found: number[] = [];
  if (name === "") return found;
  for (let from = text.indexOf(name); from !== -1; from = text.indexOf(name, from + 1)) {
    found.push(from);
  }
  return found;
}

/** Whether one of `spellings` (in order) is after `from` and before `to` (both excluded). */
export function spelledBetween(spellings: readonly number[], from: number, to: number): boolean {
  let low = 0;
  let high = spellings.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (spellings[middle] <= from) low = middle + 1;
    else high = middle;
  }
  return low < spellings.length && spellings[low] < to;
}
