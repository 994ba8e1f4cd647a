/**
 * Posting lists: ascending chunk (or path) numbers, stored as LEB128
 * varints of the gaps between them, the set operations queries combine
 * them with, and the table a build gathers its lists in.
 *
 * @module
 */

/** Appends one list's bytes to a growing buffer (for building). */
export class PostingWriter {
  #bytes = new Uint8Array(64);
  #length = 0;
  #last = 0;
  #count = 0;

  /** Adds `id`, which must be greater than every id added before. */
  add(id: number): void {
    let gap = id - this.#last;
    this.#last = id;
    this.#count++;
    if (this.#length + 5 > this.#bytes.length) {
      const grown = new Uint8Array(this.#bytes.length * 2);
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    while (gap >= 0x80) {
      this.#bytes[this.#length++] = (gap & 0x7f) | 0x80;
      gap >>>= 7;
    }
    this.#bytes[this.#length++] = gap;
  }

  /** How many ids were added. */
  get count(): number {
    return this.#count;
  }

  /** How many bytes the list takes. */
  get byteLength(): number {
    return this.#length;
  }

  /** The encoded list. */
  bytes(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }
}

/**
 * The posting lists of one build, by trigram: a slot per trigram seen,
 * found through a direct table of all 2^24 trigrams (64 MiB, allocated once
 * per builder process and reused: a hash map costs a third more per
 * posting, and a build adds tens of millions).
 */
export class PostingTable {
  #slotOf = new Int32Array(1 << 24).fill(-1);
  #trigrams: number[] = [];
  #last = new Uint32Array(1024);
  #count = new Uint32Array(1024);
  #length = new Uint32Array(1024);
  #bytes: Uint8Array[] = [];
  #byteLength = 0;

  /** Adds `id` to the list of `trigram`; ids of one trigram must ascend. */
  add(trigram: number, id: number): void {
    let slot = this.#slotOf[trigram];
    if (slot === -1) slot = this.#open(trigram);
    let gap = id - this.#last[slot];
    this.#last[slot] = id;
    this.#count[slot]++;
    let bytes = this.#bytes[slot];
    let at = this.#length[slot];
    if (at + 5 > bytes.length) {
      const grown = new Uint8Array(bytes.length * 2);
      grown.set(bytes);
      this.#bytes[slot] = bytes = grown;
    }
    const start = at;
    while (gap >= 0x80) {
      bytes[at++] = (gap & 0x7f) | 0x80;
      gap >>>= 7;
    }
    bytes[at++] = gap;
    this.#length[slot] = at;
    this.#byteLength += at - start;
  }

  /** Bytes of all lists. */
  get byteLength(): number {
    return this.#byteLength;
  }

  /** Every list, in trigram order (B-tree inserts in key order are the cheap ones). */
  *lists(): Generator<{ trigram: number; count: number; bytes: Uint8Array }> {
    const order = [...this.#trigrams].sort((a, b) => a - b);
    for (const trigram of order) {
      const slot = this.#slotOf[trigram];
      yield {
        trigram,
        count: this.#count[slot],
        bytes: this.#bytes[slot].subarray(0, this.#length[slot]),
      };
    }
  }

  /** Empties the table for the next build. */
  clear(): void {
    for (const trigram of this.#trigrams) this.#slotOf[trigram] = -1;
    this.#trigrams = [];
    this.#bytes = [];
    this.#last.fill(0);
    this.#count.fill(0);
    this.#length.fill(0);
    this.#byteLength = 0;
  }

  #open(trigram: number): number {
    const slot = this.#trigrams.length;
    this.#trigrams.push(trigram);
    this.#slotOf[trigram] = slot;
    if (slot === this.#last.length) {
      const grow = (list: Uint32Array) => {
        const grown = new Uint32Array(list.length * 2);
        grown.set(list);
        return grown;
      };
      this.#last = grow(this.#last);
      this.#count = grow(this.#count);
      this.#length = grow(this.#length);
    }
    this.#bytes.push(new Uint8Array(8));
    return slot;
  }
}

/** Encodes ascending `ids`. */
export function encodePostings(ids: ArrayLike<number>): Uint8Array {
  const writer = new PostingWriter();
  for (let i = 0; i < ids.length; i++) writer.add(ids[i]);
  return writer.bytes();
}

/** Decodes a list of `count` ids. */
export function decodePostings(bytes: Uint8Array, count: number): Uint32Array {
  const ids = new Uint32Array(count);
  let last = 0;
  let at = 0;
  for (let i = 0; i < count; i++) {
    let gap = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[at++];
      gap |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    last += gap >>> 0;
    ids[i] = last;
  }
  return ids;
}

/** The ids in both ascending lists. */
export function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (a.length > b.length) [a, b] = [b, a];
  const out = new Uint32Array(a.length);
  let n = 0;
  let j = 0;
  for (let i = 0; i < a.length && j < b.length; i++) {
    const id = a[i];
    if (b[j] < id) j = gallop(b, j, id);
    if (b[j] === id) out[n++] = id;
  }
  return out.subarray(0, n);
}

/** The ids in either ascending list. */
export function union(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  let i = 0, j = 0, n = 0;
  while (i < a.length && j < b.length) {
    if (a[i] < b[j]) out[n++] = a[i++];
    else if (a[i] > b[j]) out[n++] = b[j++];
    else {
      out[n++] = a[i++];
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++];
  while (j < b.length) out[n++] = b[j++];
  return out.subarray(0, n);
}

// The first index at or after `from` whose id is at least `id` (exponential then binary search).
function gallop(list: Uint32Array, from: number, id: number): number {
  let step = 1;
  let high = from;
  while (high < list.length && list[high] < id) {
    from = high;
    high += step;
    step *= 2;
  }
  high = Math.min(high, list.length);
  while (from < high) {
    const mid = (from + high) >>> 1;
    if (list[mid] < id) from = mid + 1;
    else high = mid;
  }
  return from;
}
