/**
 * Bytes received in chunks from a stream, taken from the front in pieces of
 * any length without joining every chunk on arrival.
 *
 * @module
 */

/**
 * A FIFO of byte chunks.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const queue = new ByteQueue();
 * queue.push(new Uint8Array([1, 2, 3]));
 * queue.push(new Uint8Array([4, 5]));
 * const head = queue.take(4); // [1, 2, 3, 4]
 * assert(head.length === 4 && queue.size === 1);
 * ```
 */
export class ByteQueue {
  #chunks: Uint8Array[] = [];
  #size = 0;

  /** Bytes held. */
  get size(): number {
    return this.#size;
  }

  /** The chunks held, front first (read-only view for scanning). */
  get chunks(): readonly Uint8Array[] {
    return this.#chunks;
  }

  /** Appends a chunk. */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#size += chunk.length;
  }

  /** Removes and returns the first `length` bytes (at most `size`). */
  take(length: number): Uint8Array {
    const out = new Uint8Array(Math.min(length, this.#size));
    let filled = 0;
    while (filled < out.length) {
      const chunk = this.#chunks[0];
      const part = Math.min(chunk.length, out.length - filled);
      out.set(chunk.subarray(0, part), filled);
      filled += part;
      if (part === chunk.length) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(part);
    }
    this.#size -= out.length;
    return out;
  }

  /** Drops everything. */
  clear(): void {
    this.#chunks = [];
    this.#size = 0;
  }
}

/**
 * One array holding `parts` in order.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const joined = concatBytes([new Uint8Array([1]), new Uint8Array([2, 3])]);
 * assert(joined.length === 3 && joined[2] === 3);
 * ```
 */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
