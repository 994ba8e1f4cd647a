/**
 * The text a search sees of a blob: none for binary (a NUL byte) or
 * non-UTF-8 content, which searches skip; otherwise the strict UTF-8 text
 * without a leading byte-order mark (reads keep it; searches never matched it).
 *
 * @module
 */

import { decodeUtf8Strict, isBinary } from "../../shared/text.ts";

/** The searchable text of `bytes`, or null when searches skip them. */
export function searchableText(bytes: Uint8Array): string | null {
  if (isBinary(bytes)) return null;
  const text = decodeUtf8Strict(bytes);
  if (text === null) return null;
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
