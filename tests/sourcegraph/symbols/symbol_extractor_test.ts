/**
 * The extractor the index builder runs: every grammar loads with all its
 * queries, each language's definitions come out with our kinds and
 * containers, a file past the deadline (an injected clock) falls back to
 * the patterns and is counted, and hostile files end without stopping it.
 */

import { assert, assertEquals } from "../../support/assert.ts";
import { SymbolExtractor } from "../../../sourcegraph/symbols/symbol_extractor.ts";
import { GRAMMAR_LANGUAGES } from "../../../sourcegraph/symbols/languages.ts";

const SAMPLES: Record<string, { path: string; text: string; want: string[] }> = {
  c: {
    path: "a.c",
    text:
      "#define LIMIT 4\nenum color { RED };\nstruct point { int x; };\ntypedef int id_t;\nstatic int count;\nint area(int w);\nint area(int w)\n{\n  return w;\n}\n",
    want: [
      "constant LIMIT 1-1",
      "enum color 2-2",
      "constant RED 2-2 in color",
      "class point 3-3",
      "field x 3-3 in point",
      "type id_t 4-4",
      "variable count 5-5",
      "function area 7-10",
    ],
  },
  cpp: {
    path: "a.cpp",
    text:
      "namespace geo {\nclass Shape {\n public:\n  int sides;\n  int area() { return 0; }\n};\n}\nint geo::Shape::perimeter() { return 1; }\n",
    want: [
      "module geo 1-7",
      "class Shape 2-6 in geo",
      "field sides 4-4 in Shape",
      "method area 5-5 in Shape",
    ],
  },
  csharp: {
    path: "a.cs",
    text:
      "namespace App {\n  public class Store {\n    private int size;\n    public Store() {}\n    public int Count() { return 0; }\n  }\n  enum Mode { On }\n}\n",
    want: [
      "module App 1-8",
      "class Store 2-6 in App",
      "field size 3-3 in Store",
      "method Store 4-4 in Store",
      "method Count 5-5 in Store",
      "enum Mode 7-7 in App",
      "constant On 7-7 in Mode",
    ],
  },
  go: {
    path: "a.go",
    text:
      "package store\n\ntype Item struct {\n\tName string\n}\n\nconst Max = 3\n\nfunc (i Item) Key() string { return i.Name }\n\nfunc New() Item { return Item{} }\n",
    want: [
      "module store 1-1",
      "class Item 3-5",
      "field Name 4-4 in Item",
      "constant Max 7-7",
      "method Key 9-9",
      "function New 11-11",
    ],
  },
  java: {
    path: "A.java",
    text:
      "package app;\nclass Store {\n  int size;\n  Store() {}\n  int count() { return 0; }\n}\ninterface Shelf {}\n",
    want: [
      "module app 1-1",
      "class Store 2-6",
      "field size 3-3 in Store",
      "method Store 4-4 in Store",
      "method count 5-5 in Store",
      "interface Shelf 7-7",
    ],
  },
  javascript: {
    path: "a.js",
    text:
      "class Store {\n  count() { return 0; }\n}\nfunction make() {}\nconst limit = 3;\nconst build = () => 1;\n",
    want: [
      "class Store 1-3",
      "method count 2-2 in Store",
      "function make 4-4",
      "variable limit 5-5",
      "function build 6-6",
    ],
  },
  php: {
    path: "a.php",
    text: "<?php\nclass Store {\n  public function count() { return 0; }\n}\nfunction make() {}\n",
    want: ["class Store 2-4", "method count 3-3 in Store", "function make 5-5"],
  },
  python: {
    path: "a.py",
    text: "LIMIT = 3\n\nclass Store:\n    size = 0\n\n    def count(self):\n        return 0\n",
    want: [
      "constant LIMIT 1-1",
      "class Store 3-7",
      "field size 4-4 in Store",
      "method count 6-7 in Store",
    ],
  },
  ruby: {
    path: "a.rb",
    text: "module App\n  class Store\n    LIMIT = 3\n    def count\n      0\n    end\n  end\nend\n",
    want: [
      "module App 1-8",
      "class Store 2-7 in App",
      "constant LIMIT 3-3 in Store",
      "method count 4-6 in Store",
    ],
  },
  rust: {
    path: "a.rs",
    text:
      "pub struct Store {\n    size: u32,\n}\n\nimpl Store {\n    pub fn count(&self) -> u32 { 0 }\n}\n\nenum Mode { On }\n",
    want: [
      "class Store 1-3",
      "field size 2-2 in Store",
      "method count 6-6 in Store",
      "enum Mode 9-9",
      "constant On 9-9 in Mode",
    ],
  },
  typescript: {
    path: "a.ts",
    text:
      "export interface Options {\n  path: string;\n}\nexport type Id = string;\nexport enum Mode { On }\nexport class Store {\n  count(): number { return 0; }\n}\nexport function make(): Store { return new Store(); }\n",
    want: [
      "interface Options 1-3",
      "field path 2-2 in Options",
      "type Id 4-4",
      "enum Mode 5-5",
      "class Store 6-8",
      "method count 7-7 in Store",
      "function make 9-9",
    ],
  },
  tsx: {
    path: "a.tsx",
    text: "export function View(): JSX.Element {\n  return <div />;\n}\n",
    want: ["function View 1-3"],
  },
};

function described(symbols: {
  name: string;
  kind: string;
  startLine: number;
  endLine: number;
  container: string | null;
}[]): string[] {
  return symbols.map((s) =>
    `${s.kind} ${s.name} ${s.startLine}-${s.endLine}${s.container ? ` in ${s.container}` : ""}`
  );
}

Deno.test("symbol extraction: every grammar language finds its definitions with kinds and containers", async () => {
  const extractor = await SymbolExtractor.create();
  assertEquals(Object.keys(SAMPLES).sort(), [...GRAMMAR_LANGUAGES].sort());
  const missing: string[] = [];
  for (const [language, sample] of Object.entries(SAMPLES)) {
    const found = await extractor.extract(sample.path, sample.text);
    assertEquals(found.outcome, "parsed", language);
    assertEquals(found.language, language);
    const got = described(found.symbols);
    for (const want of sample.want) {
      if (!got.includes(want)) missing.push(`${language}: ${want} not in ${got.join(", ")}`);
    }
  }
  assertEquals(missing, []);
});

Deno.test("symbol extraction: definitions after doc comments are found as without them", async () => {
  const extractor = await SymbolExtractor.create();
  const documented = [
    {
      path: "a.js",
      text:
        "/** A store. */\nclass Store {\n  /** Made. */\n  constructor() {}\n  // Counts.\n  count() { return 0; }\n}\n// Makes one.\nfunction make() {}\n",
      want: [
        "class Store 2-7",
        "method constructor 4-4 in Store",
        "method count 6-6 in Store",
        "function make 9-9",
      ],
    },
    {
      path: "a.go",
      text:
        'package p\n\n// New makes one.\nfunc New() int { return 0 }\n\n// Key names it.\n// Twice.\nfunc (i Item) Key() string { return "" }\n',
      want: ["module p 1-1", "function New 4-4", "method Key 8-8"],
    },
    {
      path: "a.rb",
      text: "# A store.\nclass Store\n  # Counts.\n  def count\n    0\n  end\nend\n",
      want: ["class Store 2-7", "method count 4-6 in Store"],
    },
  ];
  for (const { path, text, want } of documented) {
    assertEquals(described((await extractor.extract(path, text)).symbols), want, path);
  }
});

Deno.test("symbol extraction: prototypes, extern declarations and bodiless structs are not definitions", async () => {
  const extractor = await SymbolExtractor.create();
  const found = await extractor.extract(
    "a.h",
    "int area(int w);\nextern int total;\nstruct later;\nenum color;\nint (*hook)(void);\n",
  );
  assertEquals(described(found.symbols), ["variable hook 5-5"]);
});

Deno.test("symbol extraction: languages without a grammar use the line patterns; others have none", async () => {
  const extractor = await SymbolExtractor.create();
  const shell = await extractor.extract("build.sh", "setup() {\n  :\n}\n");
  assertEquals([shell.outcome, shell.language, described(shell.symbols)], [
    "patterns",
    "shell",
    ["function setup 1-1"],
  ]);
  const kotlin = await extractor.extract("A.kt", "class Store {\n  fun count() = 0\n}\n");
  assertEquals(described(kotlin.symbols), ["class Store 1-1", "function count 2-2"]);
  const text = await extractor.extract("notes.txt", "def nothing():\n");
  assertEquals([text.outcome, text.symbols], ["none", []]);
});

Deno.test("symbol extraction: a file past the deadline is cut off, counted, and given the patterns' symbols", async () => {
  let now = 0;
  // Every look at the clock moves it a second: the first progress check is past a 10 ms deadline.
  const extractor = await SymbolExtractor.create({ deadlineMs: 10, now: () => (now += 1000) });
  const text = "int first(void)\n{\n  return 1;\n}\n".repeat(2000);
  const found = await extractor.extract("big.c", text);
  assertEquals(found.outcome, "timed_out");
  assertEquals(found.symbols.length, 2000); // the C pattern finds each definition's line
  assertEquals(found.symbols[0], {
    name: "first",
    kind: "function",
    startLine: 1,
    endLine: 1,
    container: null,
  });
  // The extractor goes on with the next file.
  now = 0;
  const patient = await SymbolExtractor.create({ deadlineMs: 1e12, now: () => now });
  assertEquals((await patient.extract("small.c", "int f(void) { return 0; }\n")).outcome, "parsed");
});

Deno.test("symbol extraction: hostile files end, and names are capped", async () => {
  const extractor = await SymbolExtractor.create();
  const deep = "int f(void) { return " + "(".repeat(50_000) + "1" + ")".repeat(50_000) + "; }\n";
  const nested = await extractor.extract("deep.c", deep);
  assert(["parsed", "timed_out", "failed"].includes(nested.outcome), nested.outcome);
  const long = `function ${"a".repeat(5000)}() {}\nfunction ok() {}\n`;
  const capped = await extractor.extract("long.js", long);
  assertEquals(described(capped.symbols), ["function ok 2-2"]);
  const binaryish = await extractor.extract("noise.py", "\u0000\uFFFD".repeat(10_000));
  assertEquals(binaryish.symbols, []);
  // After all of that, a plain file still parses.
  assertEquals((await extractor.extract("ok.py", "def fine():\n  pass\n")).outcome, "parsed");
});
