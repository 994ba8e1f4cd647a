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

/** The rows of `lines`, numbered from `firstLine`, highlighted as `highlighted` (null: plain). */
export function codeRows(
  lines: readonly string[],
  options: { firstLine: number; highlighted: readonly CodeLine[] | null },
): HtmlEscapedString {
  const rows: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const number = options.firstLine + i;
    rows.push(
      `<tr id="L${number}"><td class="num"><a href="#L${number}">${number}</a></td><td>${
        highlightedCell(lines[i], options.highlighted?.[i])
      }</td></tr>`,
    );
  }
  return raw(rows.join("")) as HtmlEscapedString;
}
