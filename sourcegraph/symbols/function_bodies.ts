/**
 * C and C++ function bodies blanked before a parse: a body holds most of a
 * file's tokens and none of the definitions the index keeps (its variables
 * are locals), and tree-sitter's C++ grammar parses at a few MiB/s in
 * WebAssembly, so a body's contents are dropped but for its newlines (every
 * line stays where it was; columns do not) and the parse sees `f() {; }`.
 *
 * A `{` opens a body when the token before it ends a parameter list (`)`,
 * but not `__attribute__((…))` and its kin) or is a trailing qualifier
 * (`const`, `override`, …). Comments, strings, character and raw string
 * literals and preprocessor lines are skipped while braces are matched, and
 * of a conditional directive's branches only the first counts (each may open
 * the same brace); from a body whose braces do not balance on, the text is
 * left as it is. What
 * universal-ctags reports inside bodies stays: statements that define a type
 * (`using`, `typedef`, `struct`, …) and preprocessor lines; so does the block
 * of a macro (`TEST_CASE(…) { … }`).
 *
 * @module
 */

const SPACE = 0x20;
const NEWLINE = 0x0a;
const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const PAREN_CLOSE = 0x29; // )
const PAREN_OPEN = 0x28; // (

const QUALIFIERS = new Set(["const", "override", "final", "noexcept", "mutable", "volatile"]);
// `word(…) {` where the parentheses belong to a type, not to a parameter list.
const TYPE_ATTRIBUTES = new Set([
  "__attribute__",
  "__declspec",
  "alignas",
  "_Alignas",
  "__aligned",
  "decltype",
]);

// `TEST_CASE(…) { … }`: a macro's block, whose declarations universal-ctags
// takes for the file's own (and so do readers).
const MACRO_NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * `text` with its function bodies' contents dropped but for their newlines
 * (lines kept). In C (`language` `"c"`), where a file-scope `T name(…);` is
 * always a declaration and the parentheses before a body always its
 * parameters, its function prototypes and definitions' parameters go too (in
 * C++ they may be a variable's constructor arguments or a member
 * initializer's).
 */
export function blankFunctionBodies(
  text: string,
  options: { language?: "c" | "cpp" } = {},
): string {
  const c = options.language === "c";
  const scan = new Scanner(text);
  const drops: Drop[] = [];
  let lastSignificant = -1;
  // Open parentheses, and the one the last `)` closed (-1: none).
  const parentheses: number[] = [];
  let closedParenthesis = -1;
  const statement = new FileScopeStatement();
  while (scan.position < text.length) {
    const at = scan.position;
    const trivia = scan.skipTrivia();
    if (trivia === "#" && statement.start >= 0) statement.plain = false;
    if (trivia !== null) {
      const comment = emptyComment(trivia, scan.position - at);
      if (comment !== null) {
        drops.push({ start: at, end: scan.position, filler: comment, kept: [] });
      }
      continue;
    }
    const code = text.charCodeAt(at);
    const opens = code === OPEN ? opensBody(text, lastSignificant, closedParenthesis) : "no";
    if (opens !== "no") {
      const body = scan.matchBody(at);
      // Unbalanced from here on: the rest stays as it is (and the text is scanned once, not
      // once for each later brace).
      if (body === null) break;
      // A definition's parameters define nothing either (`f(int a, char *b) {` parses as `f() {`).
      if (c && opens === "body" && text.charCodeAt(lastSignificant) === PAREN_CLOSE) {
        dropRange(drops, closedParenthesis + 1, lastSignificant);
      }
      // One empty statement keeps `f() const override { }` a body, not a member's `{}` initializer.
      if (opens === "body") drops.push({ start: at + 1, end: body.close, filler: ";", ...body });
      // An initializer's values (`= { 1, 2, … }`, generated tables) define nothing either.
      if (opens === "values") drops.push({ start: at + 1, end: body.close, filler: "", ...body });
      if (opens === "values") statement.plain = false;
      else statement.end();
      scan.position = body.close + 1;
      lastSignificant = body.close;
      continue;
    }
    const prototype = c && code === 0x3b && parentheses.length === 0 &&
      statement.isPrototype(text, lastSignificant);
    if (prototype) dropRange(drops, statement.start, at + 1);
    if (parentheses.length === 0) statement.see(text, at);
    lastSignificant = scan.skipToken();
    if (code === PAREN_OPEN) parentheses.push(at);
    if (code === PAREN_CLOSE) closedParenthesis = parentheses.pop() ?? -1;
    const contents = code === 0x22 ? stringContents(text, at, lastSignificant) : null;
    if (contents !== null) drops.push({ ...contents, filler: "", kept: [] });
  }
  return drops.length === 0 ? text : dropped(text, drops);
}

// What stands for a comment of `length` characters: an empty one (a
// comment's text is a quarter of a C file's outside its bodies, lexed
// character by character), or null to keep it (a short one, or not a
// comment). Empty, not a space: a `/*` the grammar finds inside a
// directive's string still ends at the same `*/`.
function emptyComment(trivia: Trivia, length: number): string | null {
  if (length <= SHORT_COMMENT) return null;
  return trivia === "//" ? "//" : trivia === "/*" ? "/**/" : null;
}

// Drops text[start, end) (its newlines stay), with what was dropped inside it
// before (its comments and long strings).
function dropRange(drops: Drop[], start: number, end: number): void {
  while (drops.length > 0 && drops[drops.length - 1].start >= start) drops.pop();
  drops.push({ start, end, filler: "", kept: [] });
}

// The file-scope statement the scan is in (outside parentheses): where it
// starts, its first `(`, and whether it is plain (no `=`, `{` or directive
// in it), which a prototype is.
class FileScopeStatement {
  start = -1;
  plain = true;
  #parenthesis = -1;
  // Braces open that are not bodies (a struct's, `extern "C"`, a namespace):
  // what is declared inside them is no prototype.
  #depth = 0;

  // Takes in the token at `at` (outside parentheses).
  see(text: string, at: number): void {
    const code = text.charCodeAt(at);
    if (code === 0x3b || code === OPEN || code === CLOSE) {
      if (code === OPEN) this.#depth++;
      if (code === CLOSE && this.#depth > 0) this.#depth--;
      this.end();
      return;
    }
    if (this.start < 0) this.start = at;
    if (code === PAREN_OPEN && this.#parenthesis < 0) this.#parenthesis = at;
    if (code === 0x3d) this.plain = false; // =
  }

  end(): void {
    this.start = -1;
    this.plain = true;
    this.#parenthesis = -1;
  }

  // Whether the statement ending at a `;` after `last` declares a function
  // and nothing else: `T name(…) …);` at file scope, not a function pointer
  // (`T (*p)(…);`), an attribute (`T v __attribute__((…));`), a macro's
  // use (`DECLARE(x);`: what it expands to is unknown) or a `typedef`.
  isPrototype(text: string, last: number): boolean {
    const open = this.#parenthesis;
    if (this.#depth > 0 || !this.plain || open < 0 || text.charCodeAt(last) !== PAREN_CLOSE) {
      return false;
    }
    const name = wordBefore(text, open);
    if (name === "" || TYPE_ATTRIBUTES.has(name) || MACRO_NAME.test(name)) return false;
    let after = open + 1;
    while (isSpaceCode(text.charCodeAt(after))) after++;
    if (text.charCodeAt(after) === 0x2a || text.charCodeAt(after) === 0x5e) return false; // * ^
    let first = this.start;
    while (isWordCode(text.charCodeAt(first))) first++;
    return text.slice(this.start, first) !== "typedef";
  }
}

// The contents of a long string literal (`"…"` or raw) between `open` and
// `last`; null for a short one (`extern "C"` stays as it is).
function stringContents(
  text: string,
  open: number,
  last: number,
): { start: number; end: number } | null {
  if (last - open < LONG_STRING || text.charCodeAt(last) !== 0x22) return null;
  if (!rawStringStart(text, open)) return { start: open + 1, end: last };
  const parenthesis = text.indexOf("(", open);
  const close = text.lastIndexOf(")", last);
  return parenthesis < 0 || close <= parenthesis ? null : { start: parenthesis + 1, end: close };
}

const LONG_STRING = 64;
// Comments this long or shorter stay (a drop costs more than it saves).
const SHORT_COMMENT = 8;

// What a parse does without: text[start, end) becomes
// `filler` and its newlines, but for the ranges `kept` (universal-ctags reports a function's
// type aliases, its local structs, classes, unions and enums with their
// members, and its macros).
interface Drop {
  start: number;
  end: number;
  filler: string;
  kept: [number, number][];
}

function dropped(text: string, drops: readonly Drop[]): string {
  const parts: string[] = [];
  let from = 0;
  for (const { start, end, filler, kept } of drops) {
    parts.push(text.slice(from, start), filler);
    let gap = start;
    for (const [keptStart, keptEnd] of kept.toSorted((a, b) => a[0] - b[0])) {
      if (keptStart < gap) continue; // inside an earlier kept range
      parts.push(newlines(text, gap, keptStart), text.slice(keptStart, keptEnd));
      gap = keptEnd;
    }
    parts.push(newlines(text, gap, end));
    from = end;
  }
  parts.push(text.slice(from));
  return parts.join("");
}

// The newlines of text[start, end), and nothing else.
function newlines(text: string, start: number, end: number): string {
  let count = 0;
  for (let at = text.indexOf("\n", start); at >= 0 && at < end; at = text.indexOf("\n", at + 1)) {
    count++;
  }
  return "\n".repeat(count);
}

// What the significant text ending at `last` makes the next `{`: a function
// body, an initializer's values, a macro's block (kept whole:
// `TEST_CASE(…) { … }`), or neither. `open` is the `(` that a `)` at `last` closes.
function opensBody(
  text: string,
  last: number,
  open: number,
): "body" | "values" | "macro" | "no" {
  if (last < 0) return "no";
  const code = text.charCodeAt(last);
  if (code === 0x3d) return "values"; // =
  if (code === PAREN_CLOSE) {
    if (open < 0) return "no";
    const name = wordBefore(text, open);
    if (TYPE_ATTRIBUTES.has(name)) return "no";
    return MACRO_NAME.test(name) ? "macro" : "body";
  }
  if (!isWordCode(code)) return "no";
  return QUALIFIERS.has(wordBefore(text, last + 1)) ? "body" : "no";
}

// The identifier that ends just before `end` (white space before `end` skipped).
function wordBefore(text: string, end: number): string {
  let stop = end;
  while (stop > 0 && isSpaceCode(text.charCodeAt(stop - 1))) stop--;
  let start = stop;
  while (start > 0 && isWordCode(text.charCodeAt(start - 1))) start--;
  return text.slice(start, stop);
}

function isWordCode(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) || code === 0x5f;
}

function isSpaceCode(code: number): boolean {
  return code === SPACE || (code >= 0x09 && code <= 0x0d);
}

// What `skipTrivia` stepped over: white space, a line or block comment, a
// preprocessor line.
type Trivia = "space" | "//" | "/*" | "#";

// A cursor over C-family text that steps over comments, literals and
// preprocessor lines.
class Scanner {
  position = 0;
  #text: string;
  #lineStart = true;

  constructor(text: string) {
    this.#text = text;
  }

  // Steps over white space, a comment or a preprocessor line at the cursor;
  // which it stepped over, or null when none is there.
  skipTrivia(): Trivia | null {
    const text = this.#text;
    const at = this.position;
    const code = text.charCodeAt(at);
    if (isSpaceCode(code)) {
      if (code === NEWLINE) this.#lineStart = true;
      this.position++;
      return "space";
    }
    if (code === 0x2f && text.charCodeAt(at + 1) === 0x2f) { // //
      this.position = lineEnd(text, at);
      return "//";
    }
    if (code === 0x2f && text.charCodeAt(at + 1) === 0x2a) { // /*
      const end = text.indexOf("*/", at + 2);
      this.position = end < 0 ? text.length : end + 2;
      return "/*";
    }
    if (code === 0x23 && this.#lineStart) { // #
      this.position = lineEnd(text, at);
      return "#";
    }
    this.#lineStart = false;
    return null;
  }

  // Steps over one token (a literal, a word or one other character); the
  // index of its last character.
  skipToken(): number {
    const text = this.#text;
    const at = this.position;
    const code = text.charCodeAt(at);
    if (code === 0x22) { // "
      this.position = rawStringStart(text, at) ? rawStringEnd(text, at) : quotedEnd(text, at, 0x22);
    } else if (code === 0x27 && !isWordCode(text.charCodeAt(at - 1))) { // ' (not 1'000)
      this.position = quotedEnd(text, at, 0x27);
    } else if (isWordCode(code)) {
      let end = at + 1;
      while (end < text.length && isWordCode(text.charCodeAt(end))) end++;
      this.position = end;
    } else {
      this.position = at + 1;
    }
    return this.position - 1;
  }

  // The body whose `{` is at `open`, or null when its braces do not balance.
  // Conditional directives count as C compilers' first branch: each later
  // branch starts again from the depth at its `#if`.
  matchBody(open: number): { close: number; kept: [number, number][] } | null {
    const text = this.#text;
    const saved = this.position;
    this.position = open + 1;
    let depth = 1;
    const branches: { atIf: number; afterFirst: number | null }[] = [];
    const kept: [number, number][] = [];
    let statementStart = true;
    // A statement that may define a type; a struct, class, union or enum one
    // does only when its own `{` comes before any `=` (`struct s *p = q;`
    // and `struct s v = { … };` are locals).
    let keeping = null as KeptStatement | null;
    try {
      while (this.position < text.length) {
        const at = this.position;
        if (text.charCodeAt(at) === 0x23 && this.#lineStart) {
          depth = branchDepth(directiveName(text, at), depth, branches);
          kept.push([at, lineEnd(text, at)]);
        }
        if (this.skipTrivia() !== null) continue;
        const code = text.charCodeAt(at);
        if (keeping !== null && keeping.depth === depth && !keeping.defines) {
          if (code === OPEN) keeping.defines = true;
          if (code === 0x3d) keeping = null; // =
        }
        if (code === OPEN) depth++;
        else if (code === CLOSE && --depth === 0) return { close: at, kept };
        const end = this.skipToken();
        const word = statementStart && keeping === null ? text.slice(at, end + 1) : "";
        if (ALIAS_WORDS.has(word) || TYPE_WORDS.has(word)) {
          keeping = { start: at, depth, defines: ALIAS_WORDS.has(word) };
        } else if (code === 0x3b && keeping !== null && keeping.depth === depth) { // ;
          if (keeping.defines) kept.push([keeping.start, at + 1]);
          keeping = null;
        }
        statementStart = code === 0x3b || code === OPEN || code === CLOSE;
      }
      return null;
    } finally {
      this.position = saved;
      this.#lineStart = false;
    }
  }
}

// A statement of a body that may define a type, from its first word.
interface KeptStatement {
  start: number;
  depth: number;
  /**
   * Whether it defines a type: an alias (`using`, `typedef`) from its first
   * word, a struct, class, union or enum once its own `{` came before any `=`.
   */
  defines: boolean;
}

// Statements of a body that stay: those that define a type (an alias always; a
// struct, class, union or enum when it has a body of its own).
const ALIAS_WORDS = new Set(["using", "typedef"]);
const TYPE_WORDS = new Set(["struct", "class", "union", "enum"]);

// The brace depth after a directive: each branch of a conditional starts
// from the depth at its `#if`, and after `#endif` the first branch's depth holds.
function branchDepth(
  directive: string,
  depth: number,
  branches: { atIf: number; afterFirst: number | null }[],
): number {
  if (directive.startsWith("if")) branches.push({ atIf: depth, afterFirst: null });
  else if (directive === "else" || directive === "elif") {
    const branch = branches.at(-1);
    if (branch !== undefined) {
      branch.afterFirst ??= depth;
      return branch.atIf;
    }
  } else if (directive === "endif") {
    const branch = branches.pop();
    if (branch !== undefined && branch.afterFirst !== null) return branch.afterFirst;
  }
  return depth;
}

function lineEnd(text: string, from: number): number {
  let at = from;
  for (;;) {
    const end = text.indexOf("\n", at);
    if (end < 0) return text.length;
    // A backslash before the newline continues a directive or a comment.
    let before = end - 1;
    if (text.charCodeAt(before) === 0x0d) before--;
    if (text.charCodeAt(before) !== 0x5c) return end;
    at = end + 1;
  }
}

function quotedEnd(text: string, open: number, quote: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x5c) i++;
    else if (code === quote || code === NEWLINE) return i + 1;
  }
  return text.length;
}

// `R"`, `u8R"`, `LR"`, `uR"`, `UR"` start a raw string.
function rawStringStart(text: string, quote: number): boolean {
  if (text.charCodeAt(quote - 1) !== 0x52) return false; // R
  const prefix = wordBefore(text, quote);
  return prefix === "R" || prefix === "u8R" || prefix === "LR" || prefix === "uR" ||
    prefix === "UR";
}

function rawStringEnd(text: string, quote: number): number {
  const open = text.indexOf("(", quote);
  if (open < 0 || open - quote > 17) return quotedEnd(text, quote, 0x22);
  const closing = `)${text.slice(quote + 1, open)}"`;
  const end = text.indexOf(closing, open + 1);
  return end < 0 ? text.length : end + closing.length;
}

// The directive of the preprocessor line at `hash` (`if`, `ifdef`, `else`, …).
function directiveName(text: string, hash: number): string {
  let at = hash + 1;
  while (text.charCodeAt(at) === SPACE || text.charCodeAt(at) === 0x09) at++;
  let end = at;
  while (end < text.length && isWordCode(text.charCodeAt(end))) end++;
  return text.slice(at, end);
}
