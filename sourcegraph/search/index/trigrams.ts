/**
 * Trigrams of text as the search index stores them. Each UTF-16 code unit
 * maps to one of 256 symbols: ASCII letters fold to lower case, the two
 * non-ASCII characters that case-fold to ASCII letters (KELVIN SIGN, LATIN
 * SMALL LETTER LONG S) map to `k` and `s`, every other code unit to one of
 * 127 buckets above ASCII. A trigram is three consecutive symbols (24 bits).
 *
 * The mapping only ever merges characters, so a file that matches a literal
 * contains every trigram of that literal: case-sensitive queries use the
 * literal's symbols as they are (a superset filter, verified afterwards),
 * and case-insensitive ones treat non-ASCII literal characters as unknown,
 * because their case variants may fall into other buckets.
 *
 * @module
 */

/** Which files may match: the posting lists an index reader intersects and unites. */
export type TrigramQuery =
  | { op: "all" }
  | { op: "trigram"; trigram: number }
  | { op: "and"; subs: TrigramQuery[] }
  | { op: "or"; subs: TrigramQuery[] };

const SYMBOLS = (() => {
  const table = new Uint8Array(65_536);
  for (let unit = 0; unit < 65_536; unit++) {
    if (unit < 128) table[unit] = unit >= 65 && unit <= 90 ? unit + 32 : unit;
    else table[unit] = 128 + (unit % 127);
  }
  table[0x212a] = 0x6b; // KELVIN SIGN folds to k
  table[0x017f] = 0x73; // LATIN SMALL LETTER LONG S folds to s
  return table;
})();

/** The symbol of one UTF-16 code unit. */
export function symbolOf(unit: number): number {
  return SYMBOLS[unit];
}

/**
 * Collects the distinct trigrams of texts, one text at a time, without
 * allocating per trigram: a bit per possible trigram (2 MiB, which stays in
 * the processor's cache), set as a trigram is first seen and cleared once the
 * text is done. A small open-addressing set per text took a fifth longer (the
 * Git source tree's chunks: 310 against 250 ms on a 2-core AMD EPYC VM); a
 * table of a number per trigram (64 MiB) cost a cache miss per character.
 */
export class TrigramCollector {
  #seen = new Int32Array((1 << 24) / 32);
  #out = new Uint32Array(1 << 12);

  /**
   * The distinct trigrams of `text` in the order they first occur (a view
   * valid until the next call; the posting table sorts what it gathers).
   */
  collect(text: string): Uint32Array {
    if (text.length > this.#out.length) this.#out = new Uint32Array(text.length);
    const seen = this.#seen;
    const out = this.#out;
    let count = 0;
    let trigram = 0;
    for (let i = 0; i < text.length; i++) {
      trigram = ((trigram << 8) | SYMBOLS[text.charCodeAt(i)]) & 0xffffff;
      if (i < 2) continue;
      const word = trigram >>> 5;
      const bit = 1 << (trigram & 31);
      const bits = seen[word];
      if ((bits & bit) !== 0) continue;
      seen[word] = bits | bit;
      out[count++] = trigram;
    }
    // Every bit set belongs to this text: clearing their whole words leaves the table empty.
    for (let i = 0; i < count; i++) seen[out[i] >>> 5] = 0;
    return out.subarray(0, count);
  }

  /**
   * The trigrams `collect` finds in an ASCII text given as its bytes (each
   * byte is then its code unit): a byte array read in order is cheaper than
   * a sliced string's code units, and the builder has the bytes already.
   * `collect`'s loop, written again: one loop reading either through a
   * function call per character would slow the build's hottest loop.
   */
  collectAscii(bytes: Uint8Array): Uint32Array {
    if (bytes.length > this.#out.length) this.#out = new Uint32Array(bytes.length);
    const seen = this.#seen;
    const out = this.#out;
    let count = 0;
    let trigram = 0;
    for (let i = 0; i < bytes.length; i++) {
      trigram = ((trigram << 8) | SYMBOLS[bytes[i]]) & 0xffffff;
      if (i < 2) continue;
      const word = trigram >>> 5;
      const bit = 1 << (trigram & 31);
      const bits = seen[word];
      if ((bits & bit) !== 0) continue;
      seen[word] = bits | bit;
      out[count++] = trigram;
    }
    for (let i = 0; i < count; i++) seen[out[i] >>> 5] = 0;
    return out.subarray(0, count);
  }
}

/**
 * The trigrams every match of `literal` contains, or null when it has no run
 * of three known symbols (the literal then cannot narrow the candidates).
 */
export function literalTrigrams(
  literal: string,
  options: { ignoreCase: boolean },
): number[] | null {
  const trigrams = new Set<number>();
  let run = 0;
  let trigram = 0;
  for (let i = 0; i < literal.length; i++) {
    const unit = literal.charCodeAt(i);
    const known = unit < 128 || !options.ignoreCase || unit === 0x212a || unit === 0x017f;
    if (!known) {
      run = 0;
      continue;
    }
    trigram = ((trigram << 8) | SYMBOLS[unit]) & 0xffffff;
    if (++run >= 3) trigrams.add(trigram);
  }
  return trigrams.size === 0 ? null : [...trigrams].sort((a, b) => a - b);
}
