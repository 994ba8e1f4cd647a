/**
 * The texts of the files one `references` call reads, each read once while
 * kept: a candidate's rows and its resolution both ask for it (the
 * position's own file also its check), and each read is two round trips to
 * Git and a decode. What is kept is bounded (`REFERENCES_TEXT_BYTES`, the
 * least recently asked dropped first), whatever the call walks: a page of
 * up to 50 candidate files of up to 1 MiB each, the next search pages of a
 * page with no rows, and the files its resolution follows. A text dropped
 * and asked again is read again.
 *
 * The service also keeps texts across calls, by repository and blob id
 * (`REFERENCES_SHARED_TEXT_BYTES`): the `lib.*.d.ts` files of a TypeScript
 * tree (up to 800 KB each) are candidates of many names, and a read of
 * one is a transfer from Git and a decode each time.
 *
 * @module
 */

/**
 * Most bytes of text one call keeps (two a UTF-16 code unit, as a string
 * may take them): 16 MiB, 16 of the largest files parsed, several times
 * what a page's walk reads on the deno tree (4 MB for 189 files).
 */
export const REFERENCES_TEXT_BYTES = 16 * 1024 * 1024;

/**
 * Most bytes of text the service keeps across calls, by repository and blob id (as
 * `REFERENCES_TEXT_BYTES` counts them), and most texts: 16 MiB, 4,096.
 */
export const REFERENCES_SHARED_TEXTS = { bytes: 16 * 1024 * 1024, entries: 4096 };

type Kept = { text: Promise<string | null>; bytes: number };

/**
 * Texts by key (a call's files by path, or the service's by repository and blob id), read
 * by `read` and kept within `maxBytes` and `maxEntries`.
 */
export class ReferenceTexts {
  #read: (path: string) => Promise<string | null>;
  #maxBytes: number;
  #maxEntries: number;
  #kept = new Map<string, Kept>();
  #bytes = 0;

  /**
   * Texts read by `read` (null: not readable as text), kept within `maxBytes`
   * (`REFERENCES_TEXT_BYTES` unless told) and `maxEntries` (unbounded).
   */
  constructor(
    read: (path: string) => Promise<string | null>,
    options: { maxBytes?: number; maxEntries?: number } = {},
  ) {
    this.#read = read;
    this.#maxBytes = options.maxBytes ?? REFERENCES_TEXT_BYTES;
    this.#maxEntries = options.maxEntries ?? Infinity;
  }

  /**
   * The text of `path`: the kept one, else read by `read` (the one given at
   * construction unless told; a failed read is not kept).
   */
  text(
    path: string,
    read: (path: string) => Promise<string | null> = this.#read,
  ): Promise<string | null> {
    const kept = this.#kept.get(path);
    if (kept !== undefined) {
      this.#kept.delete(path); // most recently asked last
      this.#kept.set(path, kept);
      return kept.text;
    }
    const entry: Kept = { text: read(path), bytes: 0 };
    this.#kept.set(path, entry);
    entry.text.then((text) => {
      if (this.#kept.get(path) !== entry) return;
      entry.bytes = text === null ? 0 : 2 * text.length;
      this.#bytes += entry.bytes;
      for (const [oldest, each] of this.#kept) {
        if (this.#bytes <= this.#maxBytes && this.#kept.size <= this.#maxEntries) break;
        this.#kept.delete(oldest);
        this.#bytes -= each.bytes;
      }
    }, () => {
      if (this.#kept.get(path) === entry) this.#kept.delete(path);
    });
    return entry.text;
  }

  /** How many texts are kept now (those being read too). */
  get size(): number {
    return this.#kept.size;
  }

  /** The bytes of the texts kept now (read ones; those being read count once read). */
  get bytes(): number {
    return this.#bytes;
  }
}
