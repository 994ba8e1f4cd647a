/**
 * Term analysis shared by indexing and querying: identifier terms and CJK
 * bigrams. The same analysis runs on documents and on queries, so
 * `parseHTTPRequest`, `parse_http_request` and `parse-http-request` all
 * produce `parse`, `http`, `request` and the whole identifier
 * `parsehttprequest`, and `项目知识` produces `项目`, `目知`, `知识`.
 *
 * Terms contain only lower-case letters, digits, marks and CJK characters, so
 * they can be quoted into an FTS5 query without any escaping.
 *
 * @module
 */

const CJK = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}`;
// A word is a CJK run, or an identifier: alphanumeric runs joined by _ or -.
const WORD = new RegExp(
  String
    .raw`([${CJK}]+)|((?:[[\p{L}\p{N}\p{M}]--[${CJK}]])+(?:[_\-]+(?:[[\p{L}\p{N}\p{M}]--[${CJK}]])+)*)`,
  "gv",
);
// Identifier parts: an upper-case run before a capitalised word (HTTP|Request),
// a capitalised or lower-case word, or a digit run; digits stay on their word.
const PART =
  /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?[\p{Ll}\p{M}]+\p{N}*|\p{Lu}+\p{N}*|\p{L}+\p{N}*|\p{N}+/gu;
// The same rules for ASCII, which is most source text: about four times faster.
const ASCII_PART = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+/g;
// Candidate runs: anything that may hold a word. Pure ASCII runs take the fast path.
const RUN = /[A-Za-z0-9_\-\u0080-\uffff]+/g;
const NON_ASCII = /[\u0080-\uffff]/;
const PLAIN_WORD = /^[a-z0-9]+$/;

/** Longest term kept; longer identifiers (hashes, blobs) are cut to this. */
export const MAX_TERM_LENGTH = 64;
/** Most distinct terms a query keeps (the rest are ignored). */
export const MAX_QUERY_TERMS = 64;

/**
 * Appends the terms of `text` to `out`, in document order. With `compounds`
 * false an identifier gives its parts only, not the parts joined (the term
 * sequence a phrase query matches, wherever the identifier stands).
 */
export function analyzeInto(
  text: string,
  out: string[],
  options: { compounds?: boolean } = {},
): void {
  const compounds = options.compounds ?? true;
  for (const [run] of text.matchAll(RUN)) {
    if (NON_ASCII.test(run)) {
      for (const match of run.matchAll(WORD)) {
        if (match[1] !== undefined) addCjkTerms(match[1], out);
        else addIdentifierTerms(match[2], { partPattern: PART, compounds }, out);
      }
    } else if (PLAIN_WORD.test(run)) {
      out.push(clip(run)); // the common case: one lower-case word, already a term
    } else {
      addIdentifierTerms(run, { partPattern: ASCII_PART, compounds }, out);
    }
  }
}

/** Returns the terms of `text`, in document order, with repeats. */
export function analyzeText(text: string): string[] {
  const out: string[] = [];
  analyzeInto(text, out);
  return out;
}

/** Returns the distinct terms of a query, first occurrence first, at most 64. */
export function analyzeQuery(query: string): string[] {
  const unique = new Set<string>();
  for (const term of analyzeText(query)) {
    unique.add(term);
    if (unique.size === MAX_QUERY_TERMS) break;
  }
  return [...unique];
}

/**
 * The term sequence a query's words make in a document, identifiers as their
 * parts: `HttpRequest` gives `http request`, which a phrase query finds inside
 * `parseHttpRequest`'s `parse http request parsehttprequest` as well as in
 * prose. At most 64 terms.
 */
export function queryPhrase(query: string): string[] {
  const out: string[] = [];
  analyzeInto(query, out, { compounds: false });
  return out.slice(0, MAX_QUERY_TERMS);
}

/**
 * Builds an FTS5 MATCH expression that ranks documents holding any of the
 * terms. Every term is quoted; terms never contain quotes or FTS5 operators.
 */
export function ftsMatchExpression(terms: readonly string[]): string {
  return terms.map((term) => `"${term}"`).join(" OR ");
}

function addCjkTerms(run: string, out: string[]): void {
  // Most CJK is in the BMP, where a character is one code unit.
  const chars = /[\ud800-\udfff]/.test(run) ? Array.from(run) : run;
  if (chars.length === 1) {
    out.push(chars[0]);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
}

function addIdentifierTerms(
  identifier: string,
  options: { partPattern: RegExp; compounds: boolean },
  out: string[],
): void {
  const { partPattern } = options;
  const parts: string[] = [];
  const pieces = /[_\-]/.test(identifier) ? identifier.split(/[_\-]+/) : [identifier];
  for (const piece of pieces) {
    if (piece.length === 0) continue;
    for (const part of piece.match(partPattern) ?? [piece]) parts.push(clip(part.toLowerCase()));
  }
  for (const part of parts) out.push(part);
  if (options.compounds && parts.length > 1) out.push(clip(parts.join("")));
}

function clip(term: string): string {
  return term.length > MAX_TERM_LENGTH ? term.slice(0, MAX_TERM_LENGTH) : term;
}
