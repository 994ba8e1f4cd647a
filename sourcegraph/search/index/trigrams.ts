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

/**
 * Collects the distinct trigrams of texts, one text at a time, without
 * allocating per trigram: a small open-addressing set (2^13 slots for a
 * chunk of 4,096 code units, grown for longer texts) that stays in the
 * processor's cache. A direct table of all 2^24 trigrams cost a cache miss
 * per character and was most of a build.
 */
export class TrigramCollector {
  // Slots hold trigram + 1 (0: empty); `#epochs` says which text filled each slot.
  #slots = new Uint32Array(1 << 13);
  #epochs = new Uint16Array(1 << 13);
  #epoch = 0;
  #out = new Uint32Array(1 << 12);

  /**
   * The distinct trigrams of `text` in the order they first occur (a view
   * valid until the next call; the posting table sorts what it gathers).
   */
  collect(text: string): Uint32Array {
    this.#reserve(text.length);
    if (++this.#epoch === 0x10000) {
      this.#epochs.fill(0);
      this.#epoch = 1;
    }
    const epoch = this.#epoch;
    const slots = this.#slots;
    const epochs = this.#epochs;
    const mask = slots.length - 1;
    const shift = 32 - Math.log2(slots.length);
    const out = this.#out;
    let count = 0;
    let trigram = 0;
    for (let i = 0; i < text.length; i++) {
      trigram = ((trigram << 8) | SYMBOLS[text.charCodeAt(i)]) & 0xffffff;
      if (i < 2) continue;
      const key = trigram + 1;
      let slot = Math.imul(trigram, 0x9e3779b1) >>> shift;
      while (epochs[slot] === epoch && slots[slot] !== key) slot = (slot + 1) & mask;
      if (epochs[slot] === epoch) continue;
      epochs[slot] = epoch;
      slots[slot] = key;
      out[count++] = trigram;
    }
    return out.subarray(0, count);
  }

  // Sizes the set and the output for a text of `length` code units (at most
  // that many trigrams, the set at most half full).
  #reserve(length: number): void {
    if (length > this.#out.length) this.#out = new Uint32Array(length);
    let size = this.#slots.length;
    while (size < 2 * length) size *= 2;
    if (size > this.#slots.length) {
      this.#slots = new Uint32Array(size);
      this.#epochs = new Uint16Array(size);
      this.#epoch = 0;
    }
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
