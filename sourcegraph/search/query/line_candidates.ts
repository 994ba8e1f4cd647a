/**
 * The lines of a candidate text worth giving to RE2. When every match must
 * contain one of a few literals, only the lines holding one are visited:
 * found with the engine's native `indexOf` for one case-sensitive literal,
 * a native `RegExp` alternation for several, or a case-insensitive Unicode
 * `RegExp` for ASCII literals (whose case variants, KELVIN SIGN and LONG S
 * included, that flag covers); otherwise every line is. Lines are what
 * `splitLines` makes, numbered from 1.
 *
 * @module
 */

import { splitLines } from "../../../shared/text.ts";

/** How to find the lines that may match; null visits every line. */
export type LineFinder = { literal: string } | { pattern: RegExp } | null;

/** The finder for literals one of which every match contains (`null`: none known). */
export function lineFinder(
  literals: readonly string[] | null,
  options: { ignoreCase: boolean },
): LineFinder {
  if (literals === null || literals.length === 0 || literals.some((l) => l.length === 0)) {
    return null;
  }
  if (!options.ignoreCase && literals.length === 1) return { literal: literals[0] };
  if (options.ignoreCase && literals.some((literal) => !/^[\x20-\x7e]+$/.test(literal))) {
    return null;
  }
  // RegExp.escape: a hand-made escape of `-` is a syntax error under the `u` flag.
  const alternatives = literals.map((literal) => RegExp.escape(literal));
  return { pattern: new RegExp(alternatives.join("|"), options.ignoreCase ? "giu" : "g") };
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
  finder: { literal: string } | { pattern: RegExp },
  from: number,
): number {
  if ("literal" in finder) return text.indexOf(finder.literal, from);
  finder.pattern.lastIndex = from;
  return finder.pattern.exec(text)?.index ?? -1;
}
