/**
 * The identifiers of a highlighted line as links to their definition: each
 * name the highlighter left as code (no scope, or the scope of a name:
 * a title, variable, parameter, property, type) becomes
 * `<a href="?line=L&column=C">`, the file page's own URL with the position,
 * which the file route sends on to the definition view at the same commit.
 * Keywords, strings, comments, numbers and the like are never links.
 * Nothing is resolved while the page renders: a link only carries its
 * position, so the file page costs what it did plus the links' bytes.
 *
 * The href is relative (about 30 bytes a link where the full definition URL
 * takes 100 or more), and the links of one page are capped
 * (`IDENTIFIER_LINKS_MAX`): past the cap the names are plain text, so a page
 * of 5,000 lines dense with names grows by at most about 0.75 MiB
 * (`tests/sourcegraph/web/code/identifier_links_test.ts` measures it: 100,000
 * names, 20,000 links, 38 bytes each).
 *
 * @module
 */

import type { CodeLine } from "./highlighted_lines.ts";

/** Most identifier links one file page emits; the names past it are plain text. */
export const IDENTIFIER_LINKS_MAX = 20_000;

// Scopes whose text is code that may hold names; anything else (keywords,
// strings, comments, numbers, regexps, meta, doc tags) never links.
const NAME_SCOPES = /^hljs-(?:title|variable|params|property|attr|type|built_in|subst)\b/;

/** How many links a page may still emit (shared by its rows). */
export interface LinkBudget {
  left: number;
}

function linksIn(scope: string | null): boolean {
  if (scope === null) return true;
  // `this`, `self` and the like are the language's own (`hljs-variable language_`).
  return NAME_SCOPES.test(scope) && !scope.includes("language_");
}

/**
 * One line's segments as HTML with its names linked (`escape` escapes text
 * and attribute values); columns count code points from 1, as the
 * definition view reads them.
 */
export function linkedCell(
  line: CodeLine,
  options: { line: number; budget: LinkBudget; escape: (text: string) => string },
): string {
  const { budget, escape } = options;
  let out = "";
  let column = 1;
  for (const segment of line) {
    const text = segment.text;
    const inner = budget.left > 0 && linksIn(segment.scope)
      ? linkedText(text, { line: options.line, column, budget, escape })
      : escape(text);
    column += codePoints(text);
    out += segment.scope === null
      ? inner
      : `<span class="${escape(segment.scope)}">${inner}</span>`;
  }
  return out;
}

// One segment's text with its names linked, from `column`: one pass over its
// characters, the text between names escaped a run at a time (a page holds
// tens of thousands of names, so this stays a loop rather than a regular
// expression and a slice per name).
function linkedText(
  text: string,
  at: { line: number; column: number; budget: LinkBudget; escape: (text: string) => string },
): string {
  let out = "";
  let plainFrom = 0;
  let column = at.column;
  let i = 0;
  while (i < text.length) {
    const unit = text.charCodeAt(i);
    if (!isNameUnit(unit)) {
      // A surrogate pair is one character (one column).
      i += unit >= 0xd800 && unit <= 0xdbff && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
      column++;
      continue;
    }
    let end = i + 1;
    while (end < text.length && isNameUnit(text.charCodeAt(end))) end++;
    if (!isDigit(unit) && at.budget.left > 0) {
      at.budget.left--;
      out += at.escape(text.slice(plainFrom, i)) +
        `<a href="?line=${at.line}&amp;column=${column}">${text.slice(i, end)}</a>`;
      plainFrom = end;
    }
    column += end - i;
    i = end;
  }
  return out + at.escape(text.slice(plainFrom));
}

// A character of a name as `references` and `definition` read one: [A-Za-z0-9_$].
function isNameUnit(unit: number): boolean {
  return (unit >= 97 && unit <= 122) || (unit >= 65 && unit <= 90) || isDigit(unit) ||
    unit === 95 || unit === 36;
}

function isDigit(unit: number): boolean {
  return unit >= 48 && unit <= 57;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    // A high surrogate followed by a low one is one code point.
    if (
      text.charCodeAt(i) >= 0xd800 && text.charCodeAt(i) <= 0xdbff && isLow(text.charCodeAt(i + 1))
    ) i++;
    count++;
  }
  return count;
}
