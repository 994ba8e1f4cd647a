/**
 * TypeScript blocks left out of a `references` parse: every brace block is
 * found (comments, strings, template literals and regular expressions hold
 * no braces; a template's substitution is code), a block that does not
 * spell the name is left out unless it may declare or be read for other
 * names (patterns, import lists, arguments), holds a `return` inside
 * another block or is the body of a declaration (a class, an interface, a
 * type alias) the name names, a kept block's nested blocks are looked at on their own, a
 * name written in a comment keeps no block (nor, written only in comments, the file's parse,
 * but for an `export *` or JavaScript, which may hold JSX), the inside of comments that begin
 * a line is left out as a block's, a
 * file whose braces do not balance keeps the rest, and the occurrences
 * found with the blocks left out are those of the whole file, also when
 * the lexer guessed a block wrongly (the file is then parsed whole).
 */

import { assert, assertEquals } from "../../support/assert.ts";
import {
  typescriptBlocks,
  typescriptBlocksWithout,
} from "../../../sourcegraph/symbols/typescript_blocks.ts";
import { SymbolExtractor } from "../../../sourcegraph/symbols/symbol_extractor.ts";

function blockTexts(text: string): string[] {
  return typescriptBlocks(text).map(({ open, close }) => text.slice(open, close + 1));
}

function skippedTexts(text: string, name: string, options: { jsx?: boolean } = {}): string[] {
  const skipped = typescriptBlocksWithout(text, name, options);
  assert(skipped !== null, `${name}: something to parse`);
  return skipped.map(({ open, close }) => text.slice(open, close + 1));
}

Deno.test("typescript blocks: comments, strings, templates and regular expressions hold no braces", () => {
  const text = [
    "function a() { const s = \"}{\"; const t = '{'; return s + t; }",
    "// } a comment",
    "/* { */ function b() { return `}${ { x: 1 }.x }{`; }",
    "function c(v: string) { return /[}]\\}/.test(v) ? v / 2 : 1; }",
  ].join("\n");
  assertEquals(blockTexts(text), [
    `{ const s = "}{"; const t = '{'; return s + t; }`,
    "{ x: 1 }",
    "{ return `}${ { x: 1 }.x }{`; }",
    "{ return /[}]\\}/.test(v) ? v / 2 : 1; }",
  ]);
});

Deno.test("typescript blocks: a block without the name is left out, one with it is looked into", () => {
  const text = [
    "export class Cache {",
    "  put(key: string): void { this.map.set(key, 1); }",
    "  get(key: string): number { return this.map.get(key) ?? 0; }",
    "  clear(): void { this.map.clear(); this.size = 0; }",
    "}",
    "function other(): void { console.log('nothing here at all'); }",
  ].join("\n");
  // Inside the class, which spells the name, `clear` keeps its body; `get`'s holds a `return`.
  assertEquals(skippedTexts(text, "size"), [
    "{ this.map.set(key, 1); }",
    "{ console.log('nothing here at all'); }",
  ]);
  // Without the name in them, the class's body is left out whole.
  assertEquals(skippedTexts(`${text}\nconst absent = 1;`, "absent"), [
    text.slice(text.indexOf("{"), text.indexOf("\n}") + 2),
    "{ console.log('nothing here at all'); }",
  ]);
  // A declaration named so keeps its body (the resolution reads an interface's call signature, a
  // type alias's members, a class's methods' parameters), also when the body does not spell it.
  const types = [
    "export interface Handler { (event: Event): unknown; other: string }",
    "export type Options = { verbose: boolean; label: string; size: number };",
  ].join("\n");
  assertEquals(skippedTexts(types, "Handler"), [
    "{ verbose: boolean; label: string; size: number }",
  ]);
  assertEquals(skippedTexts(types, "Options"), [
    "{ (event: Event): unknown; other: string }",
  ]);
});

Deno.test("typescript blocks: patterns, import lists and arguments are kept", () => {
  const text = [
    "import { readFile, writeFile, mkdir } from 'node:fs/promises';",
    "const { core, internals, primordials } = globalThis.__bootstrap;",
    "function f({ alpha, beta, gamma }: Options, [{ delta }]: Pair) { use(name); }",
    "register({ handler: 1, another: 2, third: 3 }, { more: 4, and: 5, so: 6 });",
    "const plain = { handler: 1, another: 2, third: 3 };",
  ].join("\n");
  assertEquals(skippedTexts(text, "name"), ["{ handler: 1, another: 2, third: 3 }"]);
});

Deno.test("typescript blocks: from an unclosed brace on the text stays; a `}` too many keeps it all", () => {
  const unclosed =
    "name();\nfunction a() { one(); two(); three(); }\nfunction b() { four(); five(); six();\n";
  assertEquals(skippedTexts(unclosed, "name"), ["{ one(); two(); three(); }"]);
  const extra = "function a() { one(); two(); three(); }\n}\n";
  assertEquals(typescriptBlocks(extra), []);
});

Deno.test("typescript blocks: the occurrences with blocks left out are the whole file's", async () => {
  const text = [
    "const { core, internals, primordials } = globalThis.__bootstrap;",
    "const { PromiseResolve, SafeMap } = primordials;",
    "import { helper } from './helper.ts';",
    "export interface Options { size: number; label: string; verbose: boolean }",
    "export function make(options: Options) {",
    "  if (options.verbose) { return { size: options.size, label: 'made' }; }",
    "  const made = { size: 1, label: `${options.label}` };",
    "  helper(made);",
    "  return PromiseResolve(made);",
    "}",
    "export class Store {",
    "  #items = new SafeMap();",
    "  put(key: string, value: unknown): void { this.#items.set(key, value); }",
    "  get size(): number { return this.#items.size; }",
    "}",
    "class Agent {",
    "  constructor(options: Options) { console.log('an agent is made now'); }",
    "}",
  ].join("\n");
  const extractor = await SymbolExtractor.create();
  const names = ["size", "PromiseResolve", "label", "helper", "Options", "primordials", "Agent"];
  for (const name of names) {
    const whole = await extractor.occurrences("a.ts", text, name, {
      bindings: true,
      wholeFile: true,
    });
    const skipped = await extractor.occurrences("a.ts", text, name, { bindings: true });
    assertEquals(skipped, whole, name);
    assert(whole.occurrences.length > 0, name);
  }
  assert(skippedTexts(text, "PromiseResolve").length > 0, "a block is left out");
  // The class keeps its body (its constructor's parameters), not the constructor's.
  assertEquals(skippedTexts(text, "Agent").at(-1), "{ console.log('an agent is made now'); }");
});

Deno.test("typescript blocks: a block found wrongly leaves the file parsed whole", async () => {
  // After `)` a `/` is taken to divide: this regular expression's `}` ends the body early.
  const text = [
    "function check(s: string) {",
    "  if (s) /}{/.test(s);",
    "  return s.length + other(s) + more(s);",
    "}",
    "export function name(): number { return 1; }",
  ].join("\n");
  const left = skippedTexts(text, "name");
  assertEquals(left[0], "{/.test(s);\n  return s.length + other(s) + more(s);\n}");
  const extractor = await SymbolExtractor.create();
  const whole = await extractor.occurrences("a.ts", text, "name", {
    bindings: true,
    wholeFile: true,
  });
  const skipped = await extractor.occurrences("a.ts", text, "name", { bindings: true });
  assertEquals(skipped, whole);
  assertEquals(whole.occurrences.map((occurrence) => occurrence.line), [5]);
});

Deno.test("typescript blocks: a name in comments keeps no block, and only in comments no parse", async () => {
  const documented = [
    "/** Collects the items: see collect. */",
    "export interface Sink {",
    "  /** Calls collect on every item and gives back the total. */",
    "  push(item: string): void;",
    "}",
    "function run() { // collect here",
    "  other(1, 2, 3, 4, 5, 6);",
    "}",
  ].join("\n");
  const sink = documented.slice(documented.indexOf("{"), documented.indexOf("\n}") + 2);
  const body = documented.slice(documented.lastIndexOf("{"));
  assertEquals(typescriptBlocksWithout(documented, "collect"), null);
  // A spelling in code: the blocks that write it only in comments are left out all the same.
  // (The module's first comment's inside is left out too: see below.)
  const used = `${documented}\nconst collect = run;`;
  const doc = documented.slice(1, documented.indexOf("*/") + 1);
  assertEquals(skippedTexts(used, "collect"), [doc, sink, body]);
  // An `export *` may export the name: parsed (its blocks left out).
  const reexports = `${documented}\nexport * from "./all.ts";`;
  assertEquals(skippedTexts(reexports, "collect"), [doc, sink, body]);
  // Inside a longer name it is no spelling either; inside a number's word or one with other
  // than ASCII characters it is (a parser may split those).
  assertEquals(
    typescriptBlocksWithout("const fields = 1; let myfield = fieldName;", "field"),
    null,
  );
  for (const word of ["1field", "\u00e9field"]) {
    assertEquals(typescriptBlocksWithout(`let a = ${word};`, "field"), []);
  }
  // JavaScript may hold JSX, whose text is no comment: spellings count wherever they are.
  assertEquals(skippedTexts(documented, "collect", { jsx: true }), []);
  const extractor = await SymbolExtractor.create();
  for (const [path, text] of [["a.ts", documented], ["b.ts", used], ["c.ts", reexports]]) {
    const whole = await extractor.occurrences(path, text, "collect", {
      bindings: true,
      wholeFile: true,
    });
    assertEquals(await extractor.occurrences(path, text, "collect", { bindings: true }), whole);
    assertEquals(
      await extractor.occurrences(path, text, "collect"),
      await extractor.occurrences(path, text, "collect", { wholeFile: true }),
    );
  }
  const jsx = "function View() {\n  return <p>see // here {collect}</p>;\n}\n";
  const whole = await extractor.occurrences("v.js", jsx, "collect", { wholeFile: true });
  assertEquals(whole.occurrences.length, 1);
  assertEquals(await extractor.occurrences("v.js", jsx, "collect"), whole);
});

Deno.test("typescript blocks: the inside of comments that begin a line is left out, the occurrences stay the whole file's", async () => {
  const text = [
    "/** The module's documentation, long enough to be left out. */",
    "const a = 1",
    "/* after a line break, and long enough to be left out */ const b = a",
    "const c = b /* on a line of code after it, long enough but kept */",
    "  + a // a line comment on a line of code, long enough but kept",
    "// on a line of its own, long enough, but after the one above",
    "function f() {",
    "  // inside a kept block, on its own line, long enough to go",
    "  return name /* a comment that spans lines stands for a line break:",
    "       kept where none is before it */ + b;",
    "}",
    "export const name = a + b + c;",
  ].join("\n");
  const left = skippedTexts(text, "name");
  assertEquals(left, [
    "** The module's documentation, long enough to be left out. *",
    "* after a line break, and long enough to be left out *",
    "/ inside a kept block, on its own line, long enough to go\n",
  ]);
  // The parser sees `/**/` and `//` where they were, the rest of the text where it was.
  assertEquals(skippedTexts(text, "name", { jsx: true }), []);
  const extractor = await SymbolExtractor.create();
  for (const name of ["a", "b", "c", "f", "name"]) {
    const whole = await extractor.occurrences("m.ts", text, name, {
      bindings: true,
      wholeFile: true,
    });
    assertEquals(await extractor.occurrences("m.ts", text, name, { bindings: true }), whole, name);
    assert(whole.occurrences.length > 0, name);
  }
});
