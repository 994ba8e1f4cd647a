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
 * Postings a table gathers before it sorts them into a run (16 MiB of pairs
 * and their sort). The Git source tree's 21 million postings sorted and
 * merged in 350 ms this way, 410 ms with runs twice as long, 375 ms with
 * runs half as long (more runs to merge).
 */
const PENDING = 1 << 20;

// One sorted run of postings: per trigram (ascending) its count, last id
// and byte end; the bytes hold each trigram's ids as varint gaps, the first
// one from 0 (a list continued from an earlier run is re-based when merged).
interface SortedRun {
  trigrams: Uint32Array;
  counts: Uint32Array;
  lastIds: Uint32Array;
  ends: Uint32Array;
  bytes: Uint8Array;
}

/**
 * The posting lists of one build, gathered as an external sort: postings
 * arrive as (trigram, id) pairs with ids ascending, are sorted by trigram a
 * few million at a time (a stable radix sort keeps each trigram's ids in
 * order) into compact runs, and the runs are merged trigram by trigram when
 * the lists are read. Every pass reads and writes memory in order: a list
 * object per trigram, appended to posting by posting, cost a cache miss or
 * an allocation per posting and was a third of a build.
 */
export class PostingTable {
  #runs: SortedRun[] = [];
  #runBytes = 0;
  #pendingTrigrams: Uint32Array;
  #pendingIds: Uint32Array;
  #sortedTrigrams: Uint32Array;
  #sortedIds: Uint32Array;
  #pending = 0;
  // Where a run is encoded before it is copied out at its size (5 bytes a posting at most).
  #encoded = new Uint8Array(0);

  // The size of the blocks lists are handed out in.
  #listBlockBytes: number;

  /**
   * A table sorting `pending` postings at a time and handing lists out in
   * blocks of `listBlockBytes` (tests use small ones).
   */
  constructor(options: { pending?: number; listBlockBytes?: number } = {}) {
    this.#listBlockBytes = options.listBlockBytes ?? LIST_BLOCK_BYTES;
    const size = options.pending ?? PENDING;
    this.#pendingTrigrams = new Uint32Array(size);
    this.#pendingIds = new Uint32Array(size);
    this.#sortedTrigrams = new Uint32Array(size);
    this.#sortedIds = new Uint32Array(size);
  }

  /**
   * Adds `id` to the list of each of `trigrams`; the ids added must ascend
   * from call to call. The pairs are copied in blocks: a call per posting
   * cost about 40 ns each, a tenth of a build.
   */
  add(trigrams: Uint32Array, id: number): void {
    for (let from = 0; from < trigrams.length;) {
      if (this.#pending === this.#pendingIds.length) this.#sortPending();
      const count = Math.min(trigrams.length - from, this.#pendingIds.length - this.#pending);
      this.#pendingTrigrams.set(trigrams.subarray(from, from + count), this.#pending);
      this.#pendingIds.fill(id, this.#pending, this.#pending + count);
      this.#pending += count;
      from += count;
    }
  }

  /**
   * Bytes the lists take: the sorted runs, and a byte (the least a posting
   * takes) for each posting not sorted yet, whose pairs sit in buffers of a
   * fixed size.
   */
  get heldBytes(): number {
    return this.#runBytes + this.#pending;
  }

  /** Bytes of all lists (within a few bytes a list: runs continued are re-based when merged). */
  get byteLength(): number {
    this.#sortPending();
    return this.#runBytes;
  }

  /**
   * Every list, in trigram order (B-tree inserts in key order are the cheap
   * ones).
   */
  *lists(): Generator<{ trigram: number; count: number; bytes: Uint8Array }> {
    this.#sortPending();
    const runs = this.#runs;
    const heads = new Uint32Array(runs.length);
    let scratch = new Uint8Array(1 << 16);
    const blocks = new ListBlocks(this.#listBlockBytes);
    for (;;) {
      let trigram = -1;
      for (let r = 0; r < runs.length; r++) {
        const head = heads[r];
        if (
          head < runs[r].trigrams.length && (trigram === -1 || runs[r].trigrams[head] < trigram)
        ) {
          trigram = runs[r].trigrams[head];
        }
      }
      if (trigram === -1) return;
      let length = 0;
      let count = 0;
      let last = -1;
      for (let r = 0; r < runs.length; r++) {
        const run = runs[r];
        const head = heads[r];
        if (head >= run.trigrams.length || run.trigrams[head] !== trigram) continue;
        heads[r]++;
        const start = head === 0 ? 0 : run.ends[head - 1];
        const end = run.ends[head];
        if (scratch.length < length + (end - start) + 5) {
          const grown = new Uint8Array(Math.max(scratch.length * 2, length + (end - start) + 5));
          grown.set(scratch.subarray(0, length));
          scratch = grown;
        }
        let from = start;
        if (last !== -1) {
          // The run's first id was a gap from 0: re-base it on the list's last id.
          let first = 0;
          for (let shift = 0;; shift += 7) {
            const byte = run.bytes[from++];
            first += (byte & 0x7f) * 2 ** shift;
            if (byte < 0x80) break;
          }
          length = writeVarint(scratch, length, first - last);
        }
        length = copyBytes(run.bytes, from, end, scratch, length);
        count += run.counts[head];
        last = run.lastIds[head];
      }
      yield { trigram, count, bytes: blocks.copy(scratch, length) };
    }
  }

  /** Empties the table for the next build. */
  clear(): void {
    this.#runs = [];
    this.#runBytes = 0;
    this.#pending = 0;
  }

  // Sorts the gathered postings by trigram into a run of their lists.
  #sortPending(): void {
    const n = this.#pending;
    if (n === 0) return;
    this.#pending = 0;
    const [trigrams, ids] = this.#radixSort(n);
    let runs = 0;
    for (let i = 0; i < n; i++) if (i === 0 || trigrams[i] !== trigrams[i - 1]) runs++;
    const run: SortedRun = {
      trigrams: new Uint32Array(runs),
      counts: new Uint32Array(runs),
      lastIds: new Uint32Array(runs),
      ends: new Uint32Array(runs),
      bytes: this.#encoded.length >= 5 * n
        ? this.#encoded
        : (this.#encoded = new Uint8Array(5 * n)),
    };
    let at = 0;
    let r = -1;
    let last = 0;
    for (let i = 0; i < n; i++) {
      if (i === 0 || trigrams[i] !== trigrams[i - 1]) {
        if (r >= 0) run.ends[r] = at;
        run.trigrams[++r] = trigrams[i];
        last = 0;
      }
      at = writeVarint(run.bytes, at, ids[i] - last);
      last = ids[i];
      run.counts[r]++;
      run.lastIds[r] = last;
    }
    run.ends[r] = at;
    run.bytes = run.bytes.slice(0, at);
    this.#runs.push(run);
    this.#runBytes += at;
  }

  // A stable LSD radix sort of the first `n` pending pairs by their 24-bit
  // trigram, 12 bits a pass (two passes; the counts, 16 KiB, stay in cache;
  // three passes of 8 bits took a third longer); the sorted trigrams and ids.
  #radixSort(n: number): [Uint32Array, Uint32Array] {
    let keys = this.#pendingTrigrams;
    let values = this.#pendingIds;
    let toKeys = this.#sortedTrigrams;
    let toValues = this.#sortedIds;
    const counts = new Uint32Array(1 << RADIX_BITS);
    for (let shift = 0; shift < 24; shift += RADIX_BITS) {
      counts.fill(0);
      for (let i = 0; i < n; i++) counts[(keys[i] >>> shift) & RADIX_MASK]++;
      for (let b = 0, sum = 0; b < counts.length; b++) {
        const count = counts[b];
        counts[b] = sum;
        sum += count;
      }
      for (let i = 0; i < n; i++) {
        const at = counts[(keys[i] >>> shift) & RADIX_MASK]++;
        toKeys[at] = keys[i];
        toValues[at] = values[i];
      }
      [keys, toKeys] = [toKeys, keys];
      [values, toValues] = [toValues, values];
    }
    // After an even number of passes the sorted pairs are back in the pending
    // buffers, and the other two gather next.
    this.#pendingTrigrams = toKeys;
    this.#pendingIds = toValues;
    this.#sortedTrigrams = keys;
    this.#sortedIds = values;
    return [keys, values];
  }
}

const LIST_BLOCK_BYTES = 1 << 20;

// Lists handed out as views of shared blocks, each list in one block: a
// buffer of its own for each of the Git source tree's 215,000 lists cost
// about 75 ms to allocate, and as much again to collect. A full block is
// left to the views of it.
class ListBlocks {
  #size: number;
  #block = new Uint8Array(0);
  #used = 0;

  constructor(size: number) {
    this.#size = size;
  }

  // A copy of the first `length` of `bytes` of its own (no later copy writes over it).
  copy(bytes: Uint8Array, length: number): Uint8Array {
    if (this.#used + length > this.#block.length) {
      this.#block = new Uint8Array(Math.max(this.#size, length));
      this.#used = 0;
    }
    const at = this.#used;
    this.#used = copyBytes(bytes, 0, length, this.#block, at);
    return this.#block.subarray(at, this.#used);
  }
}

// Copies `bytes[from, end)` into `to` at `at`; the offset after them. Most pieces of a list are a
// few bytes (the deno tree: 12.6 million postings in 123,000 lists, each continued over up to a
// dozen runs): a loop copies those without the view `set` needs, millions of short-lived objects.
// (Positional: called per piece, where an options object would be one more of them.)
function copyBytes(
  bytes: Uint8Array,
  from: number,
  end: number,
  to: Uint8Array,
  at: number,
): number {
  if (end - from > 64) {
    to.set(bytes.subarray(from, end), at);
    return at + end - from;
  }
  for (let i = from; i < end; i++) to[at++] = bytes[i];
  return at;
}

const RADIX_BITS = 12;
const RADIX_MASK = (1 << RADIX_BITS) - 1;

// Writes `value` as a LEB128 varint at `at` of `bytes`; the offset after it.
function writeVarint(bytes: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    bytes[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  bytes[at++] = value;
  return at;
}

/** Encodes ascending `ids`. */
export function encodePostings(ids: ArrayLike<number>): Uint8Array {
  const writer = new PostingWriter();
  for (let i = 0; i < ids.length; i++) writer.add(ids[i]);
  return writer.bytes();
}

// Reads an encoded list front to back. The whole-list decode and the filtered
// one share this one varint loop, called once per list or per block of ids,
// never once per id: the whole-list decode is on the hot search path.
class PostingDecoder {
  #bytes: Uint8Array;
  #at = 0;
  #last = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  // Decodes the next `count` ids into `out` from index 0.
  decode(out: Uint32Array, count: number): void {
    const bytes = this.#bytes;
    let last = this.#last;
    let at = this.#at;
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
      out[i] = last;
    }
    this.#last = last;
    this.#at = at;
  }
}

// Ids decoded at a time by the filtered decode: what it holds beyond its
// answer stays this small whatever the list's length.
const WITHIN_BLOCK = 256;

/** Decodes a list of `count` ids. */
export function decodePostings(bytes: Uint8Array, count: number): Uint32Array {
  const ids = new Uint32Array(count);
  new PostingDecoder(bytes).decode(ids, count);
  return ids;
}

/**
 * The ids of an encoded list that ascending `within` holds, decoded in one
 * pass without the whole list ever being built: a search under path groups
 * keeps only the visible chunks, and what it holds afterwards (and every step
 * after this one) is bounded by them, not by the list.
 */
export function decodePostingsWithin(
  bytes: Uint8Array,
  options: { count: number; within: Uint32Array },
): Uint32Array {
  const { count, within } = options;
  const out = new Uint32Array(Math.min(count, within.length));
  const decoder = new PostingDecoder(bytes);
  const block = new Uint32Array(Math.min(count, WITHIN_BLOCK));
  let n = 0;
  let w = 0;
  for (let left = count; left > 0 && w < within.length;) {
    const size = Math.min(left, block.length);
    decoder.decode(block, size);
    left -= size;
    for (let i = 0; i < size && w < within.length; i++) {
      const id = block[i];
      if (within[w] < id) w = gallop(within, w, id);
      if (within[w] === id) out[n++] = id;
    }
  }
  return out.subarray(0, n);
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
