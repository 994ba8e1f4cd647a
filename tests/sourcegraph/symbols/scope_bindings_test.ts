/**
 * What each occurrence of a name is bound to in C, Go, Python, Rust, Java,
 * C#, PHP and Ruby files (`scope_bindings.ts`, through the extractor's
 * occurrences with bindings): parameters and locals of functions, blocks,
 * loops, closures, lambdas and match arms, shadowing, the file's
 * declarations with their reach (C `static`, a `.c` file's macros, Go
 * lower-case names, Rust items without `pub`, private members), members,
 * imports and names qualified by an imported module.
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

const JAVA = [
  "package a.b;", // 1
  "import a.c.Store;", // 2
  "class A {", // 3
  "  private int count;", // 4
  "  int run(int count) {", // 5
  "    for (int i = 0; i < count; i++) { this.count += i; }", // 6
  "    Runnable r = () -> { int count = 2; helper(count); };", // 7
  "    if (r instanceof Runnable count2) { count2.run(); }", // 8
  "    return helper(this.count) + Store.load(count);", // 9
  "  }", // 10
  "  private int helper(int n) { return count + n; }", // 11
  "}", // 12
].join("\n");

Deno.test("Java: parameters, loop, lambda and pattern variables shadow a field; private members are the file's, this.f and an unqualified f the class's own", async () => {
  assertEquals(await bound("a/b/A.java", JAVA, "count"), [
    "4:14 member file", // the private field
    "5:14 local@5:14", // a parameter hides it
    "6:24 local@5:14",
    "6:43 member file", // this.count
    "7:29 local@7:29", // the lambda's own
    "7:47 local@7:29",
    "9:23 member file",
    "9:43 local@5:14",
    "11:37 member file", // no local of that name: the field
  ]);
  assertEquals(await bound("a/b/A.java", JAVA, "helper"), [
    "7:40 member file",
    "9:11 member file",
    "11:14 member file",
  ]);
  assertEquals(await bound("a/b/A.java", JAVA, "count2"), ["8:30 local@8:30", "8:40 local@8:30"]);
  assertEquals(await bound("a/b/A.java", JAVA, "Store"), [
    "2:11 import from a.c",
    "9:32 import from a.c",
  ]);
});

const CSHARP = [
  "using Serilog.Events;", // 1
  "namespace Serilog.Core", // 2
  "{", // 3
  "    class Sink", // 4
  "    {", // 5
  "        int _count;", // 6
  "        public int Emit(int count)", // 7
  "        {", // 8
  "            foreach (var item in Items(count)) { _count += item; }", // 9
  "            Func<int, int> f = count => count + _count;", // 10
  "            if (Next() is Sink other) { other._count = count; }", // 11
  "            return Helper(this._count) + f(count);", // 12
  "        }", // 13
  "        int Helper(int n) => n + _count;", // 14
  "    }", // 15
  "}", // 16
].join("\n");

Deno.test("C#: parameters, foreach, lambda and pattern variables; a member without an access modifier is private to the file; another receiver's member is not the class's own", async () => {
  assertEquals(await bound("Core/Sink.cs", CSHARP, "count"), [
    "7:28 local@7:28",
    "9:39 local@7:28",
    "10:31 local@10:31", // the lambda's parameter
    "10:40 local@10:31",
    "11:55 local@7:28",
    "12:43 local@7:28",
  ]);
  assertEquals(await bound("Core/Sink.cs", CSHARP, "_count"), [
    "6:12 member file",
    "9:49 member file",
    "10:48 member file",
    "11:46 member", // other._count: a receiver of its own
    "12:31 member file",
    "14:33 member file",
  ]);
  assertEquals(await bound("Core/Sink.cs", CSHARP, "other"), [
    "11:31 local@11:31",
    "11:40 local@11:31",
  ]);
});

const PHP = [
  "<?php", // 1
  "namespace Slim\\Routing;", // 2
  "use Slim\\Interfaces\\RouteInterface;", // 3
  "class Route implements RouteInterface", // 4
  "{", // 5
  "    private $count;", // 6
  "    public function run(array $items, $count)", // 7
  "    {", // 8
  "        foreach ($items as $item) { $this->count += $item; }", // 9
  "        $f = function ($count) use ($items) { return $count + count($items); };", // 10
  "        $g = fn($n) => $n + $count;", // 11
  "        return $this->helper($count) + $f(1) + $g(2);", // 12
  "    }", // 13
  "    private function helper($n) { return $n + $this->count; }", // 14
  "}", // 15
].join("\n");

Deno.test("PHP: a variable is its function's; a closure sees the enclosing one's through use, an arrow function all of them; $this->f and private members", async () => {
  assertEquals(await bound("Slim/Routing/Route.php", PHP, "count"), [
    "6:13 member file", // private $count
    "7:39 local@7:39",
    "9:43 member file", // $this->count
    "10:24 local@10:24", // the closure's own parameter
    "10:54 local@10:24",
    "10:62 free type", // the function count()
    "11:29 local@7:39", // an arrow function sees the enclosing function's
    "12:30 local@7:39",
    "14:53 member file",
  ]);
  assertEquals(await bound("Slim/Routing/Route.php", PHP, "items"), [
    "7:31 local@7:31",
    "9:18 local@7:31",
    "10:37 local@7:31", // use ($items)
    "10:69 local@7:31",
  ]);
  assertEquals(await bound("Slim/Routing/Route.php", PHP, "RouteInterface"), [
    "3:20 import from Slim\\Interfaces type",
    "4:23 import from Slim\\Interfaces type",
  ]);
});

const RUBY = [
  "class Route", // 1
  "  def run(count, items)", // 2
  "    items.each { |item| sum = item + count; sum }", // 3
  "    total = 0", // 4
  "    items.each { |item| total += item }", // 5
  "    helper(total) + @count", // 6
  "  end", // 7
  "", // 8
  "  private", // 9
  "", // 10
  "  def helper(n) = n + count", // 11
  "end", // 12
].join("\n");

Deno.test("Ruby: parameters and assignments of methods and blocks; a block's assignment of the method's variable is that variable; a name no local binds is a method of self, private after private", async () => {
  assertEquals(await bound("lib/route.rb", RUBY, "total"), [
    "4:4 local@4:4",
    "5:24 local@4:4", // the block adds to the method's total
    "6:11 local@4:4",
  ]);
  assertEquals(await bound("lib/route.rb", RUBY, "sum"), ["3:24 local@3:24", "3:44 local@3:24"]);
  assertEquals(await bound("lib/route.rb", RUBY, "count"), [
    "2:10 local@2:10",
    "3:37 local@2:10", // a block sees the method's parameter
    "11:22 member", // no local there: a method call of self
  ]);
  assertEquals(await bound("lib/route.rb", RUBY, "helper"), [
    "6:4 member file",
    "11:6 member file",
  ]);
  assertEquals(await bound("lib/route.rb", RUBY, "@count"), ["6:20 member file"]);
});
