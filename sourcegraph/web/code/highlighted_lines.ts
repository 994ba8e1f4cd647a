/**
 * highlight.js's HTML read back into lines of segments, each segment a run
 * of text with the scope class of its innermost span (`hljs-keyword`,
 * `hljs-title function_`) or none. A span that crosses a line ends at the
 * line's end and opens again on the next, so each line renders on its own
 * (one table row per line). The pages render segments with their own
 * escaping; nothing of highlight.js's HTML reaches a page as markup. Input
 * that is not exactly what highlight.js emits (spans with word classes,
 * the five entities it escapes) is refused with an error, and the page
 * falls back to plain text.
 *
 * @module
 */

/** A run of text and the class it is shown with (null: none). */
export interface CodeSegment {
  text: string;
  scope: string | null;
}

/** One line's segments, in order (their texts joined are the line). */
export type CodeLine = CodeSegment[];

const TOKEN = /<span class="([\w -]{1,100})">|<\/span>|([^<]+)|</g;
const ENTITY = /&(?:amp|lt|gt|quot|#x27);|&/g;
const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#x27;": "'",
};

function unescaped(text: string): string {
  return text.replace(ENTITY, (entity) => {
    const character = ENTITIES[entity];
    if (character === undefined) throw new Error("an unescaped & in highlighted text");
    return character;
  });
}

/** The lines of `html`, highlight.js's output for a text (split at `\n`). */
export function highlightedLines(html: string): CodeLine[] {
  const lines: CodeLine[] = [[]];
  const scopes: string[] = [];
  for (const token of html.matchAll(TOKEN)) {
    if (token[1] !== undefined) {
      scopes.push(token[1]);
    } else if (token[0] === "</span>") {
      if (scopes.pop() === undefined) throw new Error("a span closed that was not open");
    } else if (token[2] !== undefined) {
      const scope = scopes.at(-1) ?? null;
      const pieces = unescaped(token[2]).split("\n");
      pieces.forEach((text, i) => {
        if (i > 0) lines.push([]);
        if (text !== "") lines.at(-1)!.push({ text, scope });
      });
    } else {
      throw new Error("markup highlight.js does not emit");
    }
  }
  if (scopes.length > 0) throw new Error("a span left open");
  return lines;
}

/** A piece of a segment, and the index of the range it lies in (null: none). */
export type MarkedSegment = CodeSegment & { range: number | null };

/**
 * `line`'s segments cut at the [start, end) offsets of `ranges` (sorted,
 * not overlapping), each piece with the range it lies in. Empty ranges mark
 * nothing.
 */
export function markedSegments(
  line: CodeLine,
  ranges: readonly [number, number][],
): MarkedSegment[] {
  const pieces: MarkedSegment[] = [];
  let offset = 0;
  let next = 0;
  for (const segment of line) {
    const end = offset + segment.text.length;
    let at = offset;
    while (at < end) {
      while (next < ranges.length && ranges[next][1] <= at) next++;
      const range = ranges[next];
      const inside = range !== undefined && range[0] <= at;
      const stop = range === undefined ? end : Math.min(end, inside ? range[1] : range[0]);
      pieces.push({
        text: segment.text.slice(at - offset, stop - offset),
        scope: segment.scope,
        range: inside ? next : null,
      });
      at = stop;
    }
    offset = end;
  }
  return pieces;
}
