/**
 * References and definitions of C, Go, Python and Rust names across files
 * (`scope_references.ts` through `name_resolution.ts`): a C `static`
 * function or a `.c` file's macro only in its file, a global function in
 * every file but where a parameter or local of that name hides it; a Go
 * lower-case name in its package's folder, an exported one there and where
 * `pkg.Name` names it through an import of that folder; a Python name where
 * it is imported from its module (renamed too) or named through it, not
 * another module's name; a Rust item without `pub` only in its file, a
 * `pub` one where a `use` brings it from its module; a local only in its
 * scope, and `definition` from a use of a local lands on its declaration.
 */

import { assertEquals } from "../../support/assert.ts";
import { ReferenceParser, referencesOf } from "../../../sourcegraph/service/name_references.ts";
import { NameResolver, resolveAt } from "../../../sourcegraph/service/name_resolution.ts";
import { mayHoldScoped, type ScopedTarget } from "../../../sourcegraph/service/scope_references.ts";
import type { NameOccurrences } from "../../../sourcegraph/symbols/symbol_extractor.ts";
import { type NameAt, resolvedReferences } from "../../support/resolved_references.ts";

// One parser for the module: its answers are keyed by path, name and text, so the tests share
// it without seeing each other's files, and its worker loads each grammar once. Its deadlines
// are generous, the wait before a parse begins too: a grammar's load counts toward that wait, and
// a loaded machine made it outlast the service's 20 s.
const parser = new ReferenceParser({ fileMs: 60_000, queuedMs: 60_000 });

// Resolves the name at `at` over `files`, then keeps the lines of every file that refer to it.
function referencesIn(
  files: Record<string, string>,
  at: NameAt,
): ReturnType<typeof resolvedReferences> {
  return resolvedReferences(parser, files, at);
}

const C_FILES = {
  "negotiator/default.c": [
    "#define POPPED (1U << 5)",
    "static int get_rev(int n) { return n & POPPED; }",
    "int next(void) { return get_rev(1) + find_subject(0); }",
  ].join("\n"),
  "negotiator/skipping.c": [
    "#define POPPED (1U << 5)",
    "static int get_rev(int n) { return n & POPPED; }",
    "int next2(void) { return get_rev(2); }",
  ].join("\n"),
  "commit.h": "int find_subject(int subject_len);",
  "commit.c": [
    '#include "commit.h"',
    "int find_subject(int subject_len) {",
    "  int len = subject_len;",
    "  return len;",
    "}",
  ].join("\n"),
  "other.c": [
    "static void walk(int (*find_subject)(int)) { find_subject(1); }",
    "int subject(void) { int subject_len = 2; return subject_len + find_subject(3); }",
  ].join("\n"),
};

Deno.test("C: a static function and a .c file's macro are referred to in their file only; a global everywhere but under a parameter of its name", async () => {
  const rev = await referencesIn(C_FILES, {
    path: "negotiator/default.c",
    name: "get_rev",
    line: 2,
  });
  assertEquals(rev.lines, ["negotiator/default.c:2", "negotiator/default.c:3"]);
  const popped = await referencesIn(C_FILES, {
    path: "negotiator/skipping.c",
    name: "POPPED",
    line: 1,
  });
  assertEquals(popped.lines, ["negotiator/skipping.c:1", "negotiator/skipping.c:2"]);
  const subject = await referencesIn(C_FILES, { path: "commit.c", name: "find_subject", line: 2 });
  assertEquals(subject.target?.scope?.reach, "global");
  assertEquals(subject.lines, ["commit.c:2", "commit.h:1", "negotiator/default.c:3", "other.c:2"]);
  // From a use in a file that does not declare it: the same answer.
  const used = await referencesIn(C_FILES, { path: "other.c", name: "find_subject", line: 2 });
  assertEquals(used.lines, subject.lines);
  assertEquals(used.target?.scope?.declared, false);
});

Deno.test("C: a parameter is referred to in its function only, and its use leads to its declaration", async () => {
  const local = await referencesIn(C_FILES, { path: "commit.c", name: "subject_len", line: 3 });
  assertEquals(local.lines, ["commit.c:2", "commit.c:3"]);
  assertEquals(
    [local.target?.path, local.target?.line, local.target?.column, local.target?.via],
    ["commit.c", 2, 21, "scope"],
  );
  const other = await referencesIn(C_FILES, {
    path: "other.c",
    name: "subject_len",
    line: 2,
    nth: 1,
  });
  assertEquals(other.lines, ["other.c:2"]);
});

const GO_FILES = {
  "lib/a.go": "package lib\nfunc helper() int { return 1 }\nfunc Count() int { return helper() }\n",
  "lib/b.go": "package lib\nfunc twice() int { return helper() + Count() }\n",
  "app/main.go": [
    "package main",
    'import "example.org/m/lib"',
    "func helper() int { return lib.Count() }",
    "func main() { helper() }",
  ].join("\n"),
  "other/x.go": [
    "package other",
    'import lib "example.org/m/vendor/other"',
    "func Count(helper int) int { return lib.Count() + helper }",
  ].join("\n"),
};

Deno.test("Go: a lower-case name is its package's folder's; an exported one is also named through an import of its folder", async () => {
  const helper = await referencesIn(GO_FILES, { path: "lib/a.go", name: "helper", line: 2 });
  assertEquals(helper.lines, ["lib/a.go:2", "lib/a.go:3", "lib/b.go:2"]);
  const count = await referencesIn(GO_FILES, { path: "lib/a.go", name: "Count", line: 3 });
  assertEquals(count.lines, ["app/main.go:3", "lib/a.go:3", "lib/b.go:2"]);
});

const PY_FILES = {
  "pkg/store.py": "def load(path):\n    return path\n",
  "pkg/app.py": "from .store import load\nload(1)\n",
  "pkg/alias.py": "from pkg.store import load as fetch\nfetch(2)\n",
  "pkg/mod.py": "from pkg import store\nstore.load(3)\n",
  "pkg/other.py": "def load():\n    pass\nload()\n",
  "pkg/third.py": "from .cache import load\nload()\n",
};

Deno.test("Python: a module's name where it is imported from that module or named through it, not another module's", async () => {
  const load = await referencesIn(PY_FILES, { path: "pkg/store.py", name: "load", line: 1 });
  assertEquals(load.lines, [
    "pkg/alias.py:1",
    "pkg/app.py:1",
    "pkg/app.py:2",
    "pkg/mod.py:2",
    "pkg/store.py:1",
  ]);
  const path = await referencesIn(PY_FILES, { path: "pkg/store.py", name: "path", line: 2 });
  assertEquals(path.lines, ["pkg/store.py:1", "pkg/store.py:2"]);
});

const RUST_FILES = {
  "src/a.rs": "fn helper() -> i32 { 1 }\npub fn run() -> i32 { helper() }\n",
  "src/b.rs": "fn helper() -> i32 { 2 }\nfn go() -> i32 { helper() }\n",
  "src/c.rs": "use crate::a::run;\nfn main() { run(); }\n",
  "src/d.rs": "fn run() {}\nfn main() { run(); }\n",
};

Deno.test("Rust: an item without pub is its file's; a pub one is used where a use brings it from its module", async () => {
  const helper = await referencesIn(RUST_FILES, { path: "src/a.rs", name: "helper", line: 1 });
  assertEquals(helper.lines, ["src/a.rs:1", "src/a.rs:2"]);
  const run = await referencesIn(RUST_FILES, { path: "src/a.rs", name: "run", line: 2 });
  assertEquals(run.lines, ["src/a.rs:2", "src/c.rs:1", "src/c.rs:2"]);
});

Deno.test("a local or a name private to its file is looked for in that file only, a Go package's name in its folder, a global in its language's files", () => {
  const scope = (family: string, reach: ScopedTarget["reach"]): ScopedTarget => ({
    family,
    space: "value",
    reach,
    declared: true,
  });
  const holds = (target: { path: string; scope: ScopedTarget }, paths: string[]) =>
    paths.filter((path) => mayHoldScoped(target, path));
  const paths = ["src/a.rs", "src/b.rs", "src/a.py", "pkg/a.go", "pkg/b.go", "pkg/sub/c.go"];
  assertEquals(holds({ path: "src/a.rs", scope: scope("rust", "file") }, paths), ["src/a.rs"]);
  assertEquals(holds({ path: "src/a.rs", scope: scope("rust", "local") }, paths), ["src/a.rs"]);
  assertEquals(holds({ path: "pkg/a.go", scope: scope("go", "package") }, paths), [
    "pkg/a.go",
    "pkg/b.go",
  ]);
  assertEquals(holds({ path: "src/a.rs", scope: scope("rust", "global") }, paths), [
    "src/a.rs",
    "src/b.rs",
  ]);
});

Deno.test("Rust: a page of an item without pub parses its own file only; the other candidates pass with no rows", async () => {
  const analyzed: string[] = [];
  // The resolver's analyses are the parses of a resolved name's page.
  class Counting extends NameResolver {
    override analysis(path: string, name: string): Promise<NameOccurrences | null> {
      analyzed.push(path);
      return super.analysis(path, name);
    }
  }
  const files: Record<string, string> = RUST_FILES;
  const text = (path: string) => Promise.resolve(files[path] ?? null);
  const resolver = new Counting(parser, {
    text,
    exists: (path) => Promise.resolve(path in files),
  });
  const target = await resolveAt(resolver, {
    path: "src/a.rs",
    name: "helper",
    line: 1,
    column: 3,
  });
  assertEquals(target?.scope?.reach, "file");
  analyzed.length = 0;
  const matches = ["src/a.rs", "src/b.rs"].map((path) => ({
    path,
    matchCount: 2,
    lines: files[path].split("\n").flatMap((line, i) =>
      line.includes("helper") ? [{ number: i + 1, text: line }] : []
    ),
  }));
  const page = await referencesOf(parser, matches, {
    name: "helper",
    includeDeclaration: true,
    text,
    resolved: { resolver, target: target! },
  });
  assertEquals(analyzed, ["src/a.rs"]);
  assertEquals(page.files.map((file) => [file.path, file.parse, file.lines.length]), [
    ["src/a.rs", "parsed", 2],
    ["src/b.rs", "parsed", 0],
  ]);
});

const SELF_FILES = {
  "src/id.rs": [
    "pub struct Id { value: u32 }",
    "impl Id {",
    "    pub fn raw(&self) -> u32 { self.value }",
    "    fn show(&self) -> u32 { self.raw() + other.raw() }",
    "}",
  ].join("\n"),
  "box.py":
    "class Box:\n    def get(self):\n        return 1\n    def twice(self):\n        return self.get() + other.get()\n",
};

Deno.test("Rust and Python: a member of self leads to the one member of that name its own file declares; another receiver's does not", async () => {
  const method = await referencesIn(SELF_FILES, { path: "src/id.rs", name: "raw", line: 4 });
  assertEquals([method.target?.line, method.target?.column, method.target?.scope?.declared], [
    3,
    11,
    true,
  ]);
  const other = await referencesIn(SELF_FILES, { path: "src/id.rs", name: "raw", line: 4, nth: 1 });
  assertEquals(other.target?.scope?.declared, false);
  const get = await referencesIn(SELF_FILES, { path: "box.py", name: "get", line: 5 });
  assertEquals([get.target?.line, get.target?.scope?.declared], [2, true]);
  assertEquals(get.lines, ["box.py:2", "box.py:5"]);
});

const JAVA_FILES = {
  "lib/src/main/java/a/b/Store.java": [
    "package a.b;",
    "public class Store {",
    "  private int count;",
    "  int size;",
    "  public int load(int count) { return this.count + count + helper(); }",
    "  private int helper() { return size; }",
    "}",
  ].join("\n"),
  "lib/src/test/java/a/b/StoreTest.java": [
    "package a.b;",
    "class StoreTest { int check(Store s) { return s.size + s.load(1); } }",
  ].join("\n"),
  "app/src/main/java/a/c/App.java": [
    "package a.c;",
    "import a.b.Store;",
    "class App { private int count; int run(Store s) { return s.load(count); } }",
  ].join("\n"),
  "other/src/main/java/x/y/Store.java":
    "package x.y;\npublic class Store { int helper() { return 1; } }",
  "other/src/main/java/x/y/Use.java": "package x.y;\nclass Use { Store s; }",
};

Deno.test("Java: a private member is its file's; a package-private one its package's, tests included; a class where its package or an import of it names it", async () => {
  const count = await referencesIn(JAVA_FILES, {
    path: "lib/src/main/java/a/b/Store.java",
    name: "count",
    line: 3,
  });
  assertEquals(count.lines, [
    "lib/src/main/java/a/b/Store.java:3",
    "lib/src/main/java/a/b/Store.java:5",
  ]);
  const helper = await referencesIn(JAVA_FILES, {
    path: "lib/src/main/java/a/b/Store.java",
    name: "helper",
    line: 5,
  });
  assertEquals([helper.target?.line, helper.target?.scope?.reach], [6, "file"]);
  assertEquals(helper.lines, [
    "lib/src/main/java/a/b/Store.java:5",
    "lib/src/main/java/a/b/Store.java:6",
  ]);
  const size = await referencesIn(JAVA_FILES, {
    path: "lib/src/main/java/a/b/Store.java",
    name: "size",
    line: 4,
  });
  assertEquals(size.lines, [
    "lib/src/main/java/a/b/Store.java:4",
    "lib/src/main/java/a/b/Store.java:6",
    "lib/src/test/java/a/b/StoreTest.java:2",
  ]);
  const store = await referencesIn(JAVA_FILES, {
    path: "lib/src/main/java/a/b/Store.java",
    name: "Store",
    line: 2,
  });
  assertEquals(store.lines, [
    "app/src/main/java/a/c/App.java:2",
    "app/src/main/java/a/c/App.java:3",
    "lib/src/main/java/a/b/Store.java:2",
    "lib/src/test/java/a/b/StoreTest.java:2",
  ]);
});

const CS_FILES = {
  "src/Sink.cs": [
    "namespace Serilog.Core;",
    "class Sink { int _count; public int Emit() { return _count + Helper(); } int Helper() => 1; }",
  ].join("\n"),
  "src/Other.cs": [
    "namespace Serilog.Core;",
    "class Other { int _count; int Helper() => _count; int Run(Sink s) => s.Emit(); }",
  ].join("\n"),
  "src/Part.cs": "partial class Part { int _count; }",
  "src/Part2.cs": "partial class Part { int Get() => _count; }",
};

Deno.test("C#: a private member (the default) is its file's unless its class is partial; another class's own member of the name is not it", async () => {
  const count = await referencesIn(CS_FILES, { path: "src/Sink.cs", name: "_count", line: 2 });
  assertEquals(count.lines, ["src/Sink.cs:2"]);
  assertEquals(count.target?.scope?.reach, "file");
  const part = await referencesIn(CS_FILES, { path: "src/Part.cs", name: "_count", line: 1 });
  assertEquals(part.target?.scope?.reach, "global");
  // Every member access of the name, but not another file's own private one.
  assertEquals(part.lines, ["src/Part.cs:1", "src/Part2.cs:1"]);
  const emit = await referencesIn(CS_FILES, { path: "src/Sink.cs", name: "Emit", line: 2 });
  assertEquals(emit.lines, ["src/Other.cs:2", "src/Sink.cs:2"]);
});

const PHP_FILES = {
  "Slim/Routing/Route.php": [
    "<?php",
    "namespace Slim\\Routing;",
    "class Route {",
    "    private $count;",
    "    public function run($count) { return $this->helper($count) + $this->count; }",
    "    private function helper($count) { return $count; }",
    "}",
  ].join("\n"),
  "Slim/Routing/Group.php":
    "<?php\nnamespace Slim\\Routing;\nclass Group { public function make() { return new Route(); } }",
  "Slim/App.php":
    "<?php\nnamespace Slim;\nuse Slim\\Routing\\Route;\nclass App { private $count; function r(): Route { return $this->helper(); } }",
  "Slim/Other/Use.php":
    "<?php\nnamespace Slim\\Other;\nclass Use2 { function r(): Route { return null; } }",
};

Deno.test("PHP: a variable is its function's; a private member its file's; a class where its namespace's folder or a use of it names it", async () => {
  const count = await referencesIn(PHP_FILES, {
    path: "Slim/Routing/Route.php",
    name: "count",
    line: 5,
  });
  assertEquals(count.lines, ["Slim/Routing/Route.php:5"]);
  assertEquals(count.target?.scope?.reach, "local");
  const property = await referencesIn(PHP_FILES, {
    path: "Slim/Routing/Route.php",
    name: "count",
    line: 4,
  });
  assertEquals(property.lines, ["Slim/Routing/Route.php:4", "Slim/Routing/Route.php:5"]);
  const helper = await referencesIn(PHP_FILES, {
    path: "Slim/Routing/Route.php",
    name: "helper",
    line: 6,
  });
  assertEquals(helper.lines, ["Slim/Routing/Route.php:5", "Slim/Routing/Route.php:6"]);
  const route = await referencesIn(PHP_FILES, {
    path: "Slim/Routing/Route.php",
    name: "Route",
    line: 3,
  });
  assertEquals(route.lines, [
    "Slim/App.php:3",
    "Slim/App.php:4",
    "Slim/Routing/Group.php:3",
    "Slim/Routing/Route.php:3",
  ]);
});

const RUBY_FILES = {
  "lib/route.rb": [
    "class Route",
    "  def run(count) = helper(count) + size",
    "  private",
    "  def helper(count) = count",
    "end",
  ].join("\n"),
  "lib/more.rb": "class Route\n  def size = 1\nend\n",
  "lib/other.rb":
    "class Other\n  def go(r) = r.run(1) + r.helper(2)\n  private\n  def helper(x) = x\nend\n",
};

Deno.test("Ruby: a parameter is its method's; a private method its file's; a class reopened in another file is the same class", async () => {
  const count = await referencesIn(RUBY_FILES, { path: "lib/route.rb", name: "count", line: 2 });
  assertEquals(count.lines, ["lib/route.rb:2"]);
  const helper = await referencesIn(RUBY_FILES, { path: "lib/route.rb", name: "helper", line: 4 });
  assertEquals(helper.lines, ["lib/route.rb:2", "lib/route.rb:4"]);
  const route = await referencesIn(RUBY_FILES, { path: "lib/route.rb", name: "Route", line: 1 });
  assertEquals(route.lines, ["lib/more.rb:1", "lib/route.rb:1"]);
  // A method of self no file's class declares privately: every call of the name.
  const run = await referencesIn(RUBY_FILES, { path: "lib/route.rb", name: "run", line: 2 });
  assertEquals(run.lines, ["lib/other.rb:2", "lib/route.rb:2"]);
});

const APART_FILES = {
  "src/main/java/a/Box.java": [
    "package a;",
    "public class Box {",
    "  public int size;",
    "  public int size() { return size; }",
    "}",
  ].join("\n"),
  "src/main/java/a/Use.java": [
    "package a;",
    "class Use {",
    "  int field(Box b) { return b.size; }",
    "  int method(Box b) { return b.size(); }",
    "}",
  ].join("\n"),
};

// PHP apart (each language's files are looked at for its own names only).
const PHP_APART_FILES = {
  "src/Box.php": [
    "<?php",
    "class Box {",
    "    public $size;",
    "    public function size() { return $this->size; }",
    "    public function twice() { return 2 * $this->size(); }",
    "}",
  ].join("\n"),
};

Deno.test("Java and PHP: a field and a method of one name are two members; a call is the method's, an access the field's", async () => {
  const field = await referencesIn(APART_FILES, {
    path: "src/main/java/a/Box.java",
    name: "size",
    line: 3,
  });
  assertEquals(field.lines, [
    "src/main/java/a/Box.java:3",
    "src/main/java/a/Box.java:4",
    "src/main/java/a/Use.java:3",
  ]);
  const method = await referencesIn(APART_FILES, {
    path: "src/main/java/a/Use.java",
    name: "size",
    line: 4,
  });
  assertEquals(method.lines, ["src/main/java/a/Box.java:4", "src/main/java/a/Use.java:4"]);
  const property = await referencesIn(PHP_APART_FILES, {
    path: "src/Box.php",
    name: "size",
    line: 3,
  });
  assertEquals(property.lines, ["src/Box.php:3", "src/Box.php:4"]);
  const call = await referencesIn(PHP_APART_FILES, { path: "src/Box.php", name: "size", line: 5 });
  assertEquals(call.lines, ["src/Box.php:4", "src/Box.php:5"]);
});
