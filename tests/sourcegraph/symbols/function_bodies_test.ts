/**
 * C-family bodies dropped before a parse: every line stays where it was, a
 * body's contents go but for what universal-ctags reports inside it (type
 * aliases, local types, macros; not locals of a struct type), a C file's
 * prototypes and parameters go too, brace matching follows the first branch of
 * a conditional and steps over literals and comments, macro blocks and type
 * attributes are not bodies, and the definitions found through the dropped
 * text keep their lines and containers.
 */

import { assert, assertEquals } from "../../support/assert.ts";
import { blankFunctionBodies } from "../../../sourcegraph/symbols/function_bodies.ts";
import { SymbolExtractor } from "../../../sourcegraph/symbols/symbol_extractor.ts";

function lines(text: string): string[] {
  return text.split("\n").map((line) => line.trimEnd());
}

Deno.test("function bodies: contents go, lines stay, a `;` keeps each body a body", () => {
  const text = "int f(int a)\n{\n  int b = a;\n  return b;\n}\nint g() const { return 1; }\n";
  const out = blankFunctionBodies(text);
  assertEquals(lines(out), ["int f(int a)", "{;", "", "", "}", "int g() const {;}", ""]);
  assertEquals(out.split("\n").length, text.split("\n").length);
});

Deno.test("function bodies: type aliases, local types and directives inside a body stay", () => {
  const text = [
    "void f() {",
    "  int x = 1;",
    "  using Id = long;",
    "  typedef int T;",
    "  struct Local { int y; };",
    "#define TWICE(v) ((v) * 2)",
    "  call(x);",
    "}",
  ].join("\n");
  assertEquals(lines(blankFunctionBodies(text)), [
    "void f() {;",
    "",
    "using Id = long;",
    "typedef int T;",
    "struct Local { int y; };",
    "#define TWICE(v) ((v) * 2)",
    "",
    "}",
  ]);
});

Deno.test("function bodies: a local of a struct type goes; a local struct's definition stays", () => {
  const text = [
    "void f(void *data) {",
    "  struct filter *filter = data;",
    "  struct opts o = { .flags = 1 };",
    "  enum mode m;",
    '  static const struct entry { const char *name; } table[] = { { "x" } };',
    "  struct Local { int y; };",
    "  typedef struct filter alias;",
    "}",
  ].join("\n");
  assertEquals(lines(blankFunctionBodies(text)), [
    "void f(void *data) {;",
    "",
    "",
    "",
    "",
    "struct Local { int y; };",
    "typedef struct filter alias;",
    "}",
  ]);
});

Deno.test("function bodies: in C, prototypes and parameters go; what a file-scope statement defines stays", async () => {
  const text = [
    "int prototype(int a, /* the length, in bytes */ char *b);",
    "NORETURN void die(const char *err, ...) __attribute__((format (printf, 1, 2)));",
    "static int (*hook)(int);",
    "int aligned __attribute__((aligned(8)));",
    "DECLARE_LIST(items);",
    "typedef int handler(int);",
    "int counter;",
    'static const char *name = N_("name");',
    "struct ops {",
    "  int (*open)(void);",
    "  void close(void);",
    "};",
    "int split(int a",
    "#ifdef WIDE",
    "  , int b",
    "#endif",
    ");",
    "int defined(int a) { return a; }",
    "static int spread(const char *a, /* the length, in bytes */",
    "                  size_t length)",
    "{",
    "  return 0;",
    "}",
  ].join("\n");
  // In C++ (and by default) both stay.
  const cpp = lines(blankFunctionBodies(text, { language: "cpp" }));
  assertEquals(cpp, lines(blankFunctionBodies(text)));
  assertEquals(cpp[0], "int prototype(int a, /**/ char *b);");
  assertEquals(cpp.slice(17), [
    "int defined(int a) {;}",
    "static int spread(const char *a, /**/",
    "                  size_t length)",
    "{;",
    "",
    "}",
  ]);
  const out = lines(blankFunctionBodies(text, { language: "c" }));
  assertEquals(out.length, text.split("\n").length);
  assertEquals(out.slice(0, 2), ["", ""]);
  assertEquals(out.slice(2, 17), cpp.slice(2, 17));
  assertEquals(out.slice(17), ["int defined() {;}", "static int spread(", ")", "{;", "", "}"]);
  // The definitions are found as before; the prototypes defined nothing.
  const extractor = await SymbolExtractor.create();
  const found = (await extractor.extract("defs.c", text)).symbols.map((symbol) =>
    `${symbol.name} ${symbol.kind} ${symbol.startLine}`
  );
  for (
    const definition of [
      "hook variable 3",
      "aligned variable 4",
      "handler type 6",
      "counter variable 7",
      "name variable 8",
      "ops class 9",
      "open field 10",
      "defined function 18",
      "spread function 19",
    ]
  ) {
    assert(found.includes(definition), `${definition} in ${found}`);
  }
  assert(!found.some((symbol) => /^(prototype|die|split|a|b|length) /.test(symbol)), `${found}`);
});

Deno.test("function bodies: braces in literals and comments, and #else branches, do not unbalance a body", () => {
  const text = [
    "void f() {",
    '  const char *s = "}}";',
    "  char c = '}';",
    "  // }",
    "  /* } */",
    '  auto r = R"x(})x";',
    "#if A",
    "  if (a) {",
    "#else",
    "  if (b) {",
    "#endif",
    "  }",
    "}",
    "int after() { return 1; }",
    "int n = 1'000;",
  ].join("\n");
  const out = lines(blankFunctionBodies(text));
  assertEquals(out[0], "void f() {;");
  assertEquals(out[12], "}");
  assertEquals(out[13], "int after() {;}");
  assertEquals(out[14], "int n = 1'000;");
});

Deno.test("function bodies: classes, namespaces, enums, attributes and macro blocks are not bodies", () => {
  const text = [
    "namespace n {",
    "class A : public B {",
    "  int x;",
    "};",
    "enum class E : int { One };",
    "struct __attribute__((packed)) P { int y; };",
    'TEST_CASE("a", "[b]") {',
    "  int local = 1;",
    "}",
    "}",
  ].join("\n");
  assertEquals(blankFunctionBodies(text), text);
});

Deno.test('function bodies: initializer values and long strings go; `extern "C"` stays', () => {
  const long = "x".repeat(80);
  const text = [
    "static const int table[] = {",
    "  1, 2, 3,",
    "};",
    `const char *help = "${long}";`,
    'extern "C" {',
    "int c_function(void);",
    "}",
  ].join("\n");
  assertEquals(lines(blankFunctionBodies(text)), [
    "static const int table[] = {",
    "",
    "};",
    'const char *help = "";',
    'extern "C" {',
    "int c_function(void);",
    "}",
  ]);
});

Deno.test("function bodies: comments outside bodies become empty comments, lines kept", () => {
  const text = [
    "/**",
    " * What the file is for, at length.",
    " */",
    "int x; // a trailing comment",
    "/* s */ int y;",
    "struct S {",
    "  int z; /* the field's own note */",
    "};",
  ].join("\n");
  assertEquals(lines(blankFunctionBodies(text)), [
    "/**/",
    "",
    "",
    "int x; //",
    "/* s */ int y;",
    "struct S {",
    "  int z; /**/",
    "};",
  ]);
});

Deno.test("function bodies: a `/*` the C grammar finds in a directive's string still ends where it did", async () => {
  // tree-sitter's C grammar reads `/*` inside a #define's string as a comment's start: with the
  // next comment reduced to a space it runs on (in Git's refspec.h, over both structs; here, the
  // macro is lost).
  const text = [
    "#ifndef REFSPEC_H",
    "#define REFSPEC_H",
    '#define TAG_REFSPEC "refs/tags/*:refs/tags/*"',
    "",
    "/**",
    " * A refspec, parsed: force, pattern and the two sides.",
    " */",
    "struct refspec_item {",
    "\tunsigned force : 1;",
    "\tconst char *src;",
    "};",
    "",
    "/**",
    " * The refspecs of a remote.",
    " */",
    "struct refspec {",
    "\tint nr;",
    "};",
    "#endif",
  ].join("\n");
  const extractor = await SymbolExtractor.create();
  const found = await extractor.extract("refspec.h", text);
  const names = found.symbols.map((s) => `${s.kind} ${s.name} ${s.startLine}-${s.endLine}`);
  for (
    const want of [
      "class refspec_item 8-11",
      "field force 9-9",
      "field src 10-10",
      "class refspec 16-18",
    ]
  ) {
    assert(names.includes(want), `${want} missing from ${names.join(", ")}`);
  }
  assert(names.some((name) => name.startsWith("constant TAG_REFSPEC 3-")), names.join(", "));
});

Deno.test("function bodies: a body whose braces do not balance is left as it is", () => {
  const text = "void f() {\n  int x = 1;\n  call(x);\n";
  assertEquals(blankFunctionBodies(text), text);
});

Deno.test("function bodies: a C++ file's definitions, lines and containers come out through dropped bodies", async () => {
  const text = [
    "namespace geo {",
    "struct Shape {",
    "  int sides;",
    "  std::unique_ptr<Shape> Copy() const override {",
    "    return make_unique<Shape>(sides);",
    "  };",
    "  virtual void Check() {};",
    "};",
    "template <class T>",
    "static void Update(T &state) {",
    "  using STATE = typename T::State;",
    "  for (auto &x : state) { x.run(); }",
    "}",
    "int Shape::area() const {",
    "  return sides * 2;",
    "}",
    "}",
  ].join("\n");
  const extractor = await SymbolExtractor.create();
  const found = await extractor.extract("shape.cpp", text);
  assertEquals(found.outcome, "parsed");
  const names = found.symbols.map((s) => `${s.kind} ${s.name} ${s.startLine}-${s.endLine}`);
  for (
    const want of [
      "module geo 1-17",
      "class Shape 2-8",
      "field sides 3-3",
      "method Copy 4-6",
      "method Check 7-7",
      "function Update 10-13",
      "type STATE 11-11",
      "method area 14-16",
    ]
  ) {
    assert(names.includes(want), `${want} missing from ${names.join(", ")}`);
  }
});

Deno.test("function bodies: hostile text is scanned in one pass", () => {
  // 200,000 bodies that never close, then deep nesting: each brace must not rescan the rest.
  const open = "f() {".repeat(200_000);
  assertEquals(blankFunctionBodies(open), open);
  const deep = "void f() {" + "{".repeat(100_000) + "}".repeat(100_000) + "}\nint g;";
  assertEquals(blankFunctionBodies(deep), "void f() {;}\nint g;");
  const quotes = '"'.repeat(100_001) + "\n" + "'".repeat(100_001) + "\n/*";
  assertEquals(blankFunctionBodies(quotes).split("\n").length, 3);
  // C's prototypes and parameters: 100,000 prototypes with comments, a name after a million
  // spaces, a parameter list of 100,000 parameters, a million `;`.
  const c = { language: "c" } as const;
  assertEquals(blankFunctionBodies(open, c), open);
  const prototypes = "int f(int a /* a long comment */);\n".repeat(100_000);
  assertEquals(blankFunctionBodies(prototypes, c), "\n".repeat(100_000));
  assertEquals(blankFunctionBodies("int" + " ".repeat(1_000_000) + "f(a);", c), "");
  const wide = "int f(" + "int a, ".repeat(100_000) + "int z) { return 0; }";
  assertEquals(blankFunctionBodies(wide, c), "int f() {;}");
  assertEquals(blankFunctionBodies(";".repeat(1_000_000), c), ";".repeat(1_000_000));
});

Deno.test("function bodies: parentheses that never open do not make bodies", () => {
  const text = "){".repeat(300_000) + "\nint g() { return 1; }";
  const out = blankFunctionBodies(text);
  assert(out.startsWith("){){"));
  assert(out.endsWith("\nint g() {;}"), out.slice(-30));
});
