/**
 * TypeScript and JavaScript function bodies left out of the index's tags
 * parse when they hold nothing the tags queries find. Those queries find
 * definitions inside bodies too: functions and classes (`function`,
 * `class`), arrow functions bound to a name, a property or a key
 * (`f = () =>`, `k: () =>`), methods of object literals (`m() {…}`, no
 * keyword at all), the members of an object type (`let x: { a: T }`),
 * enums, interfaces, type aliases and namespaces. So a body is kept whole
 * when, at any depth inside it, the scan meets: one of those keywords (not
 * after a `.`); an `=>` whose function does not follow `(`, `,`, `[`, `=>`,
 * `return`, `?`, `&&`, `||`, `!`, `await`, `yield`, `;`, `{` or `}` (a
 * callback's); a `(…)` followed by `{` or by a return type that is not an
 * `if`, `for`, `while`, `switch`, `catch` or `with` (a method); a `{` in a
 * type (after an annotation's `:` that is not an object key's, a ternary's
 * or a case's, after `as`, `satisfies`, or `<` after a name, until the type
 * ends). Anything the scan cannot tell keeps the body: wrong guesses cost
 * speed, never a symbol.
 *
 * Data written as code goes the same way: an object or array literal
 * assigned (`= {`, `= [`, not in a type) that holds none of the above, and
 * is at least `SHORTEST_LITERAL` long, is left out like a body (a 181 KiB
 * table of rows in the deno tree, 5 symbols: 36 → 2 ms in process).
 *
 * A body is the `{` after a parameter list (`function f(…) {`, a method's,
 * a return type's end) or after `=>`. The scan steps over comments, strings,
 * template literals (with their `${…}`, nested) and regular expressions (a
 * `/` where an operand may begin). A file whose braces do not balance keeps
 * its bodies from the first unclosed brace on (all of them, for a `}` too
 * many); the caller parses a file whole when the parse around its bodies
 * finds an error.
 *
 * @module
 */

import { OPERAND_WORDS, ScriptLexer, type ScriptToken } from "./script_lexer.ts";

/** A body: the indexes of its `{` and its `}`. */
export interface ScriptBody {
  open: number;
  close: number;
}

// Literals shorter than this are parsed: leaving them out saves the parser less than a range costs.
const SHORTEST_LITERAL = 256;

// Keywords that begin a definition inside a body whatever follows them.
const DEFINING_WORDS = new Set(["function", "class", "enum"]);
// Keywords that begin one when a name follows (`type T`, not `{ type: 1 }`).
const NAMED_DEFINING_WORDS = new Set([
  "type",
  "interface",
  "namespace",
  "module",
  "declare",
  "abstract",
]);
// A parenthesis after these is a statement's, not a parameter list.
const CONTROL_WORDS = new Set(["if", "for", "while", "switch", "catch", "with", "await"]);
// An arrow function after these is an argument or an operand: no definition.
const CALLBACK_BEFORE = new Set(["(", ",", "[", "=>", "?", "&", "|", "!", ";", "{", "}"]);
const CALLBACK_WORDS = new Set(["return", "await", "yield"]);
// A `{` in a type after these begins an object type.
const TYPE_OPENERS = new Set([":", "|", "&", "<", ",", "(", "[", "=>", "?", "="]);
const TYPE_OPENER_WORDS = new Set([
  "keyof",
  "readonly",
  "as",
  "satisfies",
  "extends",
  "is",
  "typeof",
  "infer",
]);
// After these a `{` is an object (its `:` are keys'); after anything else, a block.
const OBJECT_AFTER = new Set([
  "=",
  "(",
  ",",
  "[",
  "?",
  ":",
  "...",
  "!",
  "&",
  "|",
  "+",
  "-",
  "*",
  ">", // a type assertion's `<T>{…}`
]);
// Where an operand may begin a `{` is an object, but after `do`, `else` (a block) and `case` (as
// before); after a declaration's keyword it is a pattern, read as an object's keys.
const OBJECT_AFTER_WORDS = new Set([
  ...[...OPERAND_WORDS].filter((word) => word !== "case" && word !== "do" && word !== "else"),
  "const",
  "let",
  "var",
]);
// Statement keywords: a type never holds them.
const TYPE_ENDING_WORDS = new Set([
  "const",
  "let",
  "var",
  "export",
  "function",
  "class",
  "interface",
  "enum",
  "namespace",
  "module",
  "return",
  "if",
  "for",
  "while",
  "switch",
  "throw",
]);
// Words the scan tells apart; any other word is a name (`id`) or a number (`lit`).
const KNOWN_WORDS = new Set([
  ...DEFINING_WORDS,
  ...NAMED_DEFINING_WORDS,
  ...CONTROL_WORDS,
  ...CALLBACK_WORDS,
  ...TYPE_OPENER_WORDS,
  ...OPERAND_WORDS,
  ...OBJECT_AFTER_WORDS,
  ...TYPE_ENDING_WORDS,
  "async",
  "default",
]);

/**
 * The function bodies and assigned data literals of TypeScript or
 * JavaScript `text` that hold no definition the tags queries find, each
 * outermost (none inside another), in order; none from the first brace
 * that does not balance on.
 */
export function definitionlessScriptBodies(text: string): ScriptBody[] {
  const bodies = new BodyScan(text).run();
  if (bodies === null) return [];
  bodies.sort((a, b) => a.open - b.open);
  const outermost: ScriptBody[] = [];
  let until = -1;
  for (const body of bodies) {
    if (body.open < until) continue;
    outermost.push(body);
    until = body.close;
  }
  return outermost;
}

// An open bracket of the scan: `{`, `(`, `[` or a template's `${`.
interface Bracket {
  name: string;
  open: number;
  body: boolean; // a function's body
  object: boolean; // an object literal or pattern (its `:` are keys')
  literal: boolean; // an object or array literal assigned (`= {`, `= [`), outside any type
  holds: boolean; // a definition inside
  ternaries: number; // `?` waiting for their `:`
  caseColon: boolean; // a `case` or `default` waiting for its `:`
  before: string; // the token before it
  beforeThat: string;
}

// A type being read: how many brackets were open where it began, its angle brackets open, and
// what began it (`<` after a name ends with its `>`; a return type's end is a body's `{`).
interface TypeState {
  depth: number;
  angles: number;
  from: "annotation" | "alias" | "angle" | "return";
}

class BodyScan {
  #text: string;
  #lexer: ScriptLexer;
  #brackets: Bracket[] = [];
  #bodies: ScriptBody[] = [];
  #type: TypeState | null = null;
  #previous = ""; // the previous token: punctuation, a known word, `id` or `lit`
  #beforePrevious = "";
  #closed: Bracket | null = null; // the `(` that the previous token, a `)`, closed
  #returnTypeEnded = false; // the type that just ended was a return type
  #objectType = false; // the `{` being opened begins an object type
  #topTernaries = 0;

  constructor(text: string) {
    this.#text = text;
    this.#lexer = new ScriptLexer(text);
  }

  // The bodies that hold no definition, or null for a closing bracket too many.
  run(): ScriptBody[] | null {
    const lexer = this.#lexer;
    for (let token = lexer.next(); token !== null; token = lexer.next()) {
      const name = token.word ? kindOfWord(this.#text, token.start, token.end) : token.punct;
      if (!this.#step(name, token)) return null;
      if (name !== ")") this.#closed = null;
      if (name !== "{") this.#returnTypeEnded = false;
      this.#beforePrevious = this.#previous;
      this.#previous = name;
      lexer.regexAllowed = regexMayFollow(name);
    }
    if (this.#brackets.length === 0) return this.#bodies;
    const unclosed = this.#brackets[0].open;
    return this.#bodies.filter((body) => body.close < unclosed);
  }

  // Takes in one token; false for a closing bracket too many.
  #step(name: string, token: ScriptToken): boolean {
    if (token.word) {
      this.#word(name);
      return true;
    }
    if (this.#type !== null && !this.#typeGoesOn(name)) this.#type = null;
    if (name === "{" || name === "(" || name === "[" || name === "${") {
      this.#open(name, token.start);
    } else if (name === "}" || name === ")" || name === "]" || name === "}$") {
      return this.#close(name, token.start);
    } else if (name === "=>") this.#arrow();
    else if (name === "?") this.#ternaryQuestion(token.start);
    else if (name === ":") this.#colon();
    else if (name === ";" && this.#brackets.length > 0) this.#brackets.at(-1)!.object = false;
    else if (name === "<" && this.#previous === "id" && this.#type === null) {
      this.#type = { depth: this.#brackets.length, angles: 1, from: "angle" };
    }
    return true;
  }

  #word(word: string): void {
    if (this.#previous === "." || this.#previous === "?.") return;
    const type = this.#type;
    // A statement's keyword ends a type that nothing else ended (`f(): T` then a newline).
    if (type !== null && TYPE_ENDING_WORDS.has(word) && this.#brackets.length <= type.depth) {
      this.#type = null;
    }
    if (DEFINING_WORDS.has(word)) this.#mark();
    else if (NAMED_DEFINING_WORDS.has(word) && this.#lexer.identifierFollows()) {
      this.#mark();
      if (word === "type") this.#type = { depth: this.#brackets.length, angles: 0, from: "alias" };
    } else if (word === "case" || word === "default") {
      const top = this.#brackets.at(-1);
      if (top !== undefined) top.caseColon = true;
    } else if ((word === "as" || word === "satisfies") && this.#type === null) {
      this.#type = { depth: this.#brackets.length, angles: 0, from: "annotation" };
    }
  }

  // Whether the type being read goes on through the punctuation `name`; a `{` ends it, marking
  // an object type or, after a return type, opening the body.
  #typeGoesOn(name: string): boolean {
    const type = this.#type!;
    const level = this.#brackets.length === type.depth;
    if (name === "{") {
      const objectType = TYPE_OPENERS.has(this.#previous) ||
        TYPE_OPENER_WORDS.has(this.#previous) || type.angles > 0 || !level;
      if (!objectType) {
        this.#returnTypeEnded = type.from === "return";
        return false;
      }
      this.#mark();
      this.#objectType = true;
      return true; // the type goes on after it (`T extends { … } ? A : B`)
    }
    if (this.#brackets.length < type.depth) return false;
    if (!level) return true;
    if (name === "<") type.angles++;
    else if (name === ">" && type.angles > 0) {
      if (--type.angles === 0 && type.from === "angle") return false;
    } else if (type.angles === 0 && name === "=" && type.from === "alias") {
      type.from = "annotation"; // `type T<…> =`: the aliased type follows
    } else if (type.angles === 0 && (name === "=" || name === ";" || name === ",")) return false;
    return name !== ")" && name !== "]" && name !== "}" && name !== "}$";
  }

  #open(name: string, at: number): void {
    let body = false;
    const objectType = this.#objectType;
    this.#objectType = false;
    if (name === "{" && !objectType) {
      const afterParameters = this.#previous === ")" && this.#closed !== null &&
        !CONTROL_WORDS.has(this.#closed.before);
      // A function's or a method's body: a definition inside the bracket around it.
      body = afterParameters || this.#returnTypeEnded || this.#previous === "=>";
      if (body && this.#previous !== "=>") this.#mark();
    }
    const object = name === "{" && !body &&
      (OBJECT_AFTER.has(this.#previous) || OBJECT_AFTER_WORDS.has(this.#previous));
    const literal = this.#previous === "=" && this.#type === null &&
      ((object && !objectType) || name === "[");
    this.#brackets.push({
      name,
      open: at,
      body,
      object,
      literal,
      holds: false,
      ternaries: 0,
      caseColon: false,
      before: this.#previous,
      beforeThat: this.#beforePrevious,
    });
  }

  #close(name: string, at: number): boolean {
    const bracket = this.#brackets.pop();
    if (bracket === undefined) return false;
    const outer = this.#brackets.at(-1);
    if (outer !== undefined) outer.holds ||= bracket.holds;
    if (bracket.body && !bracket.holds && name === "}") {
      this.#bodies.push({ open: bracket.open, close: at });
    } else if (
      bracket.literal && !bracket.holds && name !== ")" && name !== "}$" &&
      at - bracket.open >= SHORTEST_LITERAL
    ) {
      this.#bodies.push({ open: bracket.open, close: at });
    }
    if (name === ")") this.#closed = bracket;
    return true;
  }

  // An arrow: a definition unless its function is an argument or an operand.
  #arrow(): void {
    const type = this.#type;
    if (type !== null) {
      if (this.#brackets.length > type.depth) return; // a function type inside a type
      // A function type (`let f: () => void`), or an arrow function after its return type
      // (`(x): T => …`) or a key's (`k: (…) => …` in an object read as a block): told apart by
      // nothing here, so a definition; after a return type, the arrow's body follows.
      this.#mark();
      if (type.from === "return") this.#type = null;
      return;
    }
    let before: string;
    if (this.#previous === ")" && this.#closed !== null) {
      before = this.#closed.before === "async" ? this.#closed.beforeThat : this.#closed.before;
    } else if (this.#previous === "id") before = this.#beforePrevious;
    else before = "";
    if (!CALLBACK_BEFORE.has(before) && !CALLBACK_WORDS.has(before)) this.#mark();
  }

  #ternaryQuestion(at: number): void {
    // `?.`, `??`, `?:`, `?(`, `?)`, `?,`, `?=` are optional chaining or an optional member,
    // not a ternary (a `:` not counted as one's is read as an annotation's: at worst a body is
    // kept).
    if ("?.:(),=".includes(this.#text[at + 1] ?? "") || this.#type !== null) return;
    const top = this.#brackets.at(-1);
    if (top === undefined) this.#topTernaries++;
    else top.ternaries++;
  }

  #colon(): void {
    if (this.#type !== null) return;
    const top = this.#brackets.at(-1);
    const depth = this.#brackets.length;
    if (top === undefined ? this.#topTernaries > 0 : top.ternaries > 0) {
      if (top === undefined) this.#topTernaries--;
      else top.ternaries--;
    } else if (top !== undefined && top.caseColon) top.caseColon = false;
    else if (this.#previous === ")") this.#type = { depth, angles: 0, from: "return" };
    else if (top === undefined || !top.object) {
      this.#type = { depth, angles: 0, from: "annotation" };
    }
  }

  // A definition inside the innermost open bracket.
  #mark(): void {
    const top = this.#brackets.at(-1);
    if (top !== undefined) top.holds = true;
  }
}

// The word text[start, end) as the scan names it: a known word itself, `lit` for a number, `id`.
function kindOfWord(text: string, start: number, end: number): string {
  const first = text.charCodeAt(start);
  if (first >= 0x30 && first <= 0x39) return "lit";
  // Every known word is 2 to 10 lower-case letters: most names are told without a slice (the
  // slices took a tenth of a worker's profile).
  if (end - start > 10 || end - start < 2 || first < 0x61 || first > 0x7a) return "id";
  const word = text.slice(start, end);
  return KNOWN_WORDS.has(word) ? word : "id";
}

// Whether a `/` after the token `previous` begins a regular expression (an operand may begin).
function regexMayFollow(previous: string): boolean {
  if (previous === "id" || previous === "lit") return false;
  if (previous === ")" || previous === "]" || previous === "}" || previous === "}$") return false;
  return previous.length <= 3 || OPERAND_WORDS.has(previous);
}
