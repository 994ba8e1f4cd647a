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

/** Collects the distinct trigrams of texts, one text at a time, without allocating per trigram. */
export class TrigramCollector {
  // The epoch of the text that last saw each trigram (16 MiB × 2 bytes, allocated once).
  #seen = new Uint16Array(1 << 24);
  #epoch = 0;
  #out = new Uint32Array(1 << 16);

  /** The distinct trigrams of `text`, sorted ascending (a view valid until the next call). */
  collect(text: string): Uint32Array {
    if (++this.#epoch === 0x10000) {
      this.#seen.fill(0);
      this.#epoch = 1;
    }
    const epoch = this.#epoch;
    let count = 0;
    let trigram = 0;
    for (let i = 0; i < text.length; i++) {
      trigram = ((trigram << 8) | SYMBOLS[text.charCodeAt(i)]) & 0xffffff;
      if (i < 2 || this.#seen[trigram] === epoch) continue;
      this.#seen[trigram] = epoch;
      if (count === this.#out.length) {
        const grown = new Uint32Array(this.#out.length * 2);
        grown.set(this.#out);
        this.#out = grown;
      }
      this.#out[count++] = trigram;
    }
    return this.#out.subarray(0, count).sort();
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
