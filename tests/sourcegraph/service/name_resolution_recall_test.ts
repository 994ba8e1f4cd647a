import { assertEquals } from "../../support/assert.ts";
import { definitionAt } from "../../../sourcegraph/service/name_resolution.ts";
import { resolverOver } from "../../support/resolved_references.ts";
import { nameCases } from "../../support/name_cases.ts";

// One parser for every case of the file (see `nameCases`).
const { nameCase, referencesIn, runCases, sharedParser } = nameCases();

const DOC_FILES = {
  "src/types.ts": [
    "export type LogType = 'info' | 'warn';",
    "/** The kind of a message. See {@link LogType} and {@linkcode LogType.x}. */",
    "export interface Message { type: LogType }",
  ].join("\n"),
  "src/log.ts": [
    'import type { LogType } from "./types";',
    "/**",
    " * @param {LogType[]} [kind={}] - the kind",
    " * @returns {{ kind: Partial<LogType> }} a record; LogType in prose is no reference",
    " * @example",
    " * log({ LogType: 1 })",
    " */",
    "export function log(kind: LogType) { return { kind }; }",
    "// {@link LogType} in a line comment is no reference",
    "/* @type {LogType} nor in a block comment */",
  ].join("\n"),
  "src/other.ts": [
    "/** {@link LogType} of no declaration the file sees */",
    "export const other = 1;",
  ].join("\n"),
};

nameCase(
  "name resolution: a type named in a documentation comment's link or tag type is a reference",
  async () => {
    const { lines } = await referencesIn(DOC_FILES, {
      path: "src/types.ts",
      name: "LogType",
      line: 1,
    });
    assertEquals(lines, [
      "src/log.ts:1",
      "src/log.ts:3",
      "src/log.ts:4",
      "src/log.ts:8",
      "src/types.ts:1",
      "src/types.ts:2",
      "src/types.ts:3",
    ]);
  },
);

nameCase(
  "name resolution: the definition of a name in a documentation comment is the declaration it sees",
  async () => {
    const resolver = resolverOver(sharedParser(), DOC_FILES);
    const line = DOC_FILES["src/log.ts"].split("\n")[2];
    const found = await definitionAt(resolver, {
      path: "src/log.ts",
      name: "LogType",
      line: 3,
      column: line.indexOf("LogType"),
    });
    assertEquals(found && `${found.path}:${found.line}`, "src/types.ts:1");
  },
);

nameCase(
  "name resolution: an object literal under a key of a variable annotated `Record<K, T>` is a T",
  async () => {
    const files = {
      "src/box.ts": [
        "export type Style = { tl: string; level?: number };",
        "const presets: Record<string, Style> = {",
        "  solid: { tl: '+' },",
        "  round: { tl: '(' },",
        "};",
        "const levels: Record<'a' | 'b', Partial<Style>> = { a: { level: 1 }, b: {} };",
        "const other: Map<string, Style> = new Map();",
        "const loose = { solid: { tl: '-' } };",
      ].join("\n"),
    };
    const tl = await referencesIn(files, { path: "src/box.ts", name: "tl", line: 1, shared: true });
    // Not the literal of no evident type.
    assertEquals(tl.lines, ["src/box.ts:1", "src/box.ts:3", "src/box.ts:4"]);
    const level = await referencesIn(files, {
      path: "src/box.ts",
      name: "level",
      line: 1,
      shared: true,
    });
    assertEquals(level.lines, ["src/box.ts:1", "src/box.ts:6"]);
  },
);

nameCase(
  "name resolution: an object literal cast with angle brackets (`<Options>{ ... }`) is of that type",
  async () => {
    const files = {
      "src/types.ts": [
        "export interface Format { date?: boolean }",
        "export interface Options { throttle: number; format: Format }",
      ].join("\n"),
      "src/make.ts": [
        'import type { Options } from "./types";',
        "export const a = <Options>{ throttle: 1 };",
        "export const b = <Partial<Options>>{ format: { date: true } };",
        "export const c = { throttle: 2 };",
      ].join("\n"),
    };
    const throttle = await referencesIn(files, {
      path: "src/types.ts",
      name: "throttle",
      line: 2,
      shared: true,
    });
    assertEquals(throttle.lines, ["src/make.ts:2", "src/types.ts:2"]);
    const date = await referencesIn(files, {
      path: "src/types.ts",
      name: "date",
      line: 1,
      shared: true,
    });
    assertEquals(date.lines, ["src/make.ts:3", "src/types.ts:1"]);
  },
);

nameCase(
  "name resolution: an object literal assigned to an annotated parameter is of its type",
  async () => {
    const files = {
      "src/tree.ts": [
        "export type TreeOptions = { prefix?: string };",
        "export function tree(options?: TreeOptions, raw?: object) {",
        "  options = { prefix: '  ', ...options };",
        "  raw = { prefix: 1 };",
        "  return [options, raw];",
        "}",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/tree.ts",
      name: "prefix",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/tree.ts:1", "src/tree.ts:3"]);
  },
);

nameCase(
  "name resolution: a local annotated `Partial<T>` has T's members, wherever the file uses it",
  async () => {
    const files = {
      "src/types.ts": [
        "export interface Input { message?: string }",
        "export interface LogObject extends Input { args: unknown[] }",
      ].join("\n"),
      "src/log.ts": [
        'import type { LogObject } from "./types";',
        "export class Logger {",
        "  log(args: unknown[]) {",
        "    const logObj: Partial<LogObject> = { args };",
        "    if (logObj.message) {",
        "      logObj.args!.unshift(logObj.message);",
        "    }",
        "  }",
        "}",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "message",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/log.ts:5", "src/log.ts:6", "src/types.ts:1"]);
  },
);

nameCase(
  "name resolution: an object in an array passed to a parameter typed as an array of a union is the arm declaring the member",
  async () => {
    const files = {
      "src/tree.ts": [
        "export type TreeItemObject = { text: string; children?: TreeItem[] };",
        "export type TreeItem = string | TreeItemObject;",
        "export function formatTree(items: TreeItem[]): string { return String(items); }",
      ].join("\n"),
      "examples/tree.ts": [
        'import { formatTree } from "../src/tree";',
        "formatTree([",
        "  { text: 'a' },",
        "  { text: 'b', children: [{ text: 'c' }] },",
        "]);",
        "const loose = [{ text: 'd' }];",
      ].join("\n"),
    };
    const text = await referencesIn(files, {
      path: "src/tree.ts",
      name: "text",
      line: 1,
      shared: true,
    });
    assertEquals(text.lines, ["examples/tree.ts:3", "examples/tree.ts:4", "src/tree.ts:1"]);
    const children = await referencesIn(files, {
      path: "src/tree.ts",
      name: "children",
      line: 1,
      shared: true,
    });
    assertEquals(children.lines, ["examples/tree.ts:4", "src/tree.ts:1"]);
  },
);

nameCase(
  "name resolution: an object passed to a parameter typed `Partial<A & { ... }>` is an A",
  async () => {
    const files = {
      "src/types.ts": "export interface Options { reporters: string[] }",
      "src/index.ts": [
        'import type { Options } from "./types";',
        "export function create(options: Partial<Options & { fancy: boolean }> = {}) {",
        "  return options;",
        "}",
      ].join("\n"),
      "test/index.test.ts": [
        'import { create } from "../src/index";',
        "create({ reporters: [], fancy: true });",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "reporters",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/types.ts:1", "test/index.test.ts:2"]);
    // The anonymous part's key is its own.
    const fancy = await referencesIn(files, {
      path: "src/index.ts",
      name: "fancy",
      line: 2,
      shared: true,
    });
    assertEquals(fancy.lines, ["src/index.ts:2", "test/index.test.ts:2"]);
  },
);

nameCase(
  "name resolution: an element read from an array annotated `T[]` (`at`, `find`, an index) is a T",
  async () => {
    const files = {
      "src/types.ts": [
        "export interface LogObject { args: unknown[] }",
        "export interface Other { args: string }",
      ].join("\n"),
      "test/log.test.ts": [
        'import type { LogObject, Other } from "../src/types";',
        "const logs: LogObject[] = [];",
        "logs.at(-1)!.args;",
        "logs[0].args;",
        "logs.find((log) => log !== null)?.args;",
        "const others: Other[] = [];",
        "others.at(0)!.args;",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "args",
      line: 1,
      shared: true,
    });
    assertEquals(lines, [
      "src/types.ts:1",
      "test/log.test.ts:3",
      "test/log.test.ts:4",
      "test/log.test.ts:5",
    ]);
  },
);

nameCase(
  "name resolution: an object passed to an awaited call written with a type argument is of the parameter's type",
  async () => {
    const files = {
      "src/types.ts": "export interface LoadOptions<T> { cwd?: string; defaults?: T }",
      "src/loader.ts": [
        'import type { LoadOptions } from "./types";',
        "export async function loadConfig<T>(options: LoadOptions<T>): Promise<T> {",
        "  return options.defaults!;",
        "}",
      ].join("\n"),
      "test/loader.test.ts": [
        'import { loadConfig } from "../src/loader.ts";',
        "type UserConfig = { virtual?: boolean; cwd?: string };",
        "await loadConfig<UserConfig>({",
        "  cwd: 'x',",
        "});",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "cwd",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/types.ts:1", "test/loader.test.ts:4"]);
    // The type argument's own key of that name is another member: the parameter's type decides.
    const own = await referencesIn(files, {
      path: "test/loader.test.ts",
      name: "cwd",
      line: 2,
      shared: true,
    });
    assertEquals(own.lines, ["test/loader.test.ts:2"]);
  },
);

Deno.test("name resolution recall: one parser, case by case", (t) => runCases(t));
