/**
 * The lines of a candidate file worth giving to RE2. When every match must
 * contain a literal, only the lines holding it are visited (found with the
 * engine's native `indexOf`, or a case-insensitive Unicode `RegExp` for an
 * ASCII literal, whose case variants that set always covers); otherwise
 * every line is. A text stored as UTF-8 is searched for the literal's bytes
 * and only the lines holding them are decoded. Lines are what `splitLines`
 * makes, numbered from 1.
 *
 * @module
 */

import { splitLines } from "../../shared/text.ts";

/** How to find the lines that may match; null visits every line. */
export type LineFinder = { literal: string } | { caseless: RegExp } | null;

/** The finder for a literal every match contains (`null`: none known). */
export function lineFinder(literal: string | null, options: { ignoreCase: boolean }): LineFinder {
  if (literal === null || literal.length === 0) return null;
  if (!options.ignoreCase) return { literal };
  if (!/^[\x20-\x7e]+$/.test(literal)) return null;
  return { caseless: new RegExp(literal.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&"), "giu") };
}

/** The lines of `text` that may match, as [number, line], in order. */
export function* linesToVerify(text: string, finder: LineFinder): Generator<[number, string]> {
  if (finder === null) {
    const lines = splitLines(text);
    for (let i = 0; i < lines.length; i++) yield [i + 1, lines[i]];
    return;
  }
  let from = 0;
  let number = 1;
  let counted = 0;
  while (from < text.length) {
    const hit = find(text, finder, from);
    if (hit === -1) return;
    const start = text.lastIndexOf("\n", hit - 1) + 1;
    for (
      let at = text.indexOf("\n", counted);
      at !== -1 && at < start;
      at = text.indexOf("\n", at + 1)
    ) {
      number++;
    }
    counted = start;
    const newline = text.indexOf("\n", hit);
    const end = newline === -1 ? text.length : newline;
    yield [number, text.slice(start, end)];
    from = end + 1;
  }
}

function find(
  text: string,
  finder: { literal: string } | { caseless: RegExp },
  from: number,
): number {
  if ("literal" in finder) return text.indexOf(finder.literal, from);
  finder.caseless.lastIndex = from;
  return finder.caseless.exec(text)?.index ?? -1;
}

// Bytes ordered from common to rare in source code: a search anchors on the
// rarest byte of a literal, which the engine finds with a native memchr.
const COMMON = new TextEncoder().encode(" etaoinsrlcdhu\n_mp.f(),;=g\"tbyv-x*/k{}#'0w1>:2[]<&");

/**
 * The lines of UTF-8 `bytes` that hold `needle`, as [number, line]: only
 * those lines are decoded (a LF byte is always a line end in UTF-8, so the
 * numbers are those of `splitLines` on the decoded text).
 */
export function* byteLinesWith(bytes: Uint8Array, needle: Uint8Array): Generator<[number, string]> {
  const decoder = new TextDecoder();
  let from = 0;
  let number = 1;
  let counted = 0;
  while (from < bytes.length) {
    const hit = indexOfBytes(bytes, needle, from);
    if (hit === -1) return;
    const start = hit === 0 ? 0 : bytes.lastIndexOf(0x0a, hit - 1) + 1;
    for (let at = counted; at < start; at++) if (bytes[at] === 0x0a) number++;
    counted = start;
    const newline = bytes.indexOf(0x0a, hit);
    const end = newline === -1 ? bytes.length : newline;
    yield [number, decoder.decode(bytes.subarray(start, end))];
    from = end + 1;
  }
}

// The first position at or after `from` where `needle` starts, anchored on its rarest byte.
function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  if (needle.length === 0) return from <= haystack.length ? from : -1;
  let anchor = 0;
  let rank = -1;
  for (let i = 0; i < needle.length; i++) {
    const common = COMMON.indexOf(needle[i]);
    const score = common === -1 ? COMMON.length : common;
    if (score > rank) {
      rank = score;
      anchor = i;
    }
  }
  const byte = needle[anchor];
  const last = haystack.length - needle.length + anchor;
  for (
    let at = haystack.indexOf(byte, from + anchor);
    at !== -1 && at <= last;
    at = haystack.indexOf(byte, at + 1)
  ) {
    const start = at - anchor;
    let i = 0;
    while (i < needle.length && haystack[start + i] === needle[i]) i++;
    if (i === needle.length) return start;
  }
  return -1;
}
