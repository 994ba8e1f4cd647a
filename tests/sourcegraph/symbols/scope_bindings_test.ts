/**
 * What each occurrence of a name is bound to in C, Go, Python and Rust
 * files (`scope_bindings.ts`, through the extractor's occurrences with
 * bindings): parameters and locals of functions, blocks, loops, closures and
 * match arms, shadowing, the file's declarations with their reach (C
 * `static`, a `.c` file's macros, Go lower-case names, Rust items without
 * `pub`), members, imports and names qualified by an imported module.
 */

import { assertEquals } from "../../support/assert.ts";
import { SymbolExtractor } from "../../../sourcegraph/symbols/symbol_extractor.ts";

// Each occurrence as `line:column binding-kind[@declaration line:column] [reach] [module]`.
async function bound(path: string, text: string, name: string): Promise<string[]> {
  const extractor = await SymbolExtractor.create();
  const found = await extractor.occurrences(path, text, name, { bindings: true });
  return found.occurrences.map(({ line, column, binding, scope }) => {
    let row = `${line}:${column} ${binding?.kind}`;
    if (binding?.kind === "local" || binding?.kind === "file") {
      row += `@${binding.line}:${binding.column}`;
    }
    if (binding?.kind === "import") row += ` from ${binding.module}`;
    if (scope?.reach) row += ` ${scope.reach}`;
    if (scope?.module !== undefined) row += ` in ${scope.module}`;
    if (scope?.space === "type") row += " type";
    return row;
  });
}

const C = [
  "static int get_rev(int n);", // 1
  "#define LIMIT 3", // 2
  "struct state { int len; };", // 3
  "static int get_rev(int n) {", // 4
  "  int len = n;", // 5
  "  for (int n = 0; n < LIMIT; n++) { int len = 2; len++; }", // 6
  "  struct state *s; s->len = len;", // 7
  "  return get_rev(len);", // 8
  "}", // 9
  "int run(struct state *state) { return get_rev(1); }", // 10
].join("\n");

Deno.test("C: parameters, block locals and shadowing; static functions and a .c file's macros are the file's; members and types apart", async () => {
  assertEquals(await bound("a.c", C, "n"), [
    "1:23 local@1:23", // a prototype's parameter is its own
    "4:23 local@4:23",
    "5:12 local@4:23",
    "6:11 local@6:11", // the loop's own n shadows the parameter
    "6:18 local@6:11",
    "6:29 local@6:11",
  ]);
  assertEquals(await bound("a.c", C, "len"), [
    "3:19 member",
    "5:6 local@5:6",
    "6:40 local@6:40",
    "6:49 local@6:40",
    "7:22 member",
    "7:28 local@5:6",
    "8:17 local@5:6",
  ]);
  // The definition, not the prototype, is the declaration; it is the file's own.
  const rev = ["1:11", "4:11", "8:9", "10:38"].map((at) => `${at} file@4:11 file`);
  assertEquals(await bound("a.c", C, "get_rev"), rev);
  assertEquals(await bound("a.c", C, "LIMIT"), ["2:8 file@2:8 file", "6:22 file@2:8 file"]);
  // In a header the same declarations are seen by every file that includes it.
  assertEquals(await bound("a.h", C, "LIMIT"), ["2:8 file@2:8 global", "6:22 file@2:8 global"]);
  assertEquals(await bound("a.c", C, "state"), [
    "3:7 file@3:7 global type",
    "7:9 file@3:7 global type",
    "10:15 file@3:7 global type",
    "10:22 local@10:22", // a parameter named like the type
  ]);
  assertEquals(await bound("a.c", C, "run"), ["10:4 file@10:4 global"]);
});

const GO = [
  "package p", // 1
  'import x "example.org/m/lib"', // 2
  "var count = 1", // 3
  "func Run(count int) int {", // 4
  "  if count := 2; count > 0 { return count }", // 5
  "  for _, v := range x.Items(count) { _ = v.count }", // 6
  "  return count + x.Count", // 7
  "}", // 8
  "func use() int { return count + Run(1) }", // 9
].join("\n");

Deno.test("Go: parameters, if and range bindings shadow; lower-case package names are the package's; a selector on an import is that package's name", async () => {
  assertEquals(await bound("p/a.go", GO, "count"), [
    "3:4 file@3:4 package",
    "4:9 local@4:9",
    "5:5 local@5:5",
    "5:17 local@5:5",
    "5:36 local@5:5",
    "6:28 local@4:9",
    "6:43 member",
    "7:9 local@4:9",
    "9:24 file@3:4 package",
  ]);
  assertEquals(await bound("p/a.go", GO, "Run"), ["4:5 file@4:5 global", "9:32 file@4:5 global"]);
  assertEquals(await bound("p/a.go", GO, "Count"), ["7:19 member in example.org/m/lib"]);
});

const PYTHON = [
  "from .store import load as fetch, save", // 1
  "import os.path", // 2
  "def load(path):", // 3
  "    data = [path for path in os.listdir(path)]", // 4
  "    def inner():", // 5
  "        return path", // 6
  "    return fetch(path), save", // 7
  "class Box:", // 8
  "    path = None", // 9
  "    def get(self): return self.path", // 10
].join("\n");

Deno.test("Python: parameters, comprehension and enclosing function scopes; class bodies are members; imports and renamed imports", async () => {
  assertEquals(await bound("pkg/a.py", PYTHON, "path"), [
    "2:10 import from os.path",
    "3:9 local@3:9",
    "4:12 local@4:21", // the comprehension's own variable
    "4:21 local@4:21",
    "4:40 local@3:9", // the first iterable is the enclosing scope's,
    "6:15 local@3:9", // a nested function sees the enclosing one's
    "7:17 local@3:9",
    "9:4 member",
    "10:31 member",
  ]);
  assertEquals(await bound("pkg/a.py", PYTHON, "load"), [
    "1:19 import from .store",
    "3:4 file@3:4 global",
  ]);
  assertEquals(await bound("pkg/a.py", PYTHON, "fetch"), [
    "1:27 import from .store",
    "7:11 import from .store",
  ]);
});

const RUST = [
  "use crate::store::{load as fetch, save};", // 1
  "fn helper(n: i32) -> i32 { n }", // 2
  "pub fn run(n: i32) -> i32 {", // 3
  "    let total = helper(n);", // 4
  "    let f = |n| n + total;", // 5
  "    match fetch(n) { Some(total) => total, None => crate::util::helper(n) }", // 6
  "}", // 7
].join("\n");

Deno.test("Rust: parameters, let, closure and match bindings shadow; items without pub are the module's; paths are their module's", async () => {
  assertEquals(await bound("src/a.rs", RUST, "total"), [
    "4:8 local@4:8",
    "5:20 local@4:8",
    "6:26 local@6:26",
    "6:36 local@6:26",
  ]);
  assertEquals(await bound("src/a.rs", RUST, "helper"), [
    "2:3 file@2:3 file",
    "4:16 file@2:3 file",
    "6:64 member in crate::util",
  ]);
  assertEquals(await bound("src/a.rs", RUST, "n"), [
    "2:10 local@2:10",
    "2:27 local@2:10",
    "3:11 local@3:11",
    "4:23 local@3:11",
    "5:13 local@5:13",
    "5:16 local@5:13",
    "6:16 local@3:11",
    "6:71 local@3:11",
  ]);
  assertEquals(await bound("src/a.rs", RUST, "run"), ["3:7 file@3:7 global"]);
  assertEquals(await bound("src/a.rs", RUST, "fetch"), [
    "1:27 import from crate::store",
    "6:10 import from crate::store",
  ]);
});
