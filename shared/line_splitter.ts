/**
 * Splits a byte stream into LF-terminated lines, each capped: a line past the
 * cap is reported as `"oversized"` and its bytes are skipped up to the next
 * LF without being buffered, so one huge line costs neither memory nor the
 * lines after it. A trailing CR is stripped; empty lines are skipped.
 *
 * @module
 */

import { ByteQueue } from "./byte_queue.ts";

/**
 * Splits a byte stream into LF-terminated lines with a cap on each line.
 *
 * @example
 * ```ts ignore
 * const lines = new LineSplitter(Deno.stdin.readable, 1024 * 1024);
 * for (let line = await lines.next(); line !== null; line = await lines.next()) {
 *   if (line === "oversized") console.error("a line over 1 MiB was skipped");
 *   else console.error(new TextDecoder().decode(line));
 * }
 * ```
 */
export class LineSplitter {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #maxBytes: number;
  #queue = new ByteQueue();
  #discarding = false;
  #ended = false;

  /** Lines of `input`, each at most `maxBytes` (LF and CR not counted). */
  constructor(input: ReadableStream<Uint8Array>, maxBytes: number) {
    this.#reader = input.getReader();
    this.#maxBytes = maxBytes;
  }

  /**
   * The next non-empty line without LF and trailing CR, `"oversized"` for a
   * line past the cap (its bytes are skipped), or null at the end.
   */
  async next(): Promise<Uint8Array | "oversized" | null> {
    while (true) {
      const line = this.#takeLine();
      if (line === "oversized") return line;
      if (line !== null) {
        if (line.length === 0) continue;
        return line;
      }
      if (this.#ended) return this.#takeRest();
      const { done, value } = await this.#reader.read();
      if (done) this.#ended = true;
      else this.#queue.push(value);
    }
  }

  #takeLine(): Uint8Array | "oversized" | null {
    let offset = 0;
    const chunks = this.#queue.chunks;
    for (let i = 0; i < chunks.length; i++) {
      const newline = chunks[i].indexOf(0x0a);
      if (newline === -1) {
        offset += chunks[i].length;
        continue;
      }
      const lineLength = offset + newline;
      const line = this.#queue.take(lineLength);
      this.#queue.take(1);
      if (this.#discarding) {
        this.#discarding = false;
        return "oversized";
      }
      return stripCr(line, this.#maxBytes);
    }
    // No LF yet: past the cap, drop what we hold and skip to the next LF.
    if (this.#queue.size > this.#maxBytes + 1) {
      this.#queue.clear();
      this.#discarding = true;
    }
    return null;
  }

  #takeRest(): Uint8Array | "oversized" | null {
    if (this.#discarding) {
      this.#discarding = false;
      this.#queue.clear();
      return "oversized";
    }
    if (this.#queue.size === 0) return null;
    const rest = this.#queue.take(this.#queue.size);
    const line = stripCr(rest, this.#maxBytes);
    return line === "oversized" || line.length > 0 ? line : null;
  }
}

function stripCr(line: Uint8Array, maxBytes: number): Uint8Array | "oversized" {
  const body = line.length > 0 && line[line.length - 1] === 0x0d ? line.subarray(0, -1) : line;
  return body.length > maxBytes ? "oversized" : body;
}
