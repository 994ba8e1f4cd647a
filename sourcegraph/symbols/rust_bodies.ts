/**
 * Rust blocks left out of a `references` parse, and function bodies left
 * out of the index's. Tree-sitter's Rust grammar parses a 20-40 KiB file in
 * 5-25 ms in WebAssembly, and most of a file's tokens sit in braces; a
 * brace block (a function's body, an `impl`, `trait`, `mod`, `struct` or
 * `enum` block, an `extern` block, an expression's block, a macro's braces,
 * a `use` list) that does not spell the asked name holds no reference to
 * it, no binding that shadows it, and nothing its resolution needs (what a
 * block declares is seen inside it only, and no name of it is the asked
 * one), so for `references` its contents are left out of the parse, which
 * sees `fn f() {}`, `impl T {}`: the file is parsed in the ranges around
 * such blocks (tree-sitter's included ranges, `rangesAround`), every line and
 * column of the rest where it was. The tree is the one of the text with each
 * such block's code units but newlines as spaces (`blankRustBodies`), but
 * the parser does not step over the spaces, which took most of a blanked
 * file's parse. A block with a glob import (`use m::*;`) is kept: the scopes'
 * analysis asks whether the file has one anywhere. Whole items are left out
 * the same way (`rustSpansWithout`): an item of the file or of an `impl`,
 * `trait`, `mod` or `extern` block that does not spell the name (its
 * attributes and doc comments with it) declares no binding of it, refers to
 * none, and encloses no occurrence; so are the insides of comments that do
 * not spell it. For the index's symbols,
 * a function body that holds no nested item's keyword (`fn`, `struct`,
 * `impl`, `macro_rules`, …) is left out the same way: the tags queries find
 * items only.
 *
 * A body is the `{` that ends a `fn NAME` signature (parameters, `-> Type`,
 * `where` clauses) outside its parentheses, brackets and angle brackets; a
 * signature that meets `;` first has no body (a trait's method). `fn(…)` is a
 * type, not a function. While braces are matched, comments (block comments
 * nest), strings with their escapes, raw strings (`r#"…"#`, any number of
 * `#`; `br`, `cr` too), character literals (`'{'`, `'\u{7D}'`, not a lifetime's
 * `'a`) and raw identifiers (`r#fn`) are stepped over; a macro's block
 * (`m! { … }`, `macro_rules!`) is braces like any other, and a `fn` inside it
 * opens a body like any other. A file whose braces do not balance keeps its
 * bodies from the first unclosed brace on (or all of them, for a `}` too many).
 *
 * @module
 */

import { spelledBetween, spellingsOf } from "./spellings.ts";

const NEWLINE = 0x0a;
const RETURN = 0x0d;
const QUOTE = 0x22; // "
const APOSTROPHE = 0x27; // '
const HASH = 0x23; // #
const BACKSLASH = 0x5c;
const SLASH = 0x2f;
const STAR = 0x2a;
const BANG = 0x21; // !

/** A function body (or a brace block): the indexes of its `{` and its `}`. */
export interface RustBody {
  open: number;
  close: number;
  /**
   * Whether a nested item's keyword (`fn`, `struct`, `impl`, `macro_rules`,
   * …) occurs inside it, at any depth.
   */
  holdsItem: boolean;
  /**
   * Whether a glob import (`use m::*;`) is inside it: the scopes' analysis
   * asks whether the file has one anywhere.
   */
  holdsGlob: boolean;
}

// Words that begin an item (a definition the index keeps) inside a body.
const ITEM_WORDS = new Set([
  "fn",
  "struct",
  "enum",
  "union",
  "trait",
  "impl",
  "mod",
  "type",
  "const",
  "static",
  "macro_rules",
]);

/**
 * The function bodies of Rust `text` (with `blocks`, every brace block),
 * nested ones too, in the order their `}` comes; none from the first brace
 * that does not balance on. With `comments`, each line comment's start and
 * end (before its newline) are pushed to it, in order.
 */
export function rustFunctionBodies(
  text: string,
  options: { blocks?: boolean; comments?: number[]; items?: RustItem[] } = {},
): RustBody[] {
  const every = options.blocks === true;
  const lexer = new Lexer(text, options.comments);
  const items = options.items === undefined ? null : new ItemSpans(text, options.items);
  const bodies: RustBody[] = [];
  const braces: { open: number; body: boolean; holdsItem: boolean; holdsGlob: boolean }[] = [];
  // A `fn NAME` signature being read: its open parentheses and brackets, and angle brackets.
  let signature: { depth: number; angles: number } | null = null;
  let inUse = false; // between `use` and its `;`
  for (let token = lexer.next(); token !== null; token = lexer.next()) {
    const { start, end } = token;
    const code = text.charCodeAt(start);
    if (token.word) {
      const word = keywordAt(text, start, end);
      // Marked on the innermost brace and handed outwards as braces close: marking every
      // enclosing brace at once is quadratic in the nesting (50,000 nested bodies: seconds).
      if (ITEM_WORDS.has(word) && braces.length > 0) braces[braces.length - 1].holdsItem = true;
      const fnItem = word === "fn" && lexer.identifierFollows();
      if (fnItem) signature = { depth: 0, angles: 0 };
      if (word === "use") inUse = true;
      items?.word(word, { braces: braces.length, fnItem });
      continue;
    }
    items?.punctuation(start, { braces: braces.length, glob: code === STAR && inUse });
    if (code === 0x3b) inUse = false; // ;
    if (code === STAR && inUse && braces.length > 0) braces[braces.length - 1].holdsGlob = true;
    if (code === 0x7b) { // {
      const body = signature !== null && signature.depth === 0 && signature.angles === 0;
      if (body) signature = null;
      braces.push({ open: start, body, holdsItem: false, holdsGlob: false });
      items?.open(start, braces.length);
    } else if (code === 0x7d) { // }
      signature = null;
      const brace = braces.pop();
      if (brace === undefined) return items?.none() ?? []; // a `}` too many: the lexer went wrong
      items?.close(start, { braces: braces.length, body: brace.body });
      const outer = braces.at(-1);
      if (outer !== undefined) {
        outer.holdsItem ||= brace.holdsItem;
        outer.holdsGlob ||= brace.holdsGlob;
      }
      if (brace.body || every) {
        const { open, holdsItem, holdsGlob } = brace;
        bodies.push({ open, close: start, holdsItem, holdsGlob });
      }
    } else if (signature !== null) {
      signature = signatureAfter(signature, text, start);
    }
  }
  if (braces.length === 0) return bodies;
  const unclosed = braces[0].open;
  items?.endBefore(unclosed);
  return bodies.filter((body) => body.close < unclosed);
}

/**
 * An item of a level that holds items (the file; an `impl`, `trait`, `mod`
 * or `extern` block): from the end of the item before it (its attributes and
 * comments with it) to its last `}` or `;`, both indexes in the item.
 */
export interface RustItem {
  start: number;
  end: number;
  /** Whether it is (or holds) a glob import. */
  glob: boolean;
}

// The items whose `}` ends them (others end at a `;`: `use`, `const`, `static`, `type`, a tuple
// struct), and those whose block holds items; `!`: a macro call.
const BRACE_ENDED = new Set([
  "impl",
  "trait",
  "mod",
  "struct",
  "enum",
  "union",
  "macro_rules",
  "extern",
  "!",
]);
const ITEM_LISTS = new Set(["impl", "trait", "mod", "extern"]);

// One level of items being read: the brace depth of its items, where the current item began,
// that item's open parentheses and brackets, its kind (its first item word, a `fn` after
// `const` or `extern` overriding it) and whether it holds a glob import.
interface ItemLevel {
  depth: number;
  start: number;
  nesting: number;
  kind: string;
  glob: boolean;
}

// The items of each level, told token by token by `rustFunctionBodies`.
class ItemSpans {
  #text: string;
  #found: RustItem[];
  #levels: ItemLevel[] = [{ depth: 0, start: 0, nesting: 0, kind: "", glob: false }];

  constructor(text: string, found: RustItem[]) {
    this.#text = text;
    this.#found = found;
  }

  // The level whose items are at brace depth `braces`, or null inside an item's own braces.
  #at(braces: number): ItemLevel | null {
    const level = this.#levels[this.#levels.length - 1];
    return level.depth === braces ? level : null;
  }

  word(word: string, at: { braces: number; fnItem: boolean }): void {
    const level = this.#at(at.braces);
    if (level === null || level.nesting > 0 || word === "" || (word === "fn" && !at.fnItem)) return;
    if (
      level.kind === "" || (word === "fn" && (level.kind === "const" || level.kind === "extern"))
    ) {
      level.kind = word;
    }
  }

  punctuation(start: number, at: { braces: number; glob: boolean }): void {
    // A glob import, at any depth, is in the current item of every level.
    if (at.glob) { for (const level of this.#levels) level.glob = true; }
    const level = this.#at(at.braces);
    if (level === null) return;
    const code = this.#text.charCodeAt(start);
    if (code === 0x28 || code === 0x5b) level.nesting++; // ( [
    else if (code === 0x29 || code === 0x5d) level.nesting--; // ) ]
    else if (level.nesting !== 0) return;
    else if (code === 0x3b) this.#end(level, start); // ;
    else if (code === BANG && level.kind === "" && this.#text.charCodeAt(start - 1) !== HASH) {
      level.kind = "!"; // a macro call, not an inner attribute's `#!`
    }
  }

  // A `{` at `open`, `braces` deep with it.
  open(open: number, braces: number): void {
    const level = this.#at(braces - 1);
    if (level === null || level.nesting !== 0 || !ITEM_LISTS.has(level.kind)) return;
    this.#levels.push({ depth: braces, start: open + 1, nesting: 0, kind: "", glob: false });
  }

  // A `}` at `close`, `braces` deep without it; `body`: it closed a function's body.
  close(close: number, at: { braces: number; body: boolean }): void {
    if (this.#levels.length > 1 && this.#levels[this.#levels.length - 1].depth === at.braces + 1) {
      this.#levels.pop();
    }
    const level = this.#at(at.braces);
    if (level === null || level.nesting !== 0) return;
    if (BRACE_ENDED.has(level.kind) || (level.kind === "fn" && at.body)) this.#end(level, close);
  }

  #end(level: ItemLevel, end: number): void {
    this.#found.push({ start: level.start, end, glob: level.glob });
    Object.assign(level, { start: end + 1, nesting: 0, kind: "", glob: false });
  }

  // Braces that do not balance: no item after `unclosed` is told, nor any item for a `}` too many.
  endBefore(unclosed: number): void {
    const kept = this.#found.filter((item) => item.end < unclosed);
    this.#found.splice(0, this.#found.length, ...kept);
  }

  none(): [] {
    this.#found.length = 0;
    return [];
  }
}

// Words the lexer looks for, by length (none is longer than 11).
const WORDS_BY_LENGTH: readonly (readonly string[])[] = (() => {
  const byLength: string[][] = Array.from({ length: 12 }, () => []);
  for (const word of [...ITEM_WORDS, "use", "extern"]) byLength[word.length].push(word);
  return byLength;
})();

// The word looked for (an item's keyword or `use`) that text[start, end) spells, or "": compared in
// place, not sliced (most words of a file are none of them).
function keywordAt(text: string, start: number, end: number): string {
  const candidates = WORDS_BY_LENGTH[end - start];
  if (candidates === undefined) return "";
  for (const word of candidates) {
    if (text.startsWith(word, start)) return word;
  }
  return "";
}

// The signature being read after its punctuation at `at`, or null once it ended without a body.
function signatureAfter(
  signature: { depth: number; angles: number },
  text: string,
  at: number,
): { depth: number; angles: number } | null {
  const code = text.charCodeAt(at);
  if (code === 0x28 || code === 0x5b) signature.depth++; // ( [
  else if (code === 0x29 || code === 0x5d) { // ) ]
    if (--signature.depth < 0) return null; // not a signature after all (a macro's pattern)
  } else if (code === 0x3c) signature.angles++; // <
  else if (code === 0x3e && text.charCodeAt(at - 1) !== 0x2d && signature.angles > 0) { // > (not ->)
    signature.angles--;
  } else if (code === 0x3b && signature.depth === 0) return null; // ;
  return signature;
}

/**
 * `text` with the contents of each brace block that does not spell `name`
 * as a whole word (nor holds a glob import) replaced by spaces (newlines
 * kept); a kept block's nested blocks are looked at on their own.
 */
export function blankRustBodies(text: string, name: string): string {
  return blankedText(text, rustBlocksWithout(text, name));
}

/**
 * The brace blocks of Rust `text` that `blankRustBodies` blanks (each
 * outermost: none inside another), in order.
 */
export function rustBlocksWithout(text: string, name: string): RustBody[] {
  const spellings = wholeWords(text, name);
  let next = 0; // the first spelling after the block's `{` (blocks come in order)
  return outermostBlanked(text, (body) => {
    while (next < spellings.length && spellings[next] <= body.open) next++;
    return body.holdsGlob || (next < spellings.length && spellings[next] < body.close);
  }, { blocks: true });
}

/**
 * What a `references` parse of Rust `text` for `name` leaves out, in order
 * (none inside another): each item of the file, or of an `impl`, `trait`,
 * `mod` or `extern` block, that does not spell `name` as a whole word (nor
 * is a glob import), whole, with its attributes and comments; in the rest,
 * the brace blocks of `rustBlocksWithout`, and the inside of each line
 * comment that does not spell `name` (a run of them with only white space
 * between as one; the parser still sees the first one's `//` and the `/` or
 * `!` after it). The parse then reads the items that spell the name, with
 * what encloses them (a scope's declarations of the name are spelled) and
 * the `use` declarations that import it; the tree of the text with those
 * spans blanked. With `items` false, only blocks and comments.
 */
export function rustSpansWithout(
  text: string,
  name: string,
  options: { items?: boolean } = {},
): RustBody[] {
  const spellings = wholeWords(text, name);
  const comments: number[] = [];
  const items: RustItem[] | undefined = options.items === false ? undefined : [];
  let next = 0; // the first spelling after the block's `{` (blocks come in order)
  const blocks = outermostBlanked(text, (body) => {
    while (next < spellings.length && spellings[next] <= body.open) next++;
    return body.holdsGlob || (next < spellings.length && spellings[next] < body.close);
  }, { blocks: true, comments, items });
  const left = leftItems(items ?? [], spellings);
  const spans: RustBody[] = [];
  let item = 0;
  for (const span of blockAndCommentSpans(text, { blocks, comments, spellings })) {
    while (item < left.length && left[item].close <= span.open) spans.push(left[item++]);
    if (item < left.length && left[item].open < span.open) continue; // inside a left-out item
    spans.push(span);
  }
  spans.push(...left.slice(item));
  return spans;
}

// The items that spell none of `spellings` and hold no glob import, each outermost, adjacent ones
// as one, as spans to leave out (`open` before the first index, `close` after the last).
function leftItems(items: readonly RustItem[], spellings: readonly number[]): RustBody[] {
  const sorted = [...items].sort((a, b) => a.start - b.start || b.end - a.end);
  const left: RustBody[] = [];
  let until = -1;
  for (const { start, end, glob } of sorted) {
    if (start <= until || glob || spelledBetween(spellings, start - 1, end + 1)) continue;
    const last = left[left.length - 1];
    if (last !== undefined && last.close === start) last.close = end + 1;
    else left.push({ open: start - 1, close: end + 1, holdsItem: false, holdsGlob: false });
    until = end;
  }
  return left;
}

// The blocks (outermost, in order) with the comments outside them that do not spell the name.
function blockAndCommentSpans(
  text: string,
  at: { blocks: RustBody[]; comments: number[]; spellings: number[] },
): RustBody[] {
  const { blocks, comments, spellings } = at;
  const spans: RustBody[] = [];
  let block = 0;
  let afterComment = -1; // where the last span ends when it is a comment's, else -1
  const add = (span: RustBody, comment = -1) => {
    // A run of comments with white space between them: one span (the later `//` left out too).
    if (comment >= 0 && afterComment >= 0 && onlySpace(text, afterComment, comment)) {
      spans[spans.length - 1].close = span.close;
    } else spans.push(span);
    afterComment = comment >= 0 ? span.close : -1;
  };
  for (let i = 0; i < comments.length; i += 2) {
    const [start, end] = [comments[i], comments[i + 1]];
    while (block < blocks.length && blocks[block].close < start) add(blocks[block++]);
    if (block < blocks.length && blocks[block].open < start) continue; // inside a skipped block
    if (spelledBetween(spellings, start - 1, end)) continue;
    let inside = start + 2;
    while (text.charCodeAt(inside) === SLASH || text.charCodeAt(inside) === BANG) inside++;
    const close = text.charCodeAt(end - 1) === RETURN ? end - 1 : end;
    if (inside < close) add({ open: inside - 1, close, holdsItem: false, holdsGlob: false }, start);
  }
  while (block < blocks.length) add(blocks[block++]);
  return spans;
}

// Whether text[from, to) is white space only.
function onlySpace(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpaceCode(text.charCodeAt(i))) return false;
  return true;
}

/** A span of a text for the parser: UTF-16 indexes, rows and columns (code units). */
export interface TextRange {
  startIndex: number;
  endIndex: number;
  startPosition: { row: number; column: number };
  endPosition: { row: number; column: number };
}

/**
 * The spans of `text` outside the contents of `bodies` (in order, none
 * inside another): a parse of these ranges only gives the tree of the text
 * with those contents blanked, without stepping over the blanks.
 */
export function rangesAround(
  text: string,
  bodies: readonly { open: number; close: number }[],
): TextRange[] {
  const ranges: TextRange[] = [];
  let row = 0;
  let lineStart = 0; // the index where `row` begins
  let counted = 0; // newlines before this index are counted
  const positionOf = (index: number) => {
    for (let newline = text.indexOf("\n", counted); newline !== -1 && newline < index;) {
      row++;
      lineStart = newline + 1;
      newline = text.indexOf("\n", lineStart);
    }
    counted = index;
    return { row, column: index - lineStart };
  };
  let from = 0;
  for (const { open, close } of bodies) {
    if (open + 1 <= from) { // nothing between two spans left out (or before the first)
      from = Math.max(from, close);
      continue;
    }
    const startPosition = positionOf(from);
    ranges.push({
      startIndex: from,
      endIndex: open + 1,
      startPosition,
      endPosition: positionOf(open + 1),
    });
    from = close;
  }
  if (from >= text.length && ranges.length > 0) return ranges; // the last span ends the text
  const startPosition = positionOf(from);
  ranges.push({
    startIndex: from,
    endIndex: text.length,
    startPosition,
    endPosition: positionOf(text.length),
  });
  return ranges;
}

/**
 * The function bodies of Rust `text` that hold no nested item (`fn`,
 * `struct`, `impl`, `macro_rules`, …: what the index's tags queries find),
 * each outermost (none inside another), in order: the index's symbols parse
 * the text around them (`rangesAround`).
 */
export function itemlessRustBodies(text: string): RustBody[] {
  return outermostBlanked(text, (body) => body.holdsItem);
}

// The bodies `blankOutermost` blanks, in order.
function outermostBlanked(
  text: string,
  kept: (body: RustBody) => boolean,
  options: { blocks?: boolean; comments?: number[]; items?: RustItem[] } = {},
): RustBody[] {
  const bodies = rustFunctionBodies(text, options).sort((a, b) => a.open - b.open);
  const blanked: RustBody[] = [];
  let blankedUntil = -1;
  for (const body of bodies) {
    if (body.open < blankedUntil || kept(body)) continue;
    blanked.push(body);
    blankedUntil = body.close;
  }
  return blanked;
}

/** `text` with the contents of `bodies` (in order, none inside another) replaced by spaces. */
export function blankedText(text: string, bodies: readonly RustBody[]): string {
  if (bodies.length === 0) return text;
  const parts: string[] = [];
  let from = 0;
  for (const { open, close } of bodies) {
    parts.push(text.slice(from, open + 1));
    // Spaces line by line (a regular expression's replacement took as long as the lexing).
    let line = open + 1;
    for (let newline = text.indexOf("\n", line); newline !== -1 && newline < close;) {
      parts.push(" ".repeat(newline - line), "\n");
      line = newline + 1;
      newline = text.indexOf("\n", line);
    }
    parts.push(" ".repeat(close - line));
    from = close;
  }
  parts.push(text.slice(from));
  return parts.join("");
}

// Where `name` is spelled as a whole word (the neighbours are not ASCII word characters, as the
// occurrences' own search has it), in order.
function wholeWords(text: string, name: string): number[] {
  return spellingsOf(text, name).filter((from) =>
    !isAsciiWord(text.charCodeAt(from - 1)) && !isAsciiWord(text.charCodeAt(from + name.length))
  );
}

function isAsciiWord(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) || code === 0x5f;
}

// An identifier's or a number's character (Rust identifiers may be non-ASCII).
function isWordCode(code: number): boolean {
  return isAsciiWord(code) || code >= 0x80;
}

function isSpaceCode(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

// One token: a word (identifier, keyword or number), or one other character; literals and
// comments are stepped over and not returned.
interface Token {
  start: number;
  end: number;
  word: boolean;
}

// Rust text, token by token; `next` answers one token object, changed by the next call (no
// object a token for the garbage collector).
class Lexer {
  #text: string;
  #at = 0;
  #token: Token = { start: 0, end: 0, word: false };
  #comments: number[] | undefined;

  constructor(text: string, comments?: number[]) {
    this.#text = text;
    this.#comments = comments;
  }

  next(): Token | null {
    const text = this.#text;
    for (;;) {
      const at = this.#at;
      if (at >= text.length) return null;
      const code = text.charCodeAt(at);
      if (isSpaceCode(code)) this.#at++;
      else if (code === SLASH && text.charCodeAt(at + 1) === SLASH) {
        this.#at = lineEnd(text, at);
        this.#comments?.push(at, this.#at);
      } else if (code === SLASH && text.charCodeAt(at + 1) === STAR) {
        this.#at = commentEnd(text, at);
      } else if (code === QUOTE) this.#at = quotedEnd(text, at);
      else if (code === APOSTROPHE) this.#at = apostropheEnd(text, at);
      else if (isWordCode(code)) return this.#word(at);
      else {
        this.#at = at + 1;
        return this.#emit(at, at + 1, false);
      }
    }
  }

  // Whether an identifier comes next (after white space): `fn NAME`, not the type `fn(…)`.
  identifierFollows(): boolean {
    let at = this.#at;
    while (isSpaceCode(this.#text.charCodeAt(at))) at++;
    const code = this.#text.charCodeAt(at);
    return isWordCode(code) && !(code >= 0x30 && code <= 0x39);
  }

  // The word at `at`; a raw string's prefix (`r`, `br`, `cr`) steps over the string instead, and
  // a raw identifier (`r#fn`) is one word.
  #word(at: number): Token | null {
    const text = this.#text;
    let end = at + 1;
    while (end < text.length && isWordCode(text.charCodeAt(end))) end++;
    const length = end - at;
    const prefix = length <= 2 && (text.slice(at, end) === "r" || text.slice(at, end) === "br" ||
      text.slice(at, end) === "cr");
    if (prefix && (text.charCodeAt(end) === HASH || text.charCodeAt(end) === QUOTE)) {
      let hashes = end;
      while (text.charCodeAt(hashes) === HASH) hashes++;
      if (text.charCodeAt(hashes) === QUOTE) {
        const closing = `"${"#".repeat(hashes - end)}`;
        const close = text.indexOf(closing, hashes + 1);
        this.#at = close < 0 ? text.length : close + closing.length;
        return this.next();
      }
      if (length === 1 && hashes === end + 1) { // r#ident
        end = hashes;
        while (end < text.length && isWordCode(text.charCodeAt(end))) end++;
      }
    }
    this.#at = end;
    return this.#emit(at, end, true);
  }

  #emit(start: number, end: number, word: boolean): Token {
    const token = this.#token;
    token.start = start;
    token.end = end;
    token.word = word;
    return token;
  }
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf("\n", from);
  return end < 0 ? text.length : end;
}

// The end of the block comment at `open` (they nest).
function commentEnd(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length - 1; i++) {
    const code = text.charCodeAt(i);
    if (code === SLASH && text.charCodeAt(i + 1) === STAR) {
      depth++;
      i++;
    } else if (code === STAR && text.charCodeAt(i + 1) === SLASH) {
      i++;
      if (--depth === 0) return i + 1;
    }
  }
  return text.length;
}

// The end of the string at `open` (it may span lines; a backslash escapes the next character).
function quotedEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === QUOTE) return i + 1;
  }
  return text.length;
}

// After the `'` at `at`: the end of a character literal (`'a'`, `'\n'`, `'\u{1F600}'`, `'{'`),
// or of a lifetime's or label's `'` (`'a`, `'static`): its name is the next word.
function apostropheEnd(text: string, at: number): number {
  if (text.charCodeAt(at + 1) === BACKSLASH) {
    for (let i = at + 3; i < text.length && i < at + 16; i++) {
      const code = text.charCodeAt(i);
      if (code === APOSTROPHE) return i + 1;
      if (code === NEWLINE || code === RETURN) break;
    }
    return at + 1;
  }
  const first = text.charCodeAt(at + 1);
  const width = first >= 0xd800 && first <= 0xdbff ? 2 : 1; // a surrogate pair: one character
  if (first !== NEWLINE && text.charCodeAt(at + 1 + width) === APOSTROPHE) return at + 2 + width;
  return at + 1;
}
