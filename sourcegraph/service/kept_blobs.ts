/**
 * Large blobs' bytes kept by key (repository and blob id) across `references` calls, for the
 * read of the position's line: a position in a large file is read whole
 * from Git for that one line (lib.dom.d.ts, 2.3 MB, declares many names a
 * caller may ask about one after another), and a file past the parse limit
 * is kept by no text cache. Only blobs of at least `minBytes` are kept
 * (a small one costs Git little), within `maxBytes` in all, the least
 * recently asked dropped first. The bytes are only read, never handed out
 * of the service.
 *
 * @module
 */

/** The bounds of the blobs kept: 16 MiB in all, blobs of 256 KiB or more. */
export const KEPT_BLOBS = { maxBytes: 16 * 1024 * 1024, minBytes: 256 * 1024 };

/** Blobs' bytes by id, the large ones kept within a bound. */
export class KeptBlobs {
  #kept = new Map<string, Uint8Array>();
  #bytes = 0;
  #maxBytes: number;
  #minBytes: number;

  /** Kept within `maxBytes`, blobs of at least `minBytes` (`KEPT_BLOBS` unless told). */
  constructor(options: { maxBytes?: number; minBytes?: number } = {}) {
    this.#maxBytes = options.maxBytes ?? KEPT_BLOBS.maxBytes;
    this.#minBytes = options.minBytes ?? KEPT_BLOBS.minBytes;
  }

  /** The bytes of blob `oid`: the kept ones, else those `read` answers (null: not kept). */
  async bytes(oid: string, read: () => Promise<Uint8Array | null>): Promise<Uint8Array | null> {
    const kept = this.#kept.get(oid);
    if (kept !== undefined) {
      this.#kept.delete(oid); // most recently asked last
      this.#kept.set(oid, kept);
      return kept;
    }
    const bytes = await read();
    if (bytes === null || bytes.length < this.#minBytes || bytes.length > this.#maxBytes) {
      return bytes;
    }
    if (this.#kept.has(oid)) return bytes; // read meanwhile by another call
    this.#kept.set(oid, bytes);
    this.#bytes += bytes.length;
    for (const [oldest, each] of this.#kept) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#kept.delete(oldest);
      this.#bytes -= each.length;
    }
    return bytes;
  }

  /** The bytes kept now. */
  get size(): number {
    return this.#bytes;
  }
}
