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

// Resolves the name at `at` over `files` with a parser of its own, then keeps the lines of
// every file that refer to it.
async function referencesIn(
  files: Record<string, string>,
  at: NameAt,
): ReturnType<typeof resolvedReferences> {
  const parser = new ReferenceParser({ fileMs: 60_000 });
  try {
    return await resolvedReferences(parser, files, at);
  } finally {
    parser.close();
  }
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
  const parser = new ReferenceParser({ fileMs: 60_000 });
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
  try {
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
  } finally {
    parser.close();
  }
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
