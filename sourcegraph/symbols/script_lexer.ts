/**
 * A lexer of TypeScript and JavaScript text for the scans that find blocks
 * without parsing (`script_bodies.ts` for the tags parse,
 * `typescript_blocks.ts` for a references parse): tokens, with comments,
 * strings, template literals and regular expressions stepped over.
 *
 * @module
 */

/** Words after which an operand may begin: a `/` there begins a regular expression. */
export const OPERAND_WORDS: ReadonlySet<string> = new Set([
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
]);

/**
 * One token: a word, or punctuation (`=>`, `...`, `?.`, `${` and a
 * template's closing `}$`, `lit` for a string, template or regular
 * expression, or one other character).
 */
export interface ScriptToken {
  /** Where it starts in the text. */
  start: number;
  /** Where it ends (exclusive). */
  end: number;
  /** Whether it is a word (a name, a keyword or a number). */
  word: boolean;
  /** For punctuation, what it is (see above); meaningless for a word. */
  punct: string;
}

const NEWLINE = 0x0a;
const SLASH = 0x2f;
const STAR = 0x2a;
const BACKSLASH = 0x5c;
const BACKTICK = 0x60;

/**
 * TypeScript or JavaScript text, token by token (one token object, changed
 * by each call): comments and white space are stepped over, a string, a
 * template literal's text and a regular expression are `lit` tokens (a
 * template's `${` and the `}` that closes it, `}$`, are tokens of their own,
 * the code between them lexed as code). Whether a `/` begins a regular
 * expression is the caller's to say (`regexAllowed`), from the tokens
 * before it. A leading `#!` line is stepped over.
 *
 * @example
 * ```ts
 * import { ScriptLexer } from "./script_lexer.ts";
 *
 * const lexer = new ScriptLexer("f(`a${b}c`)");
 * const tokens: string[] = [];
 * for (let token = lexer.next(); token !== null; token = lexer.next()) {
 *   tokens.push(token.word ? "word" : token.punct);
 * }
 * if (tokens.join(" ") !== "word ( ${ word }$ lit )") throw new Error(tokens.join(" "));
 * ```
 */
export class ScriptLexer {
  /** Whether a `/` met next begins a regular expression (else it divides). */
  regexAllowed = true;
  #text: string;
  #at = 0;
  #token: ScriptToken = { start: 0, end: 0, word: false, punct: "" };
  // For each `${` open, the braces open inside it; the template resumes when its `}` comes.
  #templates: number[] = [];
  #inTemplate = false;

  constructor(text: string) {
    this.#text = text;
    if (text.startsWith("#!")) this.#at = lineEnd(text, 0);
  }

  /** The next token, or null at the end of the text. */
  next(): ScriptToken | null {
    const text = this.#text;
    if (this.#inTemplate) return this.#templateRest(this.#at);
    for (;;) {
      const at = this.#at;
      if (at >= text.length) return null;
      const code = text.charCodeAt(at);
      const second = text.charCodeAt(at + 1);
      if (isSpaceCode(code)) this.#at++;
      else if (code === SLASH && second === SLASH) this.#at = lineEnd(text, at);
      else if (code === SLASH && second === STAR) {
        const end = text.indexOf("*/", at + 2);
        this.#at = end < 0 ? text.length : end + 2;
      } else if (code === 0x22 || code === 0x27) {
        return this.#emit(at, quotedEnd(text, at, code), "lit");
      } else if (code === BACKTICK) return this.#templateRest(at + 1);
      else if (code === SLASH && this.regexAllowed) {
        return this.#emit(at, regexEnd(text, at), "lit");
      } else if (isWordCode(code)) {
        let end = at + 1;
        while (end < text.length && isWordCode(text.charCodeAt(end))) end++;
        this.#at = end;
        this.#token.start = at;
        this.#token.end = end;
        this.#token.word = true;
        return this.#token;
      } else return this.#punctuation(at, code, second);
    }
  }

  /** Whether a name comes next (after white space): `type T`, not `type:` or `type =`. */
  identifierFollows(): boolean {
    let at = this.#at;
    while (isSpaceCode(this.#text.charCodeAt(at))) at++;
    const code = this.#text.charCodeAt(at);
    return isWordCode(code) && !(code >= 0x30 && code <= 0x39);
  }

  #punctuation(at: number, code: number, second: number): ScriptToken {
    if (code === 0x3d && second === 0x3e) return this.#emit(at, at + 2, "=>");
    if (code === 0x2e && second === 0x2e && this.#text.charCodeAt(at + 2) === 0x2e) {
      return this.#emit(at, at + 3, "...");
    }
    if (code === 0x3f && second === 0x2e) return this.#emit(at, at + 2, "?.");
    const templates = this.#templates;
    if (code === 0x7b && templates.length > 0) templates[templates.length - 1]++;
    if (code === 0x7d && templates.length > 0 && templates[templates.length - 1]-- === 0) {
      templates.pop();
      this.#inTemplate = true;
      return this.#emit(at, at + 1, "}$");
    }
    return this.#emit(at, at + 1, String.fromCharCode(code));
  }

  // The rest of a template literal from `from` (after its backtick or a `}` that closed a
  // `${`): up to its next `${` (a token of its own) or its end (a literal).
  #templateRest(from: number): ScriptToken {
    this.#inTemplate = false;
    const text = this.#text;
    for (let i = from; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === BACKSLASH) i++;
      else if (code === BACKTICK) return this.#emit(from, i + 1, "lit");
      else if (code === 0x24 && text.charCodeAt(i + 1) === 0x7b) {
        this.#templates.push(0);
        return this.#emit(i, i + 2, "${");
      }
    }
    return this.#emit(from, text.length, "lit");
  }

  #emit(start: number, end: number, punct: string): ScriptToken {
    this.#at = end;
    this.#token.start = start;
    this.#token.end = end;
    this.#token.word = false;
    this.#token.punct = punct;
    return this.#token;
  }
}

// The end of a regular expression at `open`: its closing `/` (not inside a class `[…]` or
// escaped) and its flags; a line's end when it has none.
function regexEnd(text: string, open: number): number {
  let inClass = false;
  for (let i = open + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === NEWLINE) return i;
    else if (code === 0x5b) inClass = true;
    else if (code === 0x5d) inClass = false;
    else if (code === SLASH && !inClass) {
      let end = i + 1;
      while (end < text.length && isWordCode(text.charCodeAt(end))) end++;
      return end;
    }
  }
  return text.length;
}

// The end of a `'` or `"` string at `open` (a line's end when unclosed).
function quotedEnd(text: string, open: number, quote: number): number {
  for (let i = open + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === quote) return i + 1;
    else if (code === NEWLINE) return i;
  }
  return text.length;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf("\n", from);
  return end < 0 ? text.length : end;
}

/** Whether `code` is a name's or a number's character (`$`, `_` and non-ASCII letters included). */
export function isWordCode(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x24 || code >= 0x80;
}

function isSpaceCode(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}
