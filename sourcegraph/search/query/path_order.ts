/**
 * The order searches visit files in, Git's: paths compared as UTF-8 bytes
 * (which is code point order). A search continued after a file skips every
 * path that sorts before it in this order, whether its candidates come from
 * the index or from Git, so the pages of one search meet exactly.
 *
 * @module
 */

/** Negative when `a` sorts before `b`, 0 when equal, positive after. */
export function comparePaths(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 order differs from code point order only between a surrogate
    // (an astral character) and a unit from U+E000 to U+FFFF.
    const xHigh = x >= 0xd800 && x <= 0xdfff;
    const yHigh = y >= 0xd800 && y <= 0xdfff;
    if (xHigh !== yHigh) return xHigh ? (y >= 0xe000 ? 1 : -1) : (x >= 0xe000 ? -1 : 1);
    return x - y;
  }
  return a.length - b.length;
}
