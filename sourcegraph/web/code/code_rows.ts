/**
 * The rows of a file page's code table as one HTML string: each line a row
 * with its anchor (`id="L12"`) and number link, its text in the spans of its
 * highlighted segments. Built with Hono's own escaping rather than JSX: a
 * page holds up to 5,000 lines and tens of thousands of spans, which JSX
 * took 40 to 160 ms to render on the service's main thread (a 5,000-line C
 * file, 2-core Intel Xeon VM) and this takes a few.
 *
 * @module
 */

import { raw } from "hono/html";
import { escapeToBuffer, type HtmlEscapedString } from "hono/utils/html";
import type { CodeLine } from "./highlighted_lines.ts";
import { type LinkBudget, linkedCell } from "./identifier_links.ts";

/** `text` escaped for HTML text and quoted attribute values, as Hono's JSX escapes it. */
export function escapedText(text: string): string {
  const buffer: [string] = [""];
  escapeToBuffer(text, buffer);
  return buffer[0];
}

/** One line of code as escaped HTML, its highlighted segments in spans when there are any. */
export function highlightedCell(text: string, highlighted: CodeLine | null | undefined): string {
  if (highlighted === null || highlighted === undefined) return escapedText(text);
  let out = "";
  for (const segment of highlighted) {
    out += segment.scope === null
      ? escapedText(segment.text)
      : `<span class="${escapedText(segment.scope)}">${escapedText(segment.text)}</span>`;
  }
  return out;
}

/**
 * The rows of `lines`, numbered from `firstLine`, highlighted as
 * `highlighted` (null: plain); with `links`, the names of highlighted lines
 * link to their definition while the budget lasts (plain lines never: the
 * highlighter is what tells a name from a keyword, a string or a comment).
 */
export function codeRows(
  lines: readonly string[],
  options: { firstLine: number; highlighted: readonly CodeLine[] | null; links?: LinkBudget },
): HtmlEscapedString {
  const rows: string[] = [];
  const { links } = options;
  for (let i = 0; i < lines.length; i++) {
    const number = options.firstLine + i;
    const highlighted = options.highlighted?.[i];
    const cell = links !== undefined && highlighted !== undefined
      ? linkedCell(highlighted, { line: number, budget: links, escape: escapedText })
      : highlightedCell(lines[i], highlighted);
    rows.push(
      `<tr id="L${number}"><td class="num"><a href="#L${number}">${number}</a></td><td>${cell}</td></tr>`,
    );
  }
  return raw(rows.join("")) as HtmlEscapedString;
}
