/**
 * `references` through a real MCP client on an in-process service over real
 * Git repositories: TypeScript, Python and Rust files where a function is
 * defined in one file and imported, called, typed and assigned in others,
 * the same word in comments and strings left out, a file with no grammar
 * kept as text; pages bounded by max_bytes cover every row once; hostile
 * positions, a regex for a symbol and a forged cursor are refused with their
 * codes; a private repository and a hidden path group answer byte for byte
 * as a name present nowhere does.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assert, assertEquals, waitFor } from "../../../support/assert.ts";
import { withInProcessClient } from "../../../support/in_process_service.ts";
import { callTool, type ToolOutcome } from "../../../support/tool_calls.ts";

const NAME = "org/refs";
const MANY = 'import { parseItem } from "../src/items";\n' +
  Array.from({ length: 300 }, (_, i) => `parseItem(${i});`).join("\n") + "\n";

const FILES: Record<string, string> = {
  "src/items.ts": [
    "// parseItem parses one item",
    "export function parseItem(text: string): Item {",
    "  return { text };",
    "}",
    "export interface Item { text: string }",
    "",
  ].join("\n"),
  "src/use.ts": [
    'import { parseItem } from "./items";',
    'const label = "parseItem is a string here";',
    "let first: Item = parseItem(label);",
    "let handler: typeof parseItem;",
    "handler = parseItem;",
    'const s = "😀\u200b"; parseItem(s);',
    "",
  ].join("\n"),
  "py/items.py": [
    "from items import parseItem",
    "# parseItem in a comment",
    "def parseItem(text):",
    '    """parseItem docs"""',
    "    return parseItem(text)",
    "",
  ].join("\n"),
  "rs/items.rs": [
    "use crate::items::parseItem;",
    "// parseItem",
    "fn main() {",
    '    let s = "parseItem";',
    "    let parseItem = items::parseItem(s);",
    "}",
    "",
  ].join("\n"),
  "src/other.ts": "export function parseItem(): void {}\nparseItem();\n",
  "src/shadow.ts": [
    'import { parseItem } from "./items";',
    "function f(parseItem: number) { return parseItem; }",
    'parseItem("a");',
    "box.parseItem;",
    "",
  ].join("\n"),
  "src/runners.ts": [
    "export class A {",
    "  run(): void {}",
    "  go(): void { this.run(); }",
    "}",
    "export class B {",
    "  run(): void {}",
    "  go(): void { this.run(); }",
    "}",
    "const a: A = new A();",
    "a.run();",
    "const b = new B();",
    "b.run();",
    "",
  ].join("\n"),
  "notes.txt": "parseItem in plain notes\n",
  "gen/many.ts": MANY,
};

function withRefs(fn: (client: Client) => Promise<void>): Promise<void> {
  return withInProcessClient(fn, {
    repositories: [
      { name: NAME, publicRead: true, files: FILES },
      {
        name: "org/mono",
        publicRead: true,
        files: {
          "docs/h.ts": "hiddenName();\n",
          "docs/l.ts": "lonelyName();\n",
          "secret/s.ts": "hiddenName();\nhiddenName();\n",
        },
        pathGroups: [{ name: "docs", paths: ["docs"] }],
      },
      { name: "org/closed", publicRead: false, files: { "a.ts": "parseItem();\n" } },
      { name: "org/local-function", publicRead: true, files: LOCAL_FILES },
      { name: "org/later-pages", publicRead: true, files: LATER_FILES },
      { name: "org/exported-alias", publicRead: true, files: EXPORTED_FILES },
      { name: "org/default-exports", publicRead: true, files: DEFAULT_FILES },
    ],
  });
}

type Case = [string, (client: Client) => Promise<void>];

// The cases over the three repositories above, and over org/local-function, org/later-pages,
// org/exported-alias and org/default-exports (below), each asking its own repository (the search index off), run as steps
// of one world. The last four's names are far from every name a case asks for that is not there
// (a missing name's answer lists the nearest visible ones in order, and a case compares two).
const REFS_CASES: Case[] = [];
function refsCase(name: string, fn: (client: Client) => Promise<void>): void {
  REFS_CASES.push([name, fn]);
}

Deno.test("references over one world of seven repositories (the search index off)", (t) =>
  withRefs(async (client) => {
    for (const [name, fn] of REFS_CASES) await t.step(name, () => fn(client));
  }));

// The cases over org/members and org/order (the search index on) run as steps of another.
const INDEXED_CASES: Case[] = [];
function indexedCase(name: string, fn: (client: Client) => Promise<void>): void {
  INDEXED_CASES.push([name, fn]);
}

Deno.test("references over one world with the search index on", (t) =>
  withInProcessClient(async (client) => {
    for (const [name, fn] of INDEXED_CASES) await t.step(name, () => fn(client));
  }, {
    repositories: [
      { name: "org/members", publicRead: true, files: MEMBER_FILES },
      { name: "org/order", publicRead: true, files: ORDER_FILES },
    ],
    searchIndex: true,
  }));

function references(client: Client, args: Record<string, unknown>): Promise<ToolOutcome> {
  return callTool(client, "references", { repo: NAME, ...args });
}

// The `File:`, `Parse:` and row lines of an answer, many.ts left out.
function body(answer: string, options: { many?: boolean } = {}): string[] {
  const lines = answer.split("\n");
  const out: string[] = [];
  let file = "";
  for (const line of lines) {
    if (line.startsWith("File: ")) file = line;
    if (!options.many && file === 'File: "gen/many.ts"') continue;
    if (/^(File|Parse): |^\d+ \[/.test(line)) out.push(line);
  }
  return out;
}

// Asks for the references of `symbol` at `at`: resolved there, answered whole in one page of `rows`.
async function assertOnePage(
  client: Client,
  at: { repo: string; path: string; line: number },
  expected: { symbol: string; rows: string[] },
): Promise<void> {
  const outcome = await callTool(client, "references", { ...at, symbol: expected.symbol });
  assertEquals(outcome.code, "OK", outcome.texts.join());
  const answer = outcome.texts[0];
  assert(answer.includes(`Resolved: "${at.path}:${at.line}"`), answer);
  assertEquals(body(answer), expected.rows);
  assert(!answer.includes("NextCursor"), answer);
}

// Each file's lines, files sorted: the search's order of files depends on whether its index is ready.
function byFile(lines: string[]): string[][] {
  const files: string[][] = [];
  for (const line of lines) {
    if (line.startsWith("File: ")) files.push([line]);
    else files.at(-1)!.push(line);
  }
  return files.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

refsCase(
  "references: a TypeScript name resolved: its imports followed, shadowing locals, other declarations, members and other languages left out",
  async (client) => {
    const outcome = await references(client, { path: "src/items.ts", line: 2, column: 17 });
    assertEquals(outcome.code, "OK", outcome.texts.join());
    const answer = outcome.texts[0];
    assert(answer.includes('Precision: "search-based"'), answer);
    assert(answer.includes('Resolved: "src/items.ts:2"'), answer);
    assertEquals(
      byFile(body(answer)),
      byFile([
        'File: "src/items.ts"',
        "2 [definition]: export function parseItem(text: string): Item {",
        'File: "src/shadow.ts"',
        '1 [import]: import { parseItem } from "./items";',
        '3 [call]: parseItem("a");',
        'File: "src/use.ts"',
        '1 [import]: import { parseItem } from "./items";',
        "3 [call]: let first: Item = parseItem(label);",
        "4 [type]: let handler: typeof parseItem;",
        "5 [read]: handler = parseItem;",
        '6 [call]: const s = "😀\u200b"; parseItem(s);',
      ]),
    );
    const run = await references(client, { path: "src/runners.ts", line: 2, symbol: "run" });
    assertEquals(byFile(body(run.texts[0])), [[
      'File: "src/runners.ts"',
      "2 [definition]:   run(): void {}",
      "3 [call]:   go(): void { this.run(); }",
      "10 [call]: a.run();",
    ]]);
  },
);

refsCase(
  "references: a name not resolved: identifiers with their roles across languages; comments and strings left out; text where no grammar",
  async (client) => {
    // Asked from a file no grammar parses: nothing to resolve the name from.
    const outcome = await references(client, { path: "notes.txt", line: 1, symbol: "parseItem" });
    assertEquals(outcome.code, "OK", outcome.texts.join());
    const answer = outcome.texts[0];
    assert(answer.includes('Precision: "search-based"'), answer);
    assert(answer.includes('Name: "parseItem"; From: "notes.txt:1"'), answer);
    assert(answer.includes("scopes not resolved"), answer);
    assertEquals(
      byFile(body(answer)),
      byFile([
        'File: "py/items.py"',
        "1 [import]: from items import parseItem",
        "3 [definition]: def parseItem(text):",
        "5 [call]:     return parseItem(text)",
        'File: "src/items.ts"',
        "2 [definition]: export function parseItem(text: string): Item {",
        'File: "notes.txt"',
        'Parse: "no_grammar" (no grammar for its language: whole-word matches, comments and strings included)',
        "1 [text]: parseItem in plain notes",
        'File: "rs/items.rs"',
        "1 [import]: use crate::items::parseItem;",
        "5 [write,call]:     let parseItem = items::parseItem(s);",
        'File: "src/other.ts"',
        "1 [definition]: export function parseItem(): void {}",
        "2 [call]: parseItem();",
        'File: "src/shadow.ts"',
        '1 [import]: import { parseItem } from "./items";',
        "2 [read]: function f(parseItem: number) { return parseItem; }",
        '3 [call]: parseItem("a");',
        "4 [read]: box.parseItem;",
        'File: "src/use.ts"',
        '1 [import]: import { parseItem } from "./items";',
        "3 [call]: let first: Item = parseItem(label);",
        "4 [type]: let handler: typeof parseItem;",
        "5 [read]: handler = parseItem;",
        '6 [call]: const s = "😀\u200b"; parseItem(s);',
      ]),
    );
    const without = await references(client, {
      path: "src/items.ts",
      line: 2,
      symbol: "parseItem",
      include_declaration: false,
    });
    assert(!without.texts[0].includes("[definition]"), without.texts[0]);
  },
);

refsCase(
  "references: pages bounded by max_bytes, walked to the end, cover every row once",
  async (client) => {
    const whole = await references(client, {
      path: "src/use.ts",
      line: 5,
      symbol: "parseItem",
      max_bytes: 65536,
    });
    const all = body(whole.texts[0], { many: true }).filter((line) => /^\d/.test(line));
    assert(all.length > 300, String(all.length));
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await references(client, {
        path: "src/use.ts",
        line: 5,
        symbol: "parseItem",
        max_bytes: 4096,
        ...(after === undefined ? {} : { after }),
      });
      assertEquals(page.code, "OK", page.texts.join());
      const text = page.texts[0];
      assert(new TextEncoder().encode(text).length <= 4096, text);
      let file = "";
      for (const line of text.split("\n")) {
        if (line.startsWith("File: ")) file = line;
        if (/^\d+ \[/.test(line)) seen.push(`${file} ${line}`);
      }
      after = /^NextCursor: (".*")$/m.exec(text)?.[1];
      after = after === undefined ? undefined : JSON.parse(after);
      pages++;
    } while (after !== undefined && pages < 50);
    assert(pages > 2, String(pages));
    assertEquals(new Set(seen).size, seen.length);
    let file = "";
    const want: string[] = [];
    for (const line of whole.texts[0].split("\n")) {
      if (line.startsWith("File: ")) file = line;
      if (/^\d+ \[/.test(line)) want.push(`${file} ${line}`);
    }
    assertEquals(seen.toSorted(), want.toSorted());
  },
);

refsCase(
  "references: hostile positions, a pattern for a symbol and a forged cursor are refused with their codes",
  async (client) => {
    const code = async (args: Record<string, unknown>) => (await references(client, args)).code;
    assertEquals(await code({ path: "src/use.ts", line: 6, column: 999 }), "POSITION_PAST_END");
    assertEquals(
      await code({ path: "src/use.ts", line: 99 }),
      (await callTool(client, "read", {
        repo: NAME,
        path: "src/use.ts",
        start_line: 99,
        end_line: 99,
      })).code,
    );
    // Columns count characters: the emoji is one, the zero-width space another.
    assertEquals(await code({ path: "src/use.ts", line: 6, column: 12 }), "NOT_AN_IDENTIFIER");
    assertEquals(await code({ path: "src/use.ts", line: 6, column: 13 }), "NOT_AN_IDENTIFIER");
    const at = await references(client, { path: "src/use.ts", line: 6, column: 17 });
    assert(at.texts[0].includes('Name: "parseItem"'), at.texts.join());
    // A comment and a string are no position of a name.
    assertEquals(await code({ path: "src/items.ts", line: 1, column: 5 }), "NOT_AN_IDENTIFIER");
    assertEquals(await code({ path: "src/use.ts", line: 2, column: 16 }), "NOT_AN_IDENTIFIER");
    assertEquals(await code({ path: "src/use.ts", line: 3, column: 1 }), "NOT_AN_IDENTIFIER");
    assertEquals(await code({ path: "src/use.ts", line: 1, symbol: ".*" }), "NOT_AN_IDENTIFIER");
    assertEquals(await code({ path: "src/use.ts", line: 1, symbol: "Item" }), "SYMBOL_NOT_ON_LINE");
    assertEquals(await code({ path: "src/use.ts", line: 1 }), "INVALID_ARGUMENTS");
    const forged = new TextEncoder().encode('["x","y",1]').toBase64({ alphabet: "base64url" });
    assertEquals(
      await code({ path: "src/use.ts", line: 1, symbol: "parseItem", after: forged }),
      "INVALID_CURSOR",
    );
  },
);

refsCase(
  "references: a private repository and a hidden path group answer byte for byte as nothing there",
  async (client) => {
    const call = (repo: string, args: Record<string, unknown>) =>
      callTool(client, "references", { repo, path: "a.ts", line: 1, column: 1, ...args });
    assertEquals(await call("org/closed", {}), await call("org/clozed", {}));
    assertEquals((await call("org/closed", {})).code, "REPOSITORY_NOT_FOUND");
    assertEquals(
      await call("org/mono", { path: "secret/s.ts" }),
      await callTool(client, "read", {
        repo: "org/mono",
        path: "secret/s.ts",
        start_line: 1,
        end_line: 1,
      }),
    );
    const hidden = await call("org/mono", { path: "docs/h.ts", symbol: "hiddenName" });
    const lonely = await call("org/mono", { path: "docs/l.ts", symbol: "lonelyName" });
    assertEquals(hidden.code, "OK", hidden.texts.join());
    assertEquals(
      hidden.texts[0].replaceAll("hiddenName", "NAME").replaceAll("docs/h.ts", "PATH"),
      lonely.texts[0].replaceAll("lonelyName", "NAME").replaceAll("docs/l.ts", "PATH"),
    );
    assert(!hidden.texts[0].includes("secret"), hidden.texts[0]);
  },
);

const MEMBER_FILES: Record<string, string> = {
  "m/box.ts": 'export class Box {\n  uniqueField = 1;\n  name = "b";\n}\n',
  "m/other.ts": "export interface Other {\n  name: string;\n}\n",
  "m/use.ts": "export function f(value: unknown) {\n" +
    "value.uniqueField;\nvalue.name;\n}\n",
};

indexedCase(
  "references: a member reached through a receiver of no evident type counts only where no other type declares its name",
  async (client) => {
    const rows = async (symbol: string) => {
      const outcome = await callTool(client, "references", {
        repo: "org/members",
        path: "m/box.ts",
        line: symbol === "uniqueField" ? 2 : 3,
        symbol,
      });
      assertEquals(outcome.code, "OK", outcome.texts.join());
      return outcome.texts[0];
    };
    // The symbol index says which names other types declare: wait until it is built.
    await waitFor(async () => (await rows("name")).includes('Index: "ready"'));
    assertEquals(byFile(body(await rows("uniqueField"))), [
      ['File: "m/box.ts"', "2 [definition]:   uniqueField = 1;"],
      ['File: "m/use.ts"', "2 [read]: value.uniqueField;"],
    ]);
    assertEquals(byFile(body(await rows("name"))), [
      ['File: "m/box.ts"', '3 [definition]:   name = "b";'],
    ]);
  },
);

// Files spelling `sharedName`: the definition, uses, and tests and generated files by their paths.
// Forty lines of calls: a file's rows take about 1.4 KiB of a page.
const CALLS = "sharedName(); sharedName(); // a call\n".repeat(40);
const ORDER_FILES: Record<string, string> = {
  "src/def.ts": "export function sharedName(): void {}\n" + CALLS,
  "a_first.ts": 'import { sharedName } from "./src/def";\n' + CALLS,
  "src/use.ts": 'import { sharedName } from "./def";\n' + CALLS,
  "src/use.test.ts": 'import { sharedName } from "./def";\n' + CALLS,
  "src/use_test.ts": 'import { sharedName } from "./def";\n' + CALLS,
  "tests/unit/use.ts": 'import { sharedName } from "../../src/def";\n' + CALLS,
  "web/__tests__/use.ts": 'import { sharedName } from "../../src/def";\n' + CALLS,
  "api/api_generated.ts": 'import { sharedName } from "../src/def";\n' + CALLS,
  "vendor/lib/use.ts": 'import { sharedName } from "../../src/def";\n' + CALLS,
  "dist/use.js": 'import { sharedName } from "../src/def";\n' + CALLS,
  "web/app.spec.ts": 'import { sharedName } from "../src/def";\n' + CALLS,
  "zz/last.ts": 'import { sharedName } from "../src/def";\n' + CALLS,
};

// The files of an answer, in its order.
function filesOf(answer: string): string[] {
  return answer.split("\n").filter((line) => line.startsWith("File: ")).map((line) =>
    JSON.parse(line.slice(6))
  );
}

indexedCase(
  "references: the definition's file first, then the other files by path, then tests and generated files by path; pages keep that order",
  async (client) => {
    const args = { repo: "org/order", path: "src/use.ts", line: 2, symbol: "sharedName" };
    let whole = "";
    // The definition comes first through the index's symbols: wait until it is built.
    await waitFor(async () => {
      whole = (await callTool(client, "references", args)).texts[0];
      return whole.includes('Index: "ready"');
    }, { what: "the index of org/order" });
    const later = [
      "api/api_generated.ts",
      "dist/use.js",
      "src/use.test.ts",
      "src/use_test.ts",
      "tests/unit/use.ts",
      "vendor/lib/use.ts",
      "web/__tests__/use.ts",
      "web/app.spec.ts",
    ];
    assertEquals(filesOf(whole), [
      "src/def.ts",
      "a_first.ts",
      "src/use.ts",
      "zz/last.ts",
      ...later,
    ]);
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await callTool(client, "references", {
        ...args,
        max_bytes: 4096,
        ...(after === undefined ? {} : { after }),
      });
      assertEquals(page.code, "OK", page.texts.join());
      for (const line of page.texts[0].split("\n")) {
        if (line.startsWith("File: ")) seen.push(JSON.parse(line.slice(6)));
      }
      const next = /^NextCursor: (".*")$/m.exec(page.texts[0])?.[1];
      after = next === undefined ? undefined : JSON.parse(next);
      pages++;
    } while (after !== undefined && pages < 50);
    assert(pages > 2, String(pages));
    // A file cut between two pages is named on both.
    assertEquals(seen.filter((path, i) => path !== seen[i - 1]), filesOf(whole));
  },
);

// Sixty files naming the word `push`, then a test file whose function declares a local `push`:
// the test file comes after every other file of the search's order.
const LOCAL_FILES: Record<string, string> = {
  ...Object.fromEntries(
    Array.from({ length: 60 }, (_, i) => [
      `src/queue_${String(i).padStart(2, "0")}.ts`,
      `export const items: number[] = [];\nitems.push(${i});\n`,
    ]),
  ),
  "src/timers_test.ts": [
    "export function ordering(): number[] {",
    "  const order: number[] = [];",
    "  function push(n: number) {",
    "    order.push(n);",
    "  }",
    "  push(1);",
    "  return order;",
    "}",
    "",
  ].join("\n"),
};

refsCase(
  "references: a local's first page holds its file's rows, however many files come before it",
  async (client) => {
    // The member `order.push` and the other files' `items.push` are not the local.
    await assertOnePage(
      client,
      { repo: "org/local-function", path: "src/timers_test.ts", line: 3 },
      {
        symbol: "push",
        rows: [
          'File: "src/timers_test.ts"',
          "3 [definition]:   function push(n: number) {",
          "6 [call]:   push(1);",
        ],
      },
    );
  },
);

// Sixty Rust files naming `helper` (files of another language than the resolved TypeScript
// function's: no rows), then the test file declaring and calling it.
const LATER_FILES: Record<string, string> = {
  ...Object.fromEntries(
    Array.from({ length: 60 }, (_, i) => [
      `rs/calls_${String(i).padStart(2, "0")}.rs`,
      "fn main() { helper(); }\n",
    ]),
  ),
  "src/util_test.ts": "export function helper(): number {\n  return 1;\n}\nhelper();\n",
};

refsCase(
  "references: a page goes on past search pages whose files hold no row, within its budget",
  async (client) => {
    await assertOnePage(client, { repo: "org/later-pages", path: "src/util_test.ts", line: 1 }, {
      symbol: "helper",
      rows: [
        'File: "src/util_test.ts"',
        "1 [definition]: export function helper(): number {",
        "4 [call]: helper();",
      ],
    });
  },
);

// A declaration its package's entry exports under another name, used under that name elsewhere.
const EXPORTED_FILES: Record<string, string> = {
  "src/env.ts": 'export const NOTHING: unique symbol = Symbol.for("nothing");\n',
  "src/index.ts": 'export {\n  NOTHING as nothing,\n} from "./env";\n',
  "test/a.test.ts": [
    'import { nothing } from "../src/index";',
    "expect(produce(() => nothing)).toBe(undefined);",
    "",
  ].join("\n"),
  "test/b.test.ts": "const nothing = 3;\nlog(nothing);\n",
};

refsCase(
  "references: a declaration exported under another name is found where that name is imported",
  async (client) => {
    await assertOnePage(client, { repo: "org/exported-alias", path: "src/env.ts", line: 1 }, {
      symbol: "NOTHING",
      rows: [
        'File: "src/env.ts"',
        '1 [definition]: export const NOTHING: unique symbol = Symbol.for("nothing");',
        'File: "src/index.ts"',
        "2 [read]:   NOTHING as nothing,",
        'File: "test/a.test.ts"',
        '1 [import]: import { nothing } from "../src/index";',
        "2 [read]: expect(produce(() => nothing)).toBe(undefined);",
      ],
    });
  },
);

// A module's default export, imported under other names (one through a re-export of the
// default), and a file importing another module's default under the same name.
const DEFAULT_FILES: Record<string, string> = {
  "src/babel/preset.ts": "export default function jotaiPreset() {\n  return 1;\n}\n",
  "src/babel/index.ts": 'export { default as preset } from "./preset";\n',
  "src/app.ts": 'import plugin from "./babel/preset.ts";\nplugin();\n',
  "src/entry.ts": 'import { preset } from "./babel";\npreset();\n',
  "src/other.ts": 'import plugin from "./plugins/other";\nplugin();\n',
  "src/plugins/other.ts": "export default function other() {}\n",
  "src/tools/tool.ts": "export default function Tool() {}\n",
  "src/tools/index.ts": 'export { default } from "./tool";\n',
  "src/tools/more.ts": 'export { default, default as tool } from "./other";\n',
};

refsCase(
  "references: a default export re-exported as the default of another module is found there",
  async (client) => {
    await assertOnePage(
      client,
      { repo: "org/default-exports", path: "src/tools/tool.ts", line: 1 },
      {
        symbol: "Tool",
        rows: [
          'File: "src/tools/index.ts"',
          '1 [read]: export { default } from "./tool";',
          'File: "src/tools/tool.ts"',
          "1 [definition]: export default function Tool() {}",
        ],
      },
    );
  },
);

refsCase(
  "references: a default export is found under the names its imports give it",
  async (client) => {
    await assertOnePage(client, {
      repo: "org/default-exports",
      path: "src/babel/preset.ts",
      line: 1,
    }, {
      symbol: "jotaiPreset",
      rows: [
        'File: "src/app.ts"',
        '1 [import]: import plugin from "./babel/preset.ts";',
        "2 [call]: plugin();",
        'File: "src/babel/index.ts"',
        '1 [read]: export { default as preset } from "./preset";',
        'File: "src/babel/preset.ts"',
        "1 [definition]: export default function jotaiPreset() {",
        'File: "src/entry.ts"',
        '1 [import]: import { preset } from "./babel";',
        "2 [call]: preset();",
      ],
    });
  },
);
