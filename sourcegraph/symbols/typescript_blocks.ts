/**
 * TypeScript and JavaScript brace blocks left out of a `references` parse,
 * as Rust's are (`rust_bodies.ts`): a block (a function's or a method's
 * body, a class, interface, enum, namespace or object type's body, an
 * object literal) that does not spell the asked name holds no occurrence of
 * it and no declaration of it, so the file is parsed in the ranges around
 * such blocks (`rangesAround`), which the parser sees as `{}`. Kept
 * besides: a block inside another block that holds the word `return`
 * (whether a function body returns a value is read from all its
 * statements); the body of a declaration (a class, interface, enum,
 * namespace or module, or a type alias's object type: another name's
 * resolution reads its members' types, a method's parameters, an
 * interface's call signature; its members' own bodies are looked at one by
 * one); and a block that may declare
 * names another name's lookup meets (a destructuring pattern, an import or
 * export list, a parameter's pattern) or be read for them (an argument, a
 * class's heritage: `extends mixin({ … })`). `SymbolExtractor` parses the
 * whole file instead when the parse in ranges finds an error (a block found
 * wrongly).
 *
 * While braces are matched, comments, strings with their escapes, template
 * literals (their `${ … }` substitutions are code) and regular expression
 * literals are stepped over; a `/` starts a regular expression where an
 * expression may start (after a punctuator other than `)` and `]`, or a
 * keyword such as `return`) and its line holds its closing `/`, else it
 * divides. A file whose braces do not balance keeps its blocks from the
 * first unclosed brace on (all of them for a `}` too many). JSX is not
 * lexed: `.tsx` and `.jsx` files are parsed whole (JSX in a `.js` file
 * meets the fallback above).
 *
 * @module
 */

import type { RustBody } from "./rust_bodies.ts";

const SLASH = 0x2f;
const STAR = 0x2a;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const BACKTICK = 0x60;
const DOLLAR = 0x24;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

// Blocks shorter than this are kept: leaving them out saves the parser nothing worth a range.
const SHORTEST_SKIPPED = 24;

// Words after which a `/` starts a regular expression, not a division.
const BEFORE_EXPRESSION = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
  "extends",
]);

/** A brace block found by `typescriptBlocks`. */
export interface ScriptBlock {
  open: number;
  close: number;
  /** Braces around it (0: at the top of the file). */
  depth: number;
  /** Whether the word `return` is inside it, at any depth. */
  holdsReturn: boolean;
  /**
   * Whether it may declare names or be read for another name's sake: after
   * a declaration's keyword (`const {`, `import {`, `export {`), after `(`,
   * `,` or `[` (a parameter's pattern, an argument, a heritage's call), or
   * after `:`, `{` or `=` inside such a block (a nested pattern).
   */
  pattern: boolean;
  /**
   * For a declaration's body (`class`, `interface`, `enum`, `namespace`,
   * `module`, `type`), where its keyword is; else -1.
   */
  head: number;
}

type Frame =
  | { open: number; holdsReturn: boolean; pattern: boolean; head: number }
  | "substitution";

// Words whose declaration's body is the next brace at their depth.
const DECLARATION_HEADS = new Set(["class", "interface", "enum", "namespace", "module", "type"]);

// The tokens after which a brace opens a pattern (or a block read for other names).
const BEFORE_PATTERN = new Set(["const", "let", "var", "using", "import", "export", "type"]);
const PATTERN_PUNCTUATION = new Set([0x28, 0x2c, 0x5b]); // ( , [
const NESTED_PATTERN_PUNCTUATION = new Set([0x3a, OPEN_BRACE, 0x3d]); // : { =

/**
 * The brace blocks of TypeScript `text`, nested ones too, in the order
 * their `}` comes; none from the first brace that does not balance on.
 */
export function typescriptBlocks(text: string): ScriptBlock[] {
  const lexer = new ScriptLexer(text);
  const blocks: ScriptBlock[] = [];
  const frames: Frame[] = [];
  let braces = 0;
  let previous = -1; // the punctuator before, or -1 after a word
  let previousWord = "";
  let parens = 0;
  let heading: { at: number; parens: number } | null = null; // a declaration's keyword before its body

  for (let at = lexer.next(); at !== -1; at = lexer.next()) {
    const code = text.charCodeAt(at);
    if (lexer.word !== "") {
      if (lexer.word === "return") markReturn(frames);
      if (DECLARATION_HEADS.has(lexer.word)) heading = { at, parens };
      previous = -1;
      previousWord = lexer.word;
      continue;
    }
    if (code === 0x28) parens++;
    else if (code === 0x29) parens--;
    else if (code === OPEN_BRACE) {
      // A declaration's body is the first brace at its keyword's depth (not in `extends f({ … })`).
      const head = heading !== null && heading.parens === parens ? heading.at : -1;
      if (head !== -1) heading = null;
      const outer = frames.at(-1);
      const pattern = (previous === -1 && BEFORE_PATTERN.has(previousWord)) ||
        PATTERN_PUNCTUATION.has(previous) ||
        (outer !== undefined && outer !== "substitution" && outer.pattern &&
          NESTED_PATTERN_PUNCTUATION.has(previous));
      frames.push({ open: at, holdsReturn: false, pattern, head });
      braces++;
    } else if (code === CLOSE_BRACE) {
      const frame = frames.pop();
      if (frame === undefined) return [];
      if (frame === "substitution") {
        // Back in the template literal's text, which may open another substitution.
        if (lexer.template()) frames.push("substitution");
        previous = CLOSE_BRACE;
        continue;
      }
      braces--;
      if (frame.holdsReturn) markReturn(frames);
      blocks.push({ ...frame, close: at, depth: braces });
    } else if (code === DOLLAR && lexer.substitution) {
      frames.push("substitution");
    }
    previous = code;
    previousWord = "";
  }
  const unclosed = frames.find((frame) => frame !== "substitution");
  if (frames.length === 0) return blocks;
  if (unclosed === undefined) return [];
  return blocks.filter((block) => block.close < unclosed.open);
}

function markReturn(frames: Frame[]): void {
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i];
    if (frame !== "substitution") return void (frame.holdsReturn = true);
  }
}

/**
 * The brace blocks of TypeScript `text` a parse for `name` leaves out
 * (outermost: none inside another), in order.
 */
export function typescriptBlocksWithout(text: string, name: string): RustBody[] {
  const spellings = spellingsOf(text, name);
  const blocks = typescriptBlocks(text).sort((a, b) => a.open - b.open);
  const skipped: RustBody[] = [];
  let after = -1; // the end of the last block left out
  for (const block of blocks) {
    if (block.open < after || block.close - block.open < SHORTEST_SKIPPED) continue;
    if (spelledIn(spellings, block.open, block.close)) continue;
    if (block.pattern || (block.holdsReturn && block.depth > 0)) continue;
    // A declaration's body: other names' resolution reads its members (a `{` after such a word
    // that is not its body, as `module.exports = {`, is kept too: that costs speed, not answers).
    if (block.head !== -1) continue;
    skipped.push({ open: block.open, close: block.close, holdsItem: false, holdsGlob: false });
    after = block.close;
  }
  return skipped;
}

// Whether a spelling (in order) starts after `from` and before `to`.
function spelledIn(spellings: readonly number[], from: number, to: number): boolean {
  let low = 0;
  let high = spellings.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (spellings[middle] <= from) low = middle + 1;
    else high = middle;
  }
  return low < spellings.length && spellings[low] < to;
}

// Where `text` spells `name`, also inside a longer word (a block kept too many is harmless).
function spellingsOf(text: string, name: string): number[] {
  const found: number[] = [];
  if (name === "") return found;
  for (let from = text.indexOf(name); from !== -1; from = text.indexOf(name, from + 1)) {
    found.push(from);
  }
  return found;
}

// Tokens of TypeScript code: `next` answers where a word or a punctuator starts (comments,
// strings, template literals and regular expressions stepped over), -1 at the end.
class ScriptLexer {
  #text: string;
  #at = 0;
  #regexAllowed = true;
  /** The word just read, "" for a punctuator. */
  word = "";
  /** Whether the `$` just read opened a template literal's substitution. */
  substitution = false;

  constructor(text: string) {
    this.#text = text;
  }

  next(): number {
    const text = this.#text;
    this.substitution = false;
    this.word = "";
    while (this.#at < text.length) {
      const at = this.#at;
      const code = text.charCodeAt(at);
      if (code <= 0x20) this.#at++;
      else if (code === SLASH && text.charCodeAt(at + 1) === SLASH) {
        const end = text.indexOf("\n", at);
        this.#at = end < 0 ? text.length : end;
      } else if (code === SLASH && text.charCodeAt(at + 1) === STAR) {
        const end = text.indexOf("*/", at + 2);
        this.#at = end < 0 ? text.length : end + 2;
      } else if (code === 0x22 || code === 0x27) {
        this.#at = quotedEnd(text, at);
        this.#regexAllowed = false;
      } else if (code === BACKTICK) {
        this.#at = at + 1;
        if (this.template()) return this.#at - 2; // the `$` of `${`
      } else if (code === SLASH && this.#regexAllowed && this.#regex(at)) {
        this.#regexAllowed = false;
      } else if (isWordCode(code)) return this.#word(at);
      else {
        this.#at = at + 1;
        // After `)` or `]` a `/` divides (after `}`, which ends a block more often than an
        // object, it starts a regular expression).
        this.#regexAllowed = code !== 0x29 && code !== 0x5d;
        return at;
      }
    }
    return -1;
  }

  /**
   * Steps over a template literal's text from the current index: true when
   * it stops after a substitution's `${` (the code that follows is lexed),
   * false after the closing backtick.
   */
  template(): boolean {
    const text = this.#text;
    for (let i = this.#at; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === BACKSLASH) i++;
      else if (code === BACKTICK) {
        this.#at = i + 1;
        this.#regexAllowed = false;
        return false;
      } else if (code === DOLLAR && text.charCodeAt(i + 1) === OPEN_BRACE) {
        this.#at = i + 2;
        this.#regexAllowed = true;
        this.substitution = true;
        return true;
      }
    }
    this.#at = text.length;
    return false;
  }

  // A regular expression literal at `at` stepped over; false (a division) when its line ends
  // before its closing `/`.
  #regex(at: number): boolean {
    const text = this.#text;
    let inClass = false;
    for (let i = at + 1; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === NEWLINE) return false;
      if (code === BACKSLASH) i++;
      else if (code === 0x5b) inClass = true;
      else if (code === 0x5d) inClass = false;
      else if (code === SLASH && !inClass) {
        this.#at = i + 1;
        return true;
      }
    }
    return false;
  }

  #word(at: number): number {
    const text = this.#text;
    let end = at + 1;
    while (end < text.length && isWordCode(text.charCodeAt(end))) end++;
    this.#at = end;
    this.word = text.slice(at, end);
    this.#regexAllowed = BEFORE_EXPRESSION.has(this.word);
    return at;
  }
}

// The end of the string at `open` (a backslash escapes the next character; a line ends it).
function quotedEnd(text: string, open: number): number {
  const quote = text.charCodeAt(open);
  for (let i = open + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === quote) return i + 1;
    else if (code === NEWLINE) return i;
  }
  return text.length;
}

function isWordCode(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === DOLLAR || code >= 0x80;
}
