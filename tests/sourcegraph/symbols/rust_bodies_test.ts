/**
 * Rust blocks blanked before a `references` parse: a function body (or any
 * brace block) that does not spell the name becomes spaces (every line and
 * column stays), one that does is kept with its nested blocks looked at on
 * their own, signatures end at their `{` or `;` outside parentheses and
 * angle brackets, literals and comments do not count as braces, a glob
 * import keeps its block, a file whose braces do not balance keeps the
 * rest, the ranges a parse skips such blocks with begin and end where they
 * are in the text, and the occurrences found through the blanked text, or
 * with the blocks skipped, are those of the whole file; whole items that do
 * not spell the name (with their attributes and comments) and the insides
 * of comments that do not are left out too, a glob import kept, an item
 * that ends at `;` told from one that ends at `}`, and a parse that finds an
 * error with them left out is done with blocks and comments only; the index's symbols
 * through function bodies left out of the parse (those holding no item) are
 * those of the whole file.
 */

import { assert, assertEquals } from "../../support/assert.ts";
import {
  blankRustBodies,
  itemlessRustBodies,
  rangesAround,
  rustBlocksWithout,
  rustFunctionBodies,
  rustSpansWithout,
} from "../../../sourcegraph/symbols/rust_bodies.ts";
import { SymbolExtractor } from "../../../sourcegraph/symbols/symbol_extractor.ts";

// The text of each body `rustFunctionBodies` finds, braces included.
function bodyTexts(text: string): string[] {
  return rustFunctionBodies(text).map(({ open, close }) => text.slice(open, close + 1));
}

Deno.test("rust bodies: a body without the name becomes spaces, lines and columns stay", () => {
  const text = "fn a() -> u8 {\n  let x = 1;\n  x\n}\nfn b() { a() }\n";
  const out = blankRustBodies(text, "a");
  assertEquals(out, "fn a() -> u8 {\n            \n   \n}\nfn b() { a() }\n");
  assertEquals(out.length, text.length);
});

Deno.test("rust bodies: a kept body's nested function without the name is blanked", () => {
  const text = "fn outer() {\n  fn inner() { other() }\n  name();\n}\n";
  const out = blankRustBodies(text, "name");
  assertEquals(out, "fn outer() {\n  fn inner() {         }\n  name();\n}\n");
});

Deno.test("rust bodies: the name as part of a longer word does not keep a body", () => {
  const text = "fn f() { names(); rename(); }\nfn g() { name }\n";
  assertEquals(blankRustBodies(text, "name"), `fn f() {${" ".repeat(20)}}\nfn g() { name }\n`);
});

Deno.test("rust bodies: signatures end at their body's `{` or a trait method's `;`", () => {
  const text = [
    "trait T { fn m(&self); fn d(&self) -> u8 { 1 } }",
    "fn g<'a, F: Fn(u8) -> u8>(f: F, s: &'a [u8; 4]) -> impl Iterator<Item = u8> + 'a",
    "where F: Clone { f(1) }",
    "impl Tr for fn(u8) { }",
    "fn h() -> Foo<Bar<u8>> { 2 }",
  ].join("\n");
  assertEquals(bodyTexts(text), ["{ 1 }", "{ f(1) }", "{ 2 }"]);
});

Deno.test("rust bodies: literals and comments hold no braces", () => {
  const text = [
    String.raw`fn a() { let s = "}\"{"; let c = '{'; let e = '\''; let u = '\u{7D}'; }`,
    'fn b() { let r = r#"}"#; let s = r##"a "# }"##; let y = b"}"; let z = br"}"; }',
    "fn c<'a>(x: &'a str) -> &'a str { /* } /* nested } */ } */ x // }\n}",
    "fn d() { let r#fn = 1; 'outer: loop { break 'outer; } }",
  ].join("\n");
  assertEquals(bodyTexts(text).length, 4);
  const out = blankRustBodies(text, "zz");
  assertEquals(out.split("\n").map((line) => line.replace(/ +}$/, "}").trimEnd()), [
    "fn a() {}",
    "fn b() {}",
    "fn c<'a>(x: &'a str) -> &'a str {",
    "}",
    "fn d() {}",
  ]);
});

Deno.test("rust bodies: macro blocks are braces like any other, and a `fn` inside opens a body", () => {
  const text = "macro_rules! m { ($x:ident) => { fn $x() {} }; }\nm! { fn k() { 1 } }\n";
  assertEquals(bodyTexts(text), ["{ 1 }"]);
});

Deno.test("rust bodies: a glob import keeps its body; items inside a body are told", () => {
  const text = "fn a() { use m::*; f() }\nfn b() { struct S; }\nfn c() { 1 }\n";
  assertEquals(blankRustBodies(text, "zz").split("\n")[0], "fn a() { use m::*; f() }");
  assertEquals(rustFunctionBodies(text).map((body) => [body.holdsGlob, body.holdsItem]), [
    [true, false],
    [false, true],
    [false, false],
  ]);
});

Deno.test("rust bodies: an item or glob deep inside, past blocks that are not bodies, is told to every enclosing body", () => {
  // Hostile nesting: 20,000 functions one inside the other, the innermost holding a block with an
  // item and a glob import; every body holds both, and the outermost-first order is kept.
  const depth = 20_000;
  const text = "fn a() {\n".repeat(depth) + "{ struct S; use m::*; }\n" + "}\n".repeat(depth);
  const bodies = rustFunctionBodies(text);
  assertEquals(bodies.length, depth);
  assert(bodies.every((body) => body.holdsItem && body.holdsGlob));
  const flat = "fn a() { { 1 } }\nfn b() { { struct S; } }\n";
  assertEquals(rustFunctionBodies(flat).map((body) => body.holdsItem), [false, true]);
});

Deno.test("rust bodies: from an unclosed brace on the text stays; a `}` too many keeps it all", () => {
  const unclosed = "fn a() { 1 }\nfn b() { {\nfn c() { 2 }\n";
  assertEquals(bodyTexts(unclosed), ["{ 1 }"]);
  assertEquals(blankRustBodies(unclosed, "zz"), "fn a() {   }\nfn b() { {\nfn c() { 2 }\n");
  const extra = "fn a() { 1 }\n}\nfn c() { 2 }\n";
  assertEquals(blankRustBodies(extra, "zz"), extra);
});

Deno.test("rust bodies: the occurrences through blanked bodies are the whole file's", async () => {
  const text = [
    "use std::collections::HashMap;",
    "struct Cache { map: HashMap<u32, u32> }",
    "impl Cache {",
    "  fn get(&self, key: u32) -> Option<&u32> { self.map.get(&key) }",
    "  fn put(&mut self, key: u32) {",
    "    let value = key * 2; // doubled",
    "    self.map.insert(key, value);",
    "  }",
    "}",
    "fn main() {",
    "  let get = 1;",
    "  let c = Cache { map: HashMap::new() };",
    '  println!("{}", get);',
    "  c.get(get);",
    "}",
  ].join("\n");
  assert(blankRustBodies(text, "get") !== text, "the body of put is blanked");
  const extractor = await SymbolExtractor.create();
  for (const name of ["get", "map", "key", "HashMap"]) {
    const whole = await extractor.occurrences("a.rs", text, name, {
      bindings: true,
      wholeFile: true,
    });
    const blanked = await extractor.occurrences("a.rs", text, name, { bindings: true });
    assertEquals(blanked, whole, name);
    assert(whole.occurrences.length > 0, name);
  }
});

Deno.test("rust bodies: the ranges around skipped bodies are where the text has them", () => {
  const text = "fn a() {\n  x();\n}\nfn b() { name }\nfn c() { y }\n";
  const bodies = rustBlocksWithout(text, "name");
  assertEquals(bodies.map(({ open, close }) => text.slice(open, close + 1)), [
    "{\n  x();\n}",
    "{ y }",
  ]);
  const ranges = rangesAround(text, bodies);
  assertEquals(ranges.map((range) => text.slice(range.startIndex, range.endIndex)), [
    "fn a() {",
    "}\nfn b() { name }\nfn c() {",
    "}\n",
  ]);
  assertEquals(ranges.map((range) => [range.startPosition, range.endPosition]), [
    [{ row: 0, column: 0 }, { row: 0, column: 8 }],
    [{ row: 2, column: 0 }, { row: 4, column: 8 }],
    [{ row: 4, column: 11 }, { row: 5, column: 0 }],
  ]);
});

Deno.test("rust bodies: skipped bodies answer as the blanked text parsed whole", async () => {
  const text = [
    "// A comment spelling Ünïcode before code: columns count code units.",
    "fn helper(v: &[u8]) -> usize {",
    '  let s = "é{"; // a brace in a string',
    "  v.len() + s.len()",
    "}",
    "pub struct Size(usize);",
    "impl Size {",
    "  fn of(v: &[u8]) -> Size { Size(helper(v)) }",
    "  fn twice(&self) -> usize {\r\n    self.0 * 2\r\n  }",
    "}",
  ].join("\n");
  const extractor = await SymbolExtractor.create();
  for (const name of ["Size", "helper", "len", "v"]) {
    const skipped = await extractor.occurrences("a.rs", text, name, { bindings: true });
    const spaces = await extractor.occurrences("a.rs", blankRustBodies(text, name), name, {
      bindings: true,
      wholeFile: true,
    });
    assertEquals(skipped, spaces, name);
    assert(skipped.occurrences.length > 0, name);
  }
  assert(rustBlocksWithout(text, "Size").length > 0, "a body is skipped for Size");
});

Deno.test("rust bodies: every block without the name is blanked, items' and expressions' too", () => {
  const blank = (inside: string) => " ".repeat(inside.length);
  const text = [
    "use std::{fmt, io};",
    "struct A { x: u8 }",
    "impl A {",
    "  fn f(&self) -> u8 { if self.x > 0 { 1 } else { name() } }",
    "}",
    "mod m { fn g() {} }",
    "mod n { use super::*; }",
  ].join("\n");
  assertEquals(
    blankRustBodies(text, "name"),
    [
      `use std::{${blank("fmt, io")}};`,
      `struct A {${blank(" x: u8 ")}}`,
      "impl A {",
      `  fn f(&self) -> u8 { if self.x > 0 {${blank(" 1 ")}} else { name() } }`,
      "}",
      `mod m {${blank(" fn g() {} ")}}`,
      "mod n { use super::*; }",
    ].join("\n"),
  );
});

Deno.test("rust bodies: the index's symbols with itemless bodies left out are the whole file's", async () => {
  const text = [
    "pub fn outer(v: &[u8]) -> usize {",
    '  let s = "}{"; // braces in a string',
    "  fn inner() -> u8 { 1 }",
    "  v.len() + s.len() + inner() as usize",
    "}",
    "struct Size(usize);",
    "impl Size {",
    "  fn of(v: &[u8]) -> Size {",
    "    Size(outer(v))",
    "  }",
    "}",
    "const LIMIT: usize = { let x = 4; x * 2 };",
  ].join("\n");
  // `outer` holds an item (`fn inner`) and stays; the bodies of `inner` (inside it) and `of` go.
  assertEquals(
    itemlessRustBodies(text).map(({ open, close }) => text.slice(open, close + 1)),
    ["{ 1 }", "{\n    Size(outer(v))\n  }"],
  );
  const extractor = await SymbolExtractor.create();
  const skipped = await extractor.extract("a.rs", text);
  assertEquals(skipped, await extractor.extract("a.rs", text, { wholeFile: true }));
  const lines = skipped.symbols.map((symbol) => [
    symbol.name,
    symbol.startLine,
    symbol.endLine,
    symbol.container,
  ]);
  assertEquals(lines, [
    ["outer", 1, 5, null],
    ["inner", 3, 3, null],
    ["Size", 6, 6, null],
    ["of", 8, 10, "Size"],
    ["LIMIT", 12, 12, null],
  ]);
});

// The text a parse for `name` reads: each span `rustSpansWithout` leaves out as spaces.
function readText(text: string, name: string): string {
  let out = text;
  for (const { open, close } of rustSpansWithout(text, name)) {
    out = out.slice(0, open + 1) + out.slice(open + 1, close).replace(/[^\n]/g, " ") +
      out.slice(close);
  }
  return out.split("\n").map((line) => line.trimEnd().replace(/(\S) {2,}/g, "$1 "))
    .filter((line) => line !== "").join("\n");
}

Deno.test("rust bodies: items that do not spell the name are left out whole, attributes and comments too", () => {
  const text = [
    "#![allow(dead_code)]",
    "use std::fmt;",
    "use crate::name;",
    "/// Docs of a.",
    "#[derive(Debug)]",
    "pub struct A { x: [u8; 4] }",
    "const C: A = A { x: [0; 4] };",
    "impl A {",
    "  fn f(&self) -> u8 { 1 }",
    "  // says name",
    "  fn g(&self) { name() }",
    "}",
    "trait T { fn m(&self); fn n(&self) -> u8 { name } }",
    "macro_rules! mac { () => {} }",
    "mac! { x }",
    "const fn k() -> u8 { 2 }",
    'extern "C" { fn e(); }',
    "mod tests { use super::*; fn t() {} }",
  ].join("\n");
  assertEquals(
    readText(text, "name"),
    [
      "use crate::name;",
      "impl A {",
      "  // says name",
      "  fn g(&self) { name() }",
      "}",
      "trait T { fn n(&self) -> u8 { name } }",
      "mod tests { use super::*; }",
    ].join("\n"),
  );
});

Deno.test("rust bodies: a comment's inside is left out unless it spells the name, markers kept", () => {
  const text = "//! Crate docs.\n/// Docs.\n// name here\n// more\n//   and more\nfn name() {}\n";
  // A run of comments is one span: the parser sees the first one's markers.
  assertEquals(readText(text, "name"), "//!\n// name here\n//\nfn name() {}");
});

Deno.test("rust bodies: with items left out, the occurrences are the whole file's", async () => {
  const text = [
    "use std::collections::HashMap;",
    "use crate::util::Size as Measure;",
    "/// A size.",
    "pub struct Size(usize);",
    "static LIMIT: Size = Size(4);",
    "const ZERO: Size = Size { 0: 0 };",
    "impl Size {",
    "  /// Of a slice.",
    "  pub fn of(v: &[u8]) -> Size { Size(v.len()) }",
    "  fn twice(&self) -> usize { self.0 * 2 }",
    "}",
    "fn other(map: HashMap<u8, u8>) -> usize { map.len() }",
    "mod inner { use super::*; fn local() -> Size { let Size = 1; Size } }",
    "fn measure() -> Measure { Measure(1) }",
  ].join("\n");
  const extractor = await SymbolExtractor.create();
  for (const name of ["Size", "Measure", "len", "HashMap", "twice"]) {
    const skipped = await extractor.occurrences("a.rs", text, name, { bindings: true });
    const whole = await extractor.occurrences("a.rs", text, name, {
      bindings: true,
      wholeFile: true,
    });
    assertEquals(skipped, whole, name);
    assert(skipped.occurrences.length > 0, name);
  }
  assert(readText(text, "twice").length < text.length / 2, "most items are left out for twice");
});

Deno.test("rust bodies: an item's end found wrongly leaves an error, and the parse keeps every item", async () => {
  // The `}` of a const generic argument ends the `impl` as the lexer reads it: left out, the
  // rest (`{ fn a() ... }`) is no item, and the parse is done with blocks and comments only.
  const text =
    "struct S<const N: usize>;\nimpl<const N: usize> S<{ N }> {\n  fn a() -> u8 { 1 }\n}\n" +
    "fn b() -> u8 { S::<1>::a() }\n";
  assert(readText(text, "a").trimStart().startsWith("> {\n  fn a()"), readText(text, "a"));
  const extractor = await SymbolExtractor.create();
  const skipped = await extractor.occurrences("a.rs", text, "a", { bindings: true });
  const whole = await extractor.occurrences("a.rs", text, "a", { bindings: true, wholeFile: true });
  assertEquals(skipped, whole);
  assertEquals(skipped.occurrences.map((occurrence) => occurrence.role), ["definition", "call"]);
});
