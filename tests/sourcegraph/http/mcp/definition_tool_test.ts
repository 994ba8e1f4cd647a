/**
 * `definition` through a real MCP client on an in-process service over real
 * Git repositories: a name resolved to a parameter that shadows an import,
 * to the file's own declaration, through a named, a renamed, a re-exported
 * (`export { } from`, `export *`) and a namespace import, to a member of
 * `this` and of a constructed value, and through the symbol index for a
 * language whose imports are not followed (an object literal's property it
 * answers being defined by the literal's type); hostile positions and a regex
 * for a symbol are refused with their codes; a private repository and a
 * hidden path group answer as a missing one, and a definition in a hidden
 * file is never named.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assert, assertEquals, waitFor } from "../../../support/assert.ts";
import { withInProcessClient } from "../../../support/in_process_service.ts";
import { callTool, type ToolOutcome } from "../../../support/tool_calls.ts";

const NAME = "org/refs";

const FILES: Record<string, string> = {
  "src/items.ts": [
    "/** Parses one item. */",
    "export function parseItem(text: string): Item {",
    "  return { text };",
    "}",
    "export interface Item { text: string }",
    "export class Parser {",
    "  run(text: string): Item {",
    "    return this.check(parseItem(text));",
    "  }",
    "  check(item: Item): Item {",
    "    return item;",
    "  }",
    "}",
    "",
  ].join("\n"),
  "src/more.ts": "export const limit = 3;\n",
  "src/index.ts": 'export { parseItem as parse } from "./items.ts";\nexport * from "./more";\n',
  "src/use.ts": [
    'import { parseItem } from "./items";',
    'import { parseItem as pi, Parser } from "./items.js";',
    'import * as items from "./items";',
    'import { parse, limit } from "./index";',
    "function shadow(parseItem: number): number {",
    "  return parseItem + 1;",
    "}",
    "const parser = new Parser();",
    'parser.run("x"); pi("y"); items.parseItem("z"); parse(String(limit));',
    'const s = "😀\u200b"; parseItem(s);',
    "",
  ].join("\n"),
  "src/handler.ts": "export type Handler = (event: string) => void;\n",
  "src/handled.ts":
    'import type { Handler } from "./handler";\nexport const h: Handler = (event) => {};\n',
  "src/store.ts": [
    "type CounterState = { count: number; inc: () => void };",
    "const store = createStore<CounterState>((set) => ({",
    "  count: 0,",
    "  inc: () => set({}),",
    "}));",
    "store.getState().inc();",
    "type OtherState = { count: string };",
    "const other = createStore<OtherState>(() => ({ count: '' }));",
    "other.getState().count;",
    "",
  ].join("\n"),
  "src/request.ts": [
    "export function host(event: string, opts: { forwarded?: boolean } = {}) {",
    "  return opts.forwarded;",
    "}",
    "export function proto(event: string, opts: {",
    "  forwarded?: boolean;",
    "} = {}) {",
    "  return opts.forwarded;",
    "}",
    "type Config = {",
    "  forwarded: boolean;",
    "};",
    "export const read = (config: unknown) => (config as { x: Config }).x.forwarded;",
    "",
  ].join("\n"),
  "py/items.py": "def parse_item(text):\n    return text\n",
  "py/use.py": "from items import parse_item\nparse_item('x')\n",
};

function withDefs(fn: (client: Client) => Promise<void>): Promise<void> {
  return withInProcessClient(fn, {
    repositories: [
      { name: NAME, publicRead: true, files: FILES },
      {
        name: "org/mono",
        publicRead: true,
        files: {
          "docs/a.ts": 'import { secretName } from "../secret/s";\nsecretName();\n',
          "docs/b.ts": "lonelyName();\n",
          "secret/s.ts": "export function secretName() {}\n",
        },
        pathGroups: [{ name: "docs", paths: ["docs"] }],
      },
      { name: "org/closed", publicRead: false, files: { "a.ts": "parseItem();\n" } },
    ],
    searchIndex: true,
  });
}

// The cases run as steps of one world, in this order.
const CASES: [string, (client: Client) => Promise<void>][] = [];
function defsCase(name: string, fn: (client: Client) => Promise<void>): void {
  CASES.push([name, fn]);
}

Deno.test("definition over one world of three repositories", (t) =>
  withDefs(async (client) => {
    for (const [name, fn] of CASES) await t.step(name, () => fn(client));
  }));

function definition(client: Client, args: Record<string, unknown>): Promise<ToolOutcome> {
  return callTool(client, "definition", { repo: NAME, ...args });
}

// The `Definition:` and `Via:` lines of an answer.
async function found(client: Client, args: Record<string, unknown>): Promise<string> {
  const outcome = await definition(client, args);
  assertEquals(outcome.code, "OK", outcome.texts.join());
  const text = outcome.texts[0];
  const where = /^Definition: (.*)$/m.exec(text)?.[1] ?? "none";
  const via = /^Via: "([a-z]+)"/m.exec(text)?.[1] ?? "none";
  return `${where} via ${via}`;
}

defsCase(
  "definition: scopes, the file's declarations, imports named, renamed, re-exported and by namespace, members, and the index",
  async (client) => {
    const at = (line: number, symbol: string) =>
      found(client, { path: "src/use.ts", line, symbol });
    const item = '"src/items.ts:2"; Kind: "function"; Container: null';
    assertEquals(
      await at(6, "parseItem"),
      '"src/use.ts:5"; Kind: "parameter"; Container: "shadow" via scope',
    );
    assertEquals(await at(10, "parseItem"), `${item} via import`);
    assertEquals(await at(1, "parseItem"), `${item} via import`);
    assertEquals(await at(9, "pi"), `${item} via import`);
    assertEquals(await at(9, "parseItem"), `${item} via import`);
    assertEquals(await at(9, "parse"), `${item} via import`);
    assertEquals(
      await at(9, "limit"),
      '"src/more.ts:1"; Kind: "constant"; Container: null via import',
    );
    assertEquals(
      await at(9, "run"),
      '"src/items.ts:7"; Kind: "method"; Container: "Parser" via member',
    );
    assertEquals(
      await at(8, "parser"),
      '"src/use.ts:8"; Kind: "constant"; Container: null via file',
    );
    assertEquals(
      await found(client, { path: "src/items.ts", line: 8, symbol: "check" }),
      '"src/items.ts:10"; Kind: "method"; Container: "Parser" via member',
    );
    assertEquals(
      await found(client, { path: "src/items.ts", line: 8, symbol: "parseItem" }),
      `${item} via file`,
    );
    // Python's imports are not followed: the symbol index answers, once it is built.
    const python = () => found(client, { path: "py/use.py", line: 2, symbol: "parse_item" });
    await waitFor(async () => (await python()) !== "none via none");
    assertEquals(await python(), '"py/items.py:1"; Kind: "function"; Container: null via index');
    // A member of no evident receiver: the index holds the object literal's `inc`, which is
    // defined where the literal's type declares it.
    assertEquals(
      await found(client, { path: "src/store.ts", line: 6, symbol: "inc" }),
      '"src/store.ts:1"; Kind: "field"; Container: "CounterState" via member',
    );
    // A value a call made is of a type that call names: `other`'s state is `OtherState`.
    assertEquals(
      await found(client, { path: "src/store.ts", line: 9, symbol: "count" }),
      '"src/store.ts:7"; Kind: "field"; Container: "OtherState" via member',
    );
    // A member of no evident receiver inside a function whose parameter's anonymous type
    // declares it: that type's, not another function's.
    assertEquals(
      await found(client, { path: "src/request.ts", line: 7, symbol: "forwarded" }),
      '"src/request.ts:5"; Kind: "field"; Container: null via member',
    );
    // Outside them, a named type of the file declaring it (the index holds no type literal's).
    assertEquals(
      await found(client, { path: "src/request.ts", line: 12, symbol: "forwarded" }),
      '"src/request.ts:10"; Kind: "field"; Container: "Config" via member',
    );
    const whole = await definition(client, { path: "src/use.ts", line: 9, column: 18 });
    assert(whole.texts[0].includes('Precision: "search-based"'), whole.texts[0]);
    assert(/^Commit: "[0-9a-f]{40}"$/m.test(whole.texts[0]), whole.texts[0]);
    assert(
      whole.texts[0].includes("2: export function parseItem(text: string): Item {"),
      whole.texts[0],
    );
    // A function type's alias: its answer's line is the declaration's, whatever the resolution
    // keeps of its parameters' types.
    const alias = await definition(client, { path: "src/handled.ts", line: 2, symbol: "Handler" });
    assert(
      alias.texts[0].includes("1: export type Handler = (event: string) => void;"),
      alias.texts[0],
    );
  },
);

defsCase(
  "definition: hostile positions and a pattern for a symbol are refused with their codes",
  async (client) => {
    const code = async (args: Record<string, unknown>) => (await definition(client, args)).code;
    assertEquals(await code({ path: "src/use.ts", line: 10, column: 999 }), "POSITION_PAST_END");
    assertEquals(
      await code({ path: "src/use.ts", line: 99, column: 1 }),
      (await callTool(client, "read", {
        repo: NAME,
        path: "src/use.ts",
        start_line: 99,
        end_line: 99,
      })).code,
    );
    // Columns count characters: the emoji is one, the zero-width space another.
    assertEquals(await code({ path: "src/use.ts", line: 10, column: 12 }), "NOT_AN_IDENTIFIER");
    assertEquals(await code({ path: "src/use.ts", line: 10, column: 13 }), "NOT_AN_IDENTIFIER");
    assertEquals(
      await found(client, { path: "src/use.ts", line: 10, column: 17 }),
      '"src/items.ts:2"; Kind: "function"; Container: null via import',
    );
    assertEquals(await code({ path: "src/items.ts", line: 1, column: 5 }), "NOT_AN_IDENTIFIER");
    assertEquals(await code({ path: "src/use.ts", line: 1, symbol: ".*" }), "NOT_AN_IDENTIFIER");
    assertEquals(
      await code({ path: "src/use.ts", line: 1, symbol: "(a+)+$" }),
      "NOT_AN_IDENTIFIER",
    );
    assertEquals(await code({ path: "src/use.ts", line: 1, symbol: "Item" }), "SYMBOL_NOT_ON_LINE");
    assertEquals(await code({ path: "src/use.ts", line: 1 }), "INVALID_ARGUMENTS");
  },
);

defsCase(
  "definition: a private repository and a hidden path group answer as missing ones; a hidden definition is never named",
  async (client) => {
    const call = (repo: string, args: Record<string, unknown>) =>
      callTool(client, "definition", { repo, path: "a.ts", line: 1, column: 1, ...args });
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
    // Both answers name the symbol index's state: compare them once it is built.
    const lonelyCall = () => call("org/mono", { path: "docs/b.ts", line: 1, symbol: "lonelyName" });
    await waitFor(async () => !(await lonelyCall()).texts[0].includes("still being built"));
    const hidden = await call("org/mono", { path: "docs/a.ts", line: 2, symbol: "secretName" });
    const lonely = await lonelyCall();
    assertEquals(hidden.code, "OK", hidden.texts.join());
    assertEquals(
      hidden.texts[0].replaceAll("secretName", "NAME").replaceAll("docs/a.ts:2", "PATH"),
      lonely.texts[0].replaceAll("lonelyName", "NAME").replaceAll("docs/b.ts:1", "PATH"),
    );
    assert(!hidden.texts[0].includes("secret/"), hidden.texts[0]);
  },
);
