/**
 * The texts of the chunks searches read last, kept as strings across every
 * index of the service, bounded in bytes: a search that reads them again
 * neither asks SQLite for them nor makes their strings anew. A chunk's row
 * never changes once written (ids are never reused), so a kept text is the
 * text; an index's texts are forgotten when it closes.
 *
 * A common literal reads a good share of a tree: `deno_core` in the deno
 * tree reads 1,328 chunks (4.8 M characters), whose strings took a third of
 * the search on the service's thread to make, from pages SQLite's cache
 * already held, and whose garbage was much of the rest.
 *
 * @module
 */

/** Bytes of chunk texts kept, by default. */
export const RECENT_CHUNK_BYTES = 16 * 1024 * 1024;

// What an entry costs beside its characters (the map's entry, the string's header).
const ENTRY_BYTES = 64;
// Keys are an index's ordinal times this, plus the chunk's id (ids stay below it).
const ORDINAL_SPAN = 2 ** 32;
// Ordinals stay where key arithmetic is exact (2^21 * 2^32 = 2^53).
const MOST_ORDINALS = 2 ** 21;

/** The chunk texts searches read last, of every index, at most `bytes` of them. */
export class RecentChunks {
  // Least recently used first (a Map iterates in insertion order): each text and its cost.
  #texts = new Map<number, [string, number]>();
  #bytes = 0;
  #limit: number;
  #ordinals = new WeakMap<object, number>();
  #nextOrdinal = 1;

  /** Keeps at most `bytes` (default `RECENT_CHUNK_BYTES`) of texts. */
  constructor(options: { bytes?: number } = {}) {
    this.#limit = options.bytes ?? RECENT_CHUNK_BYTES;
  }

  /** Bytes of the texts kept. */
  get bytes(): number {
    return this.#bytes;
  }

  /** How many texts are kept. */
  get size(): number {
    return this.#texts.size;
  }

  /**
   * The texts of chunks `ids` of the index `owner` (by id): those kept, and
   * the others as `read` gives them (then kept). A chunk `read` does not
   * give (gone) is absent.
   */
  texts(
    owner: object,
    ids: readonly number[],
    read: (ids: number[]) => Map<number, string>,
  ): Map<number, string> {
    const base = this.#ordinal(owner) * ORDINAL_SPAN;
    const texts = new Map<number, string>();
    let missing: number[] | null = null;
    for (const id of ids) {
      const key = base + id;
      const kept = this.#texts.get(key);
      if (kept === undefined) {
        (missing ??= []).push(id);
        continue;
      }
      this.#texts.delete(key);
      this.#texts.set(key, kept);
      texts.set(id, kept[0]);
    }
    if (missing === null) return texts;
    for (const [id, text] of read(missing)) {
      texts.set(id, text);
      this.#keep(base + id, text);
    }
    return texts;
  }

  /** Forgets the texts of `owner` (its index is closed). */
  forget(owner: object): void {
    const ordinal = this.#ordinals.get(owner);
    if (ordinal === undefined) return;
    this.#ordinals.delete(owner);
    for (const [key, [, cost]] of this.#texts) {
      if (Math.floor(key / ORDINAL_SPAN) !== ordinal) continue;
      this.#texts.delete(key);
      this.#bytes -= cost;
    }
  }

  #keep(key: number, text: string): void {
    const cost = costOf(text);
    if (cost > this.#limit) return;
    this.#texts.set(key, [text, cost]);
    this.#bytes += cost;
    for (const [oldest, [, dropped]] of this.#texts) {
      if (this.#bytes <= this.#limit) break;
      this.#texts.delete(oldest);
      this.#bytes -= dropped;
    }
  }

  #ordinal(owner: object): number {
    let ordinal = this.#ordinals.get(owner);
    if (ordinal !== undefined) return ordinal;
    if (this.#nextOrdinal >= MOST_ORDINALS) {
      // Never reached in practice (an ordinal per index opened); a new start is always correct.
      this.#texts.clear();
      this.#bytes = 0;
      this.#ordinals = new WeakMap();
      this.#nextOrdinal = 1;
    }
    ordinal = this.#nextOrdinal++;
    this.#ordinals.set(owner, ordinal);
    return ordinal;
  }
}

// V8 keeps a string of ASCII characters in a byte each (counted two when any is not: a
// Latin-1 string also takes one, but bounding by two is never less than what is held).
// Any character past U+007F (written as a range from the first one past it to the last).
const NOT_ASCII = /[\u0080-\uffff]/;

function costOf(text: string): number {
  return ENTRY_BYTES + text.length * (NOT_ASCII.test(text) ? 2 : 1);
}
