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

// A run of name characters (the characters `references` and `definition` read as a name).
const WORD = /[A-Za-z0-9_$]+/g;
const NAME_START = /[A-Za-z_$]/;

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
    let inner = "";
    if (budget.left > 0 && linksIn(segment.scope)) {
      let at = 0;
      let atColumn = column;
      for (const match of text.matchAll(WORD)) {
        const start = match.index;
        const before = text.slice(at, start);
        atColumn += codePoints(before);
        inner += escape(before);
        at = start + match[0].length;
        if (!NAME_START.test(match[0][0]) || budget.left <= 0) {
          inner += escape(match[0]);
        } else {
          budget.left--;
          inner += `<a href="?line=${options.line}&amp;column=${atColumn}">${match[0]}</a>`;
        }
        atColumn += match[0].length;
      }
      inner += escape(text.slice(at));
    } else {
      inner = escape(text);
    }
    column += codePoints(text);
    out += segment.scope === null
      ? inner
      : `<span class="${escape(segment.scope)}">${inner}</span>`;
  }
  return out;
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}
