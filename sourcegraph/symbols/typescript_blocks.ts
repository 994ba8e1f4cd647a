/**
 * TypeScript and JavaScript brace blocks left out of a `references` parse,
 * as Rust's are (`rust_bodies.ts`): a block (a function's or a method's
 * body, a class, interface, enum, namespace or object type's body, an
 * object literal) that does not spell the asked name holds no occurrence of
 * it and no declaration of it, so the file is parsed in the ranges around
 * such blocks (`rangesAround`), which the parser sees as `{}`. A spelling
 * in a comment, or inside a longer name, is none (in a `.js` file, which
 * may hold JSX text the lexer takes for a comment, a comment's is one), and
 * a TypeScript file with none and no `export *` is not parsed at all: it
 * has no occurrence and exports nothing under the name. Kept
 * besides: a block inside another block that holds the word `return`
 * (whether a function body returns a value is read from all its
 * statements); the body of a declaration (a class, interface, enum,
 * namespace or module, or a type alias's object type) whose heading spells
 * the name: the name's resolution reads its members' types (a class's
 * constructor's and methods' parameters, an interface's call signature),
 * while its members' own bodies are looked at one by one; and a block that
 * may declare
 * names another name's lookup meets (a destructuring pattern, an import or
 * export list, a parameter's pattern) or be read for them (an argument, a
 * class's heritage: `extends mixin({ … })`). `SymbolExtractor` parses the
 * whole file instead when the parse in ranges finds an error (a block found
 * wrongly).
 *
 * While braces are matched, comments, strings with their escapes, template
 * literals (their `${ … }` substitutions are code) and regular expression
 * literals are stepped over (`script_lexer.ts`); a `/` starts a regular
 * expression where an expression may start (after a punctuator other than
 * `)` and `]`, or a keyword such as `return`), else it divides. A file whose braces do not balance keeps its blocks from the
 * first unclosed brace on (all of them for a `}` too many). JSX is not
 * lexed: `.tsx` and `.jsx` files are parsed whole (JSX in a `.js` file
 * meets the fallback above).
 *
 * @module
 */

import type { RustBody } from "./rust_bodies.ts";
import { OPERAND_WORDS, ScriptLexer, type ScriptToken } from "./script_lexer.ts";
import { spelledBetween, spellingsOf } from "./spellings.ts";

const DOLLAR = 0x24;
const OPEN_BRACE = 0x7b;

// Blocks shorter than this are kept: leaving them out saves the parser nothing worth a range.
const SHORTEST_SKIPPED = 24;

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

// The words a `*` exporting a module's names comes after (`export * from`, `export type * from`).
const EXPORT_WORDS = new Set(["export", "type"]);

// The tokens after which a brace opens a pattern (or a block read for other names).
const BEFORE_PATTERN = new Set(["const", "let", "var", "using", "import", "export", "type"]);
const PATTERN_PUNCTUATION = new Set([0x28, 0x2c, 0x5b]); // ( , [
const NESTED_PATTERN_PUNCTUATION = new Set([0x3a, OPEN_BRACE, 0x3d]); // : { =

/**
 * The brace blocks of TypeScript `text`, nested ones too, in the order
 * their `}` comes; none from the first brace that does not balance on.
 */
export function typescriptBlocks(text: string): ScriptBlock[] {
  return scannedBlocks(text, { spellings: [], length: 0 }).blocks;
}

// What `scannedBlocks` finds.
type Scanned = {
  blocks: ScriptBlock[];
  inCode: number[];
  exportsAll: boolean;
  comments: RustBody[];
};

// The blocks of `text` (as `typescriptBlocks`), which of `spellings` (offsets, in order) may be
// outside comments, and whether the text may have an `export *` (`export * from`, `export * as`).
// A text whose braces do not balance is not lexed past the first that does not: the spellings
// from there on are taken as code and an `export *` as there.
function scannedBlocks(
  text: string,
  at: { spellings: readonly number[]; length: number },
): Scanned {
  const lexer = new ScriptLexer(text);
  const spellings = new CodeSpellings(text, at);
  let exportsAll = false;
  const unbalanced = () => spellings.scanned(null, true);
  const blocks: ScriptBlock[] = [];
  const frames: Frame[] = [];
  let braces = 0;
  let previous = -1; // the punctuator before (its last character), or -1 after a word
  let previousWord = ""; // the word before, when it may be a keyword
  let parens = 0;
  let heading: { at: number; parens: number } | null = null; // a declaration's keyword before its body

  for (let token = lexer.next(); token !== null; token = lexer.next()) {
    const at = token.start;
    spellings.pass(token);
    if (token.word) {
      const word = keywordAt(text, at, token.end);
      if (word === "return") markReturn(frames);
      if (DECLARATION_HEADS.has(word)) heading = { at, parens };
      lexer.regexAllowed = OPERAND_WORDS.has(word) || word === "extends";
      previous = -1;
      previousWord = word;
      continue;
    }
    const punct = token.punct;
    // A string, template or regular expression: the tokens around it decide.
    if (punct === "lit") {
      lexer.regexAllowed = false;
      continue;
    }
    // After `)` or `]` a `/` divides (after `}`, which ends a block more often than an object, it
    // starts a regular expression).
    lexer.regexAllowed = punct !== ")" && punct !== "]";
    if (punct === "(") parens++;
    else if (punct === ")") parens--;
    else if (punct === "{") {
      // A declaration's body is the first brace at its keyword's depth (not in `extends f({ … })`).
      const head = heading !== null && heading.parens === parens ? heading.at : -1;
      if (head !== -1) heading = null;
      const pattern = opensPattern({ previous, previousWord, outer: frames.at(-1) });
      frames.push({ open: at, holdsReturn: false, pattern, head });
      braces++;
    } else if (punct === "}") {
      const frame = frames.pop();
      if (frame === undefined || frame === "substitution") return unbalanced();
      braces--;
      if (frame.holdsReturn) markReturn(frames);
      blocks.push({ ...frame, close: at, depth: braces });
    } else if (punct === "${") frames.push("substitution");
    else if (punct === "}$" && frames.pop() !== "substitution") return unbalanced();
    if (punct === "*" && previous === -1 && EXPORT_WORDS.has(previousWord)) exportsAll = true;
    previous = punct === "${" ? DOLLAR : punct.charCodeAt(punct.length - 1);
    previousWord = "";
  }
  return spellings.scanned(closedBlocks(blocks, frames), exportsAll);
}

// Whether a `{` after these opens a pattern (or a block read for other names).
function opensPattern(
  at: { previous: number; previousWord: string; outer: Frame | undefined },
): boolean {
  const { previous, previousWord, outer } = at;
  return (previous === -1 && BEFORE_PATTERN.has(previousWord)) ||
    PATTERN_PUNCTUATION.has(previous) ||
    (outer !== undefined && outer !== "substitution" && outer.pattern &&
      NESTED_PATTERN_PUNCTUATION.has(previous));
}

// The blocks found, but none from the first brace left open (`frames`) on.
function closedBlocks(blocks: ScriptBlock[], frames: readonly Frame[]): ScriptBlock[] {
  const unclosed = frames.find((frame) => frame !== "substitution");
  if (frames.length === 0) return blocks;
  if (unclosed === undefined) return [];
  return blocks.filter((block) => block.close < unclosed.open);
}

// The spellings of a name in a text, in order, sorted as the lexer passes its tokens: those
// before a token are in comments (or white space); those from its start to its end are in
// code, a string, a template or a regular expression (`inCode`), but for a part of a longer name.
class CodeSpellings {
  readonly inCode: number[] = [];
  #text: string;
  #spellings: readonly number[];
  #length: number;
  #next = 0; // the first spelling not yet passed

  constructor(text: string, at: { spellings: readonly number[]; length: number }) {
    this.#text = text;
    this.#spellings = at.spellings;
    this.#length = at.length;
  }

  /** The insides of runs of comments between tokens (`commentRun`), in order. */
  readonly comments: RustBody[] = [];
  #end = 0; // where the token before ended

  pass(token: ScriptToken): void {
    if (token.start - this.#end > SHORTEST_SKIPPED) {
      const run = commentRun(this.#text, { from: this.#end, to: token.start });
      if (run !== null) this.comments.push(run);
    }
    this.#end = token.end;
    const spellings = this.#spellings;
    while (this.#next < spellings.length && spellings[this.#next] < token.end) {
      const from = spellings[this.#next++];
      if (from < token.start) continue;
      if (token.word && partOfName(this.#text, { from, to: from + this.#length, token })) continue;
      this.inCode.push(from);
    }
  }

  // What a scan found; `blocks` null when braces that do not balance ended the lexing early:
  // then none, the spellings not passed taken as code, an `export *` as there, no comment left out.
  scanned(blocks: ScriptBlock[] | null, exportsAll: boolean): Scanned {
    const { inCode, comments } = this;
    if (blocks !== null) return { blocks, inCode, exportsAll, comments };
    this.inCode.push(...this.#spellings.slice(this.#next));
    this.#next = this.#spellings.length;
    return { blocks: [], inCode, exportsAll: true, comments: [] };
  }
}

// The inside of the comments between two tokens (`from` to `to`, white space and comments
// only), which a parse leaves out as it does a block's: from after the first comment's `/*` or
// `//` to before the last one's `*/` (the parser sees `/**/`), or to the line's end after a
// `//` (it sees `//`). Only after a line break (or at the text's start): a comment spanning
// lines stands for one where a semicolon may be inserted, and is left whole where none is.
function commentRun(text: string, at: { from: number; to: number }): RustBody | null {
  let first = at.from;
  while (first < at.to && text.charCodeAt(first) <= 0x20) first++;
  let last = at.to;
  while (last > first && text.charCodeAt(last - 1) <= 0x20) last--;
  if (text.charCodeAt(first) !== 0x2f) return null;
  if (at.from > 0 && !text.slice(at.from, first).includes("\n")) return null;
  const kind = text.charCodeAt(first + 1);
  let close = -1;
  if (kind === 0x2a && text.startsWith("*/", last - 2)) close = last - 2;
  const next = text.charCodeAt(last);
  if (kind === 0x2f && (next === 0x0a || next === 0x0d)) close = last;
  if (close - (first + 2) < SHORTEST_SKIPPED) return null;
  return { open: first + 1, close, holdsItem: false, holdsGlob: false };
}

// Whether a spelling (`from` to `to`) inside the word `token` is part of a longer name: the
// word is a name (its first character not a digit) of ASCII name characters only (a parser
// could split a number's digits or a character the lexer takes for a name's from it).
function partOfName(
  text: string,
  at: { from: number; to: number; token: { start: number; end: number } },
): boolean {
  const { from, to, token } = at;
  if (from === token.start && to === token.end) return false;
  const first = text.charCodeAt(token.start);
  if (first >= 0x30 && first <= 0x39) return false;
  for (let i = token.start; i < token.end; i++) {
    if (text.charCodeAt(i) >= 0x80) return false;
  }
  return true;
}

// The word from `start` to `end` when it may be a keyword (2 to 10 lower-case letters, the
// first at least), else "": most names are told without a slice.
function keywordAt(text: string, start: number, end: number): string {
  const first = text.charCodeAt(start);
  if (end - start > 10 || end - start < 2 || first < 0x61 || first > 0x7a) return "";
  return text.slice(start, end);
}

function markReturn(frames: Frame[]): void {
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i];
    if (frame !== "substitution") return void (frame.holdsReturn = true);
  }
}

/**
 * The brace blocks of TypeScript `text` a parse for `name` leaves out
 * (outermost: none inside another), in order; null when nothing is left to
 * parse: the text spells the name only in comments (if at all) and has no
 * `export *`, so it holds no occurrence of the name and exports none under
 * it. With `jsx` (JavaScript, which may hold JSX, whose text the lexer
 * does not know: `<p>a // b {name}</p>`), spellings in comments count as
 * spellings, and null is answered for a text that spells the name nowhere.
 */
export function typescriptBlocksWithout(
  text: string,
  name: string,
  options: { jsx?: boolean } = {},
): RustBody[] | null {
  // Spellings in comments count for nothing: a block (or a file) that writes the name only in
  // comments holds no occurrence of it (a comment is a comment to tree-sitter too), and a
  // `lib.*.d.ts` writes most names in its members' documentation.
  const every = spellingsOf(text, name);
  const scanned = scannedBlocks(text, { spellings: every, length: name.length });
  const spellings = options.jsx === true ? every : scanned.inCode;
  if (spellings.length === 0 && !scanned.exportsAll) return null;
  const blocks = scanned.blocks.sort((a, b) => a.open - b.open);
  const skipped: RustBody[] = [];
  let after = -1; // the end of the last block left out
  for (const block of blocks) {
    if (block.open < after || block.close - block.open < SHORTEST_SKIPPED) continue;
    if (spelledBetween(spellings, block.open, block.close)) continue;
    if (block.pattern || (block.holdsReturn && block.depth > 0)) continue;
    // A declaration named so: its resolution reads its members (a `{` after such a word that is
    // not its body, as `module.exports = {`, is kept too: that costs speed, not answers).
    if (block.head !== -1 && spelledBetween(spellings, block.head, block.open)) continue;
    skipped.push({ open: block.open, close: block.close, holdsItem: false, holdsGlob: false });
    after = block.close;
  }
  // JSX text may hold what the lexer takes for a comment.
  return options.jsx === true ? skipped : withComments(skipped, scanned.comments);
}

// The blocks left out and the comment runs outside them, in order.
function withComments(blocks: readonly RustBody[], comments: readonly RustBody[]): RustBody[] {
  const merged: RustBody[] = [];
  let next = 0;
  for (const comment of comments) {
    while (next < blocks.length && blocks[next].close < comment.open) merged.push(blocks[next++]);
    const block = blocks[next];
    if (block === undefined || comment.close < block.open) merged.push(comment);
  }
  merged.push(...blocks.slice(next));
  return merged;
}
