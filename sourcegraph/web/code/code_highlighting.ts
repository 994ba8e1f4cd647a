/**
 * What a page asks of the highlighter: a page of a file highlighted as one
 * text (so a comment or string that spans lines is coloured across them),
 * or search result lines each on their own (they come from places far
 * apart). Either answers null, and the page shows plain text, when the path
 * names no grammar, when there is no highlighter, when the highlighter
 * declines, or when what comes back does not spell the lines exactly.
 *
 * @module
 */

import { highlightLanguageOf } from "./code_languages.ts";
import { type CodeLine, highlightedLines } from "./highlighted_lines.ts";
import type { CodeHighlighter } from "./highlighter.ts";

function spells(line: CodeLine, text: string): boolean {
  let joined = "";
  for (const segment of line) joined += segment.text;
  return joined === text;
}

/** The lines of one page of the file at `path`, highlighted, or null. */
export async function highlightFileLines(
  highlighter: CodeHighlighter | undefined,
  file: { path: string; lines: readonly string[] },
): Promise<CodeLine[] | null> {
  const language = highlightLanguageOf(file.path, file.lines[0] ?? "");
  if (highlighter === undefined || language === null || file.lines.length === 0) return null;
  const html = await highlighter.highlight([file.lines.join("\n")], language);
  if (html === null) return null;
  return readBack(() => highlightedLines(html[0]), file.lines);
}

/**
 * The lines of each of `files` (search results) highlighted each on its
 * own, or null for a file; one highlighter job per language.
 */
export async function highlightResultLines(
  highlighter: CodeHighlighter | undefined,
  files: readonly { path: string; lines: readonly string[] }[],
): Promise<(CodeLine[] | null)[]> {
  const byLanguage = new Map<string, number[]>();
  files.forEach((file, i) => {
    const language = highlightLanguageOf(file.path);
    if (language !== null && file.lines.length > 0) {
      byLanguage.set(language, [...byLanguage.get(language) ?? [], i]);
    }
  });
  const out: (CodeLine[] | null)[] = files.map(() => null);
  if (highlighter === undefined) return out;
  await Promise.all([...byLanguage].map(async ([language, indexes]) => {
    const html = await highlighter.highlight(indexes.flatMap((i) => files[i].lines), language);
    if (html === null) return;
    let at = 0;
    for (const i of indexes) {
      const lines = files[i].lines;
      out[i] = linesOf(html.slice(at, at + lines.length), lines);
      at += lines.length;
    }
  }));
  return out;
}

function linesOf(html: readonly string[], texts: readonly string[]): CodeLine[] | null {
  return readBack(() => html.map((one) => highlightedLines(one)[0] ?? []), texts);
}

// The lines `read` makes of highlight.js's HTML, when they spell `texts`
// exactly; null when they do not, or the HTML is not what highlight.js emits.
function readBack(read: () => CodeLine[], texts: readonly string[]): CodeLine[] | null {
  try {
    const lines = read();
    if (lines.length !== texts.length) return null;
    return lines.every((line, i) => spells(line, texts[i])) ? lines : null;
  } catch {
    return null;
  }
}
