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
import { OPERAND_WORDS, ScriptLexer } from "./script_lexer.ts";

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
  let previous = -1; // the punctuator before (its last character), or -1 after a word
  let previousWord = ""; // the word before, when it may be a keyword
  let parens = 0;
  let heading: { at: number; parens: number } | null = null; // a declaration's keyword before its body

  for (let token = lexer.next(); token !== null; token = lexer.next()) {
    const at = token.start;
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
      const outer = frames.at(-1);
      const pattern = (previous === -1 && BEFORE_PATTERN.has(previousWord)) ||
        PATTERN_PUNCTUATION.has(previous) ||
        (outer !== undefined && outer !== "substitution" && outer.pattern &&
          NESTED_PATTERN_PUNCTUATION.has(previous));
      frames.push({ open: at, holdsReturn: false, pattern, head });
      braces++;
    } else if (punct === "}") {
      const frame = frames.pop();
      if (frame === undefined || frame === "substitution") return [];
      braces--;
      if (frame.holdsReturn) markReturn(frames);
      blocks.push({ ...frame, close: at, depth: braces });
    } else if (punct === "${") frames.push("substitution");
    else if (punct === "}$" && frames.pop() !== "substitution") return [];
    previous = punct === "${" ? DOLLAR : punct.charCodeAt(punct.length - 1);
    previousWord = "";
  }
  const unclosed = frames.find((frame) => frame !== "substitution");
  if (frames.length === 0) return blocks;
  if (unclosed === undefined) return [];
  return blocks.filter((block) => block.close < unclosed.open);
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
    // A declaration named so: its resolution reads its members (a `{` after such a word that is
    // not its body, as `module.exports = {`, is kept too: that costs speed, not answers).
    if (block.head !== -1 && spelledIn(spellings, block.head, block.open)) continue;
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
