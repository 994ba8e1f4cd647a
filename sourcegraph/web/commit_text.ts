/**
 * Commit data shown as one line on the pages (subjects, author and
 * committer names): repository bytes that must stay inert beyond HTML
 * escaping. Control characters and the Unicode bidirectional controls are
 * shown as visible `\u{…}` escapes, so none reorders the text around it or
 * moves a terminal's cursor when copied, and the text is cut to a page's
 * share of characters, so a 1 MB subject costs a page no more than a short
 * one.
 *
 * @module
 */

/** Most characters of a subject or a name on a page (the rest is cut, with "…"). */
export const COMMIT_TEXT_MAX_CHARS = 300;

// C0 and C1 controls and DEL, the bidirectional marks, embeddings,
// overrides and isolates, and the line and paragraph separators.
// deno-lint-ignore no-control-regex -- matching controls is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/gu;

/** `text` cut to `maxChars` (default `COMMIT_TEXT_MAX_CHARS`), its unsafe characters escaped visibly. */
export function inertLine(text: string, maxChars: number = COMMIT_TEXT_MAX_CHARS): string {
  const cut = text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
  return cut.replace(UNSAFE, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/**
 * A commit message's body for a `<pre>`: newlines and tabs kept, every
 * other unsafe character escaped visibly as `inertLine` does.
 */
export function inertBody(text: string): string {
  return text.replace(
    UNSAFE,
    (c) => c === "\n" || c === "\t" ? c : `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
}
