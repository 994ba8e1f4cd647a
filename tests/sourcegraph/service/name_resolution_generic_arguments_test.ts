import { assertEquals } from "../../support/assert.ts";
import { nameCases } from "../../support/name_cases.ts";

// A generic type alias written with type arguments (`Resolvable<Plugin>` of
// `type Resolvable<T> = T | Promise<T> | (() => T)`) stands, where its value is made of a type
// parameter, for the argument written for it: an object of it has the argument's members. And a
// key of an object of a `Record<K, V>` holds a value of V.

// One parser for every case of the file (see `nameCases`).
const { definedIn: definitionOf, nameCase, referencesIn, runCases } = nameCases();

const FILES = {
  "src/types.ts": [
    "export type Resolvable<T> = T | Promise<T> | (() => T) | (() => Promise<T>);",
    "export type Plugin = {",
    "  name: string;",
    "  setup?(context: unknown): void;",
    "};",
    "export type ArgDef = { type?: string; alias?: string };",
    "export type ArgsDef = Record<string, ArgDef>;",
    "export type SubCommandsDef = Record<string, Resolvable<CommandDef<any>>>;",
    "export type CommandDef<T extends ArgsDef = ArgsDef> = {",
    "  args?: Resolvable<T>;",
    "  subCommands?: Resolvable<SubCommandsDef>;",
    "  setup?: (context: unknown) => void;",
    "  run?: (context: unknown) => void;",
    "};",
  ].join("\n"),
  "src/plugin.ts": [
    'import type { Plugin, Resolvable } from "./types";',
    "export function definePlugin(plugin: Resolvable<Plugin>): Resolvable<Plugin> {",
    "  return plugin;",
    "}",
  ].join("\n"),
  "src/command.ts": [
    'import type { ArgsDef, CommandDef } from "./types";',
    "export function defineCommand<const T extends ArgsDef = ArgsDef>(def: CommandDef<T>) {",
    "  return def;",
    "}",
  ].join("\n"),
  "test/plugin.test.ts": [
    'import { definePlugin } from "../src/plugin";',
    'import { defineCommand } from "../src/command";',
    "const first = definePlugin({",
    '  name: "first",',
    "  setup() {},",
    "});",
    "const command = defineCommand({",
    "  args: { force: { type: 'boolean', alias: 'f' } },",
    "  subCommands: {",
    "    build: {",
    "      setup() {},",
    "      run() {},",
    "    },",
    "  },",
    "  setup() {},",
    "});",
    "const other = { setup() {}, run() {} };",
    "const second = definePlugin(() => ({",
    '  name: "second",',
    "  setup() {},",
    "}));",
  ].join("\n"),
};

nameCase(
  "generic arguments: an object passed as a parameter of a generic alias made of its type parameter is of the argument",
  async () => {
    assertEquals(
      await definitionOf(FILES, { path: "test/plugin.test.ts", name: "setup", line: 5 }),
      "src/types.ts:4",
    );
    assertEquals(
      await definitionOf(FILES, { path: "test/plugin.test.ts", name: "name", line: 4 }),
      "src/types.ts:3",
    );
    const { lines } = await referencesIn(FILES, {
      path: "src/types.ts",
      name: "setup",
      line: 4,
      shared: true,
    });
    // Not the command's `setup`, nor an object passed nowhere; an object a function passed
    // returns is what the type's function arm returns.
    assertEquals(lines, ["src/types.ts:4", "test/plugin.test.ts:5", "test/plugin.test.ts:20"]);
    assertEquals(
      await definitionOf(FILES, { path: "test/plugin.test.ts", name: "setup", line: 20 }),
      "src/types.ts:4",
    );
  },
);

nameCase(
  "generic arguments: a key of an object of a Record's alias holds a value of the Record's value type",
  async () => {
    assertEquals(
      await definitionOf(FILES, { path: "test/plugin.test.ts", name: "run", line: 12 }),
      "src/types.ts:13",
    );
    const { lines } = await referencesIn(FILES, {
      path: "src/types.ts",
      name: "run",
      line: 13,
      shared: true,
    });
    assertEquals(lines, ["src/types.ts:13", "test/plugin.test.ts:12"]);
    const setup = await referencesIn(FILES, {
      path: "src/types.ts",
      name: "setup",
      line: 12,
      shared: true,
    });
    assertEquals(setup.lines, [
      "src/types.ts:12",
      "test/plugin.test.ts:11",
      "test/plugin.test.ts:15",
    ]);
  },
);

nameCase(
  "generic arguments: a type parameter written as an argument is no type the files declare",
  async () => {
    // `args?: Resolvable<T>` of `defineCommand<const T extends ArgsDef>`: the compiler infers T
    // from the object given, whose keys are its own, not the constraint's members.
    assertEquals(
      await definitionOf(FILES, { path: "test/plugin.test.ts", name: "alias", line: 8 }),
      "test/plugin.test.ts:8",
    );
    const { lines } = await referencesIn(FILES, {
      path: "src/types.ts",
      name: "type",
      line: 6,
      nth: 1,
      shared: true,
    });
    assertEquals(lines, ["src/types.ts:6"]);
  },
);

nameCase(
  "generic arguments: an object in an array of tuples cast or annotated is of the type at its place",
  async () => {
    const files = {
      ...FILES,
      "test/args.test.ts": [
        'import type { ArgsDef } from "../src/types";',
        "const cases = [",
        "  [[], { force: { type: 'boolean' } }, 1],",
        "] as [string[], ArgsDef, number][];",
        "const named: Array<[string, ArgsDef]> = [['x', { name: { alias: 'n' } }]];",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "type",
      line: 6,
      nth: 1,
      shared: true,
    });
    assertEquals(lines, ["src/types.ts:6", "test/args.test.ts:3"]);
    assertEquals(
      await definitionOf(files, { path: "test/args.test.ts", name: "alias", line: 5 }),
      "src/types.ts:6",
    );
  },
);

nameCase(
  "generic arguments: a type alias naming itself as a type argument is parsed",
  async () => {
    const { lines } = await referencesIn({
      "src/tree.ts": [
        "export type TreeNode = { children: Array<TreeNode>; label: string };",
        "export const root: TreeNode = { children: [], label: 'root' };",
      ].join("\n"),
    }, { path: "src/tree.ts", name: "label", line: 1, shared: true });
    assertEquals(lines, ["src/tree.ts:1", "src/tree.ts:2"]);
    // The literal's key is the alias's member: the alias's own declaration was read.
    const files = {
      "src/tree.ts": [
        "export type TreeNode = { children: Array<TreeNode>; label: string };",
        "export const root: TreeNode = { children: [], label: 'root' };",
      ].join("\n"),
    };
    assertEquals(
      await definitionOf(files, { path: "src/tree.ts", name: "label", line: 2 }),
      "src/tree.ts:1",
    );
  },
);

const ELEMENT_FILES = {
  "src/types.ts": [
    "export interface Plugin { setup?(): void }",
    "export interface Other { setup(): void }",
    "export type Plugins = Record<string, Plugin>;",
  ].join("\n"),
  "src/plugin.ts": [
    'import type { Other, Plugin } from "./types";',
    "export async function resolvePlugins(plugins: Plugin[]): Promise<Plugin[]> {",
    "  return plugins;",
    "}",
    "export function others(): Array<Other> {",
    "  return [];",
    "}",
  ].join("\n"),
  "src/run.ts": [
    'import { others, resolvePlugins } from "./plugin";',
    "export async function run() {",
    "  const plugins = await resolvePlugins([]);",
    "  for (const plugin of plugins) plugin.setup?.();",
    "  const [first] = await resolvePlugins([]);",
    "  first.setup?.();",
    "  const found = others();",
    "  for (const other of found) other.setup();",
    "  for (const later of [...plugins].reverse()) later.setup?.();",
    "  for (const [, each] of plugins.entries()) each.setup?.();",
    "  for (const [each] of plugins.entries()) each.setup?.();",
    "}",
    'import type { Plugins } from "./types";',
    "export function each(all: Plugins) {",
    "  for (const [, p] of Object.entries(all)) p.setup?.();",
    "  for (const p of Object.values(all)) p.setup?.();",
    "}",
  ].join("\n"),
};

nameCase(
  "generic arguments: an element of the array a call returns is of the element type its function writes",
  async () => {
    assertEquals(
      await definitionOf(ELEMENT_FILES, { path: "src/run.ts", name: "setup", line: 6 }),
      "src/types.ts:1",
    );
    assertEquals(
      await definitionOf(ELEMENT_FILES, { path: "src/run.ts", name: "setup", line: 8 }),
      "src/types.ts:2",
    );
    const { lines } = await referencesIn(ELEMENT_FILES, {
      path: "src/types.ts",
      name: "setup",
      line: 1,
      shared: true,
    });
    // `[...plugins].reverse()` holds the same elements, as the second of each pair `entries()`
    // gives (the first is an index); `Object.values` and `Object.entries` of a `Record<K, V>` give
    // its values.
    assertEquals(lines, [
      "src/run.ts:4",
      "src/run.ts:6",
      "src/run.ts:9",
      "src/run.ts:10",
      "src/run.ts:15",
      "src/run.ts:16",
      "src/types.ts:1",
    ]);
  },
);

Deno.test("name resolution: generic arguments, case by case", (t) => runCases(t));
