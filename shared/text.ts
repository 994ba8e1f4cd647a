/**
 * Text handling for repository bytes: strict UTF-8, binary detection, and line
 * splitting that keeps exact 1-based line numbers.
 *
 * @module
 */

import { isUtf8 } from "node:buffer";

const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Decodes bytes as UTF-8, or returns `null` when they are not valid UTF-8.
 *
 * A byte-order mark is kept as U+FEFF so that decoded text maps back to the
 * exact source bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * assert(decodeUtf8Strict(new Uint8Array([0x68, 0x69])) === "hi");
 * assert(decodeUtf8Strict(new Uint8Array([0xe9])) === null); // Latin-1, not UTF-8
 * ```
 */
export function decodeUtf8Strict(bytes: Uint8Array): string | null {
  // Validated first, then decoded knowing it is valid: a decoder that throws
  // on the first bad byte took about twice as long on a source tree's files.
  return isUtf8(bytes) ? UTF8.decode(bytes) : null;
}

/**
 * Reports whether bytes look binary: any NUL byte makes them binary.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * assert(isBinary(new Uint8Array([0x61, 0x00, 0x62])));
 * ```
 */
export function isBinary(bytes: Uint8Array): boolean {
  return bytes.indexOf(0) !== -1;
}

/**
 * Splits text into lines on LF only, so a CR before the LF (or a lone CR)
 * stays part of its line. Line `n` (1-based) is `lines[n - 1]`.
 *
 * A final LF ends the last line rather than starting an empty one: `"a\nb\n"`
 * and `"a\nb"` both have two lines, and `""` has none.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * assert(splitLines("a\r\nb\n").join("|") === "a\r|b");
 * assert(splitLines("").length === 0);
 * ```
 */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/**
 * Lines `start..end` (1-based, inclusive) of valid UTF-8 `bytes`, as
 * `splitLines` numbers them in the decoded text, decoding only their
 * bytes: a line of a large file needs neither the whole text nor its copy.
 * (A line feed byte is a line feed character in valid UTF-8, never part of
 * another character, so the lines' bytes decode to the text's lines.)
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const bytes = new TextEncoder().encode("a\nb\r\nc\n");
 * assert(utf8LinesBetween(bytes, 2, 9).join("|") === "b\r|c");
 * ```
 */
export function utf8LinesBetween(bytes: Uint8Array, start: number, end: number): string[] {
  let from = 0;
  for (let line = 1; line < start && from < bytes.length; line++) {
    const next = bytes.indexOf(0x0a, from);
    from = next === -1 ? bytes.length : next + 1;
  }
  if (from >= bytes.length || end < start) return [];
  // The bytes up to the last line's line feed, decoded at once and split at their line feeds.
  let to = from;
  for (let line = start;; line++) {
    const next = bytes.indexOf(0x0a, to);
    if (next === -1) {
      to = bytes.length;
      break;
    }
    if (line === end || next + 1 >= bytes.length) {
      to = next;
      break;
    }
    to = next + 1;
  }
  return UTF8.decode(bytes.subarray(from, to)).split("\n");
}

/**
 * Counts the lines of UTF-8 `bytes` as `countLines` counts those of their
 * text, without decoding them.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * assert(countUtf8Lines(new TextEncoder().encode("a\nb")) === 2);
 * ```
 */
export function countUtf8Lines(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  let count = 0;
  let at = bytes.indexOf(0x0a);
  while (at !== -1) {
    count++;
    at = bytes.indexOf(0x0a, at + 1);
  }
  return bytes[bytes.length - 1] === 0x0a ? count : count + 1;
}

/**
 * Counts the lines `splitLines` would return, without building them.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * assert(countLines("a\nb\n") === 2 && countLines("a\nb") === 2);
 * ```
 */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  let at = text.indexOf("\n");
  while (at !== -1) {
    count++;
    at = text.indexOf("\n", at + 1);
  }
  return text.endsWith("\n") ? count : count + 1;
}

const NON_ASCII = /[\u0080-\uffff]/;

/**
 * Returns the UTF-8 byte length of a string without allocating its bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * assert(utf8Length("é") === 2 && utf8Length("日本") === 6);
 * ```
 */
export function utf8Length(text: string): number {
  // ASCII text (most code and every page header) is a byte a code unit.
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Lower-case hex of `bytes`.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * assert(encodeHex(new Uint8Array([0, 171, 255])) === "00abff");
 * ```
 */
export function encodeHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
