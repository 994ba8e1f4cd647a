/**
 * TypeScript and JavaScript function bodies left out of the tags parse: a
 * body is left out only when it holds nothing the tags queries find
 * (nested functions and classes, arrows bound to a name or key, object
 * literal methods, object types' members, type aliases), a callback does
 * not keep its body, literals, comments, templates and regular expressions
 * hold no braces, unbalanced braces leave the rest whole, and the symbols
 * through left-out bodies are those of the whole file.
 */

import { assert, assertEquals } from "../../support/assert.ts";
import { definitionlessScriptBodies } from "../../../sourcegraph/symbols/script_bodies.ts";
import { SymbolExtractor } from "../../../sourcegraph/symbols/symbol_extractor.ts";

// The text of each body left out, braces included.
function leftOut(text: string): string[] {
  return definitionlessScriptBodies(text).map(({ open, close }) => text.slice(open, close + 1));
}

Deno.test("script bodies: a body without definitions goes; callbacks and control blocks stay inside it", () => {
  const text = [
    "function a(x: number): Promise<void> {",
    "  if (x > 1) { return; }",
    "  items.map((item) => item.id).forEach((id) => { log(id); });",
    "}",
    "class C { m(y) { for (const z of y) { use(z); } } }",
    "const f = async (p): Promise<number> => { return p ? 1 : 2; };",
  ].join("\n");
  assertEquals(leftOut(text), [
    text.slice(text.indexOf("{"), text.indexOf("}\nclass") + 1),
    "{ for (const z of y) { use(z); } }",
    "{ return p ? 1 : 2; }",
  ]);
  // A function expression keeps the body around it; its own body goes.
  assertEquals(leftOut("function o() { run(function (id) { log(id); }); }"), ["{ log(id); }"]);
});

Deno.test("script bodies: a body holding what the tags queries find stays", () => {
  const held = [
    "function inner() {}",
    "class K {}",
    "const g = () => 1;",
    "obj.handler = (e) => e;",
    "return { key: () => 1 };",
    "return { method() { return 1; } };",
    "let x: { field: string } = load();",
    "const y = value as { field: string };",
    "type T = () => { field: string };",
    "enum E { A }",
    "interface I { a: number }",
    "return <Partial<H>>{ resolve: (m) => m };",
    "const h = (p): T => p;",
  ];
  for (const statement of held) {
    // The outer body stays (a body nested in it may go).
    const bodies = leftOut(`function outer() {\n  ${statement}\n}\n`);
    assert(bodies.every((body) => !body.startsWith("{\n")), statement);
  }
  // The same statements as a callback's argument or an operand leave the body out.
  assertEquals(leftOut("function o() { run(() => 1); return () => 2; }").length, 1);
});

Deno.test("script bodies: literals, comments, templates and regular expressions hold no braces", () => {
  const text = [
    "function a() {",
    "  const s = '}' + \"{\" + `${ { k: '}' }.k } }`; // }",
    "  /* { */ const r = /[/{]\\}/g.test(s) ? 1 : x / 2 / 3;",
    "  return `a${`b${'{'}`}`;",
    "}",
    "function b() { return 1; }",
  ].join("\n");
  assertEquals(leftOut(text).length, 2);
  assertEquals(leftOut(text)[1], "{ return 1; }");
});

Deno.test("script bodies: from an unclosed brace on the text stays; a `}` too many keeps it all", () => {
  assertEquals(leftOut("function a() { 1 }\nfunction b() { 2 \n"), ["{ 1 }"]);
  assertEquals(leftOut("function a() { 1 }\n}\nfunction b() { 2 }\n"), []);
});

Deno.test("script bodies: a return type's end, an interface after it and a conditional type are told", () => {
  // A bodiless declaration's return type does not run into the interface after it.
  const declared = "export function open(p: string): Promise<F>\ninterface S {\n  d: boolean\n}\n";
  assertEquals(leftOut(declared), []);
  const conditional =
    "type J<T> = T extends {\n  toJSON(): infer U\n}\n  ? (() => U) extends () => { toJSON(): unknown }\n    ? {}\n    : U\n  : T\n";
  assertEquals(leftOut(conditional), []);
});

Deno.test("script bodies: the symbols through left-out bodies are the whole file's", async () => {
  const text = [
    "export function outer(items: string[]): number {",
    "  const helper = (s: string): number => s.length;",
    "  return items.map((s) => helper(s)).reduce((a, b) => a + b, 0);",
    "}",
    "export class Store {",
    "  #items = new Map<string, { id: number }>();",
    "  get(id: string): { id: number } | undefined {",
    "    const found = this.#items.get(id); // a brace: }",
    "    return found ?? { id: /}/.test(id) ? 1 : 0 };",
    "  }",
    "  handlers() {",
    "    return { save(x: number) { return x; }, load: () => 1 };",
    "  }",
    "}",
    "const plain = 1;",
  ].join("\n");
  const extractor = await SymbolExtractor.create();
  assertEquals(
    await extractor.extract("a.ts", text),
    await extractor.extract("a.ts", text, { wholeFile: true }),
  );
  const names = (await extractor.extract("a.ts", text)).symbols.map((symbol) => symbol.name);
  for (const name of ["outer", "helper", "Store", "get", "handlers", "save", "load", "plain"]) {
    assert(names.includes(name), name);
  }
  assert(leftOut(text).length > 0, "a body is left out");
});

Deno.test("script bodies: data assigned as an object or array literal goes; one holding a definition, a type and a pattern stay", async () => {
  const rows = Array.from(
    { length: 40 },
    (_, i) => `  { id: ${i}, name: "row ${i}", tags: [1, 2] },`,
  );
  const data = ["[", ...rows, "]"].join("\n");
  const text = [
    `export const rows = ${data};`,
    `const { a, b } = { a: 1, b: ${data} };`,
    `export type Row = { id: number; name: string; tags: number[]; ${"x".repeat(300)}: 1 };`,
    `const handlers = { ${"k".repeat(300)}: 1, save: () => 1 };`,
    `let list = [${"1, ".repeat(100)}function named() {}];`,
  ].join("\n");
  // The destructured object goes whole (its pattern stays); of the array holding a function, only
  // that function's body.
  assertEquals(leftOut(text), [data, `{ a: 1, b: ${data} }`, "{}"]);
  const extractor = await SymbolExtractor.create();
  assertEquals(
    await extractor.extract("a.ts", text),
    await extractor.extract("a.ts", text, { wholeFile: true }),
  );
  const names = (await extractor.extract("a.ts", text)).symbols.map((symbol) => symbol.name);
  for (const name of ["rows", "Row", "handlers", "save", "list", "named"]) {
    assert(names.includes(name), name);
  }
});

Deno.test("script bodies: a regular expression the scan reads as a division makes the file parsed whole", async () => {
  // After `)`, a `/` is read as a division: the body seems to end at the `}` of `/}{/`.
  const text = "function a(s) { if (s) /}{/.test(s); const inner = () => 1; }\n";
  assertEquals(leftOut(text), ["{ if (s) /}"]);
  const extractor = await SymbolExtractor.create();
  const found = await extractor.extract("a.js", text);
  assertEquals(found, await extractor.extract("a.js", text, { wholeFile: true }));
  assertEquals(found.symbols.map((symbol) => symbol.name), ["a", "inner"]);
});
