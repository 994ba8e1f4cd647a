/**
 * Where a TypeScript or JavaScript text names a declaration inside its
 * documentation comments (`/** … *\/`), as the compiler reads them: the
 * first name of a `{@link Name}` (`@linkcode`, `@linkplain`), and a name of
 * the type expression in braces right after a tag that takes one
 * (`@param {Partial<Options>} name`, `@returns {Instance}`, `@type {Map}`).
 * Prose, `@example` code, line comments and other block comments name
 * nothing.
 *
 * @module
 */

import { OPERAND_WORDS, ScriptLexer } from "./script_lexer.ts";

/** A name written in a documentation comment. */
export interface JsdocName {
  /** Its UTF-16 offset in the text. */
  index: number;
  /** `type` in a tag's type expression, `read` in a link. */
  role: "type" | "read";
}

// The tags the compiler reads a braced type expression after.
const TYPED_TAGS = new Set([
  "param",
  "arg",
  "argument",
  "returns",
  "return",
  "type",
  "typedef",
  "throws",
  "exception",
  "this",
  "enum",
  "satisfies",
  "property",
  "prop",
  "template",
  "implements",
  "augments",
  "extends",
]);

const NAME_CHARACTER = /[A-Za-z0-9_$]/;
const LINK_BEFORE = /\{@link(?:code|plain)?\s+$/;
const TAG_BEFORE = /@([A-Za-z]+)\s*$/;

/**
 * The places the documentation comments of `text` name `name` (a whole
 * word), in text order; none when the text has no `/**` comment.
 */
export function jsdocNames(text: string, name: string): JsdocName[] {
  if (!text.includes("/**") || !text.includes(name)) return [];
  const found: JsdocName[] = [];
  for (const [open, close] of jsdocComments(text)) {
    const body = text.slice(open, close);
    if (!body.includes(name)) continue;
    for (const place of namesInComment(body, name)) {
      found.push({ index: open + place.index, role: place.role });
    }
  }
  return found;
}

// The insides of the text's `/**` comments (`[start, end)`), found between the tokens a lexer
// steps over, so that a `/**` inside a string or a template is none.
function jsdocComments(text: string): [number, number][] {
  const lexer = new ScriptLexer(text);
  const comments: [number, number][] = [];
  let end = 0;
  for (let token = lexer.next(); token !== null; token = lexer.next()) {
    if (token.start > end) commentsBetween(text, { from: end, to: token.start }, comments);
    end = token.end;
    if (token.word) {
      lexer.regexAllowed = OPERAND_WORDS.has(text.slice(token.start, token.end));
    } else {
      lexer.regexAllowed = token.punct !== "lit" && token.punct !== ")" && token.punct !== "]";
    }
  }
  if (text.length > end) commentsBetween(text, { from: end, to: text.length }, comments);
  return comments;
}

// The `/**` comments in a run of white space and comments.
function commentsBetween(
  text: string,
  at: { from: number; to: number },
  into: [number, number][],
): void {
  let i = at.from;
  while (i < at.to) {
    const next = text.indexOf("/", i);
    if (next === -1 || next >= at.to) return;
    if (text[next + 1] === "/") {
      const line = text.indexOf("\n", next);
      i = line === -1 ? at.to : line + 1;
    } else if (text[next + 1] === "*") {
      const close = text.indexOf("*/", next + 2);
      const stop = close === -1 ? at.to : close;
      if (text[next + 2] === "*" && next + 3 <= stop) into.push([next + 3, stop]);
      i = stop + 2;
    } else {
      i = next + 1;
    }
  }
}

// The whole-word spellings of `name` in one comment's inside that name a declaration.
function namesInComment(body: string, name: string): JsdocName[] {
  const found: JsdocName[] = [];
  const types = typeExpressions(body);
  // The type expressions are in order and apart: one pointer walks them beside the spellings.
  let type = 0;
  for (let from = body.indexOf(name); from !== -1; from = body.indexOf(name, from + 1)) {
    const end = from + name.length;
    if (NAME_CHARACTER.test(body[from - 1] ?? "") || NAME_CHARACTER.test(body[end] ?? "")) continue;
    const before = body.slice(Math.max(0, from - 16), from);
    if (LINK_BEFORE.test(before)) {
      found.push({ index: from, role: "read" });
      continue;
    }
    while (type < types.length && types[type][1] < end) type++;
    const inType = type < types.length && types[type][0] <= from;
    if (inType && typeNameAt(body, { from, end })) found.push({ index: from, role: "type" });
  }
  return found;
}

// The braced type expressions (`[open, close)`, inside the braces) right after a tag that takes
// one; nested braces (an object type) are inside their expression. Braces are matched in one
// pass, so a comment of many unclosed braces costs its length, not its length squared.
function typeExpressions(body: string): [number, number][] {
  const closing = new Map<number, number>();
  const opened: number[] = [];
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "{") opened.push(i);
    else if (body[i] === "}" && opened.length > 0) closing.set(opened.pop()!, i);
  }
  const found: [number, number][] = [];
  for (let open = body.indexOf("{"); open !== -1; open = body.indexOf("{", open + 1)) {
    const tag = TAG_BEFORE.exec(body.slice(Math.max(0, open - 24), open));
    const close = closing.get(open);
    if (tag === null || !TYPED_TAGS.has(tag[1]) || close === undefined) continue;
    found.push([open + 1, close]);
    open = close;
  }
  return found;
}

// Whether a spelling inside a type expression is a type's name: not a member after `.`, not an
// object type's key (`{ name: string }`), not inside quotes (`T["name"]`).
function typeNameAt(body: string, at: { from: number; end: number }): boolean {
  let before = at.from - 1;
  while (before >= 0 && body[before] === " ") before--;
  if (body[before] === "." || body[before] === '"' || body[before] === "'") return false;
  let after = at.end;
  while (after < body.length && body[after] === " ") after++;
  if (body[after] === "?") after++;
  return body[after] !== ":";
}
