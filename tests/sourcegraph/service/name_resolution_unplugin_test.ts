import { assertEquals } from "../../support/assert.ts";
import { nameCases } from "../../support/name_cases.ts";

// Types written the way plugin factories and package-manager tables write them: a function type
// returning a conditional type, an array literal under `as const`, a return type that is an
// intersection in parentheses (`Promise<(A & { extra?: string }) | undefined>`).

// One parser for every case of the file (see `nameCases`).
const { definedIn: definitionOf, nameCase, referencesIn, runCases } = nameCases();

const FACTORY_FILES = {
  "src/types.ts": [
    "export interface Options { name: string; buildStart?: () => void }",
    "export type Factory<T, Nested extends boolean = boolean> = (options: T) =>",
    "  Nested extends true ? Array<Options> : Options;",
  ].join("\n"),
  "src/define.ts": [
    'import type { Factory } from "./types";',
    "export function createPlugin<T>(factory: Factory<T>) { return factory; }",
  ].join("\n"),
  "test/plugin.test.ts": [
    'import { createPlugin } from "../src/define";',
    "const plugin = createPlugin(() => ({",
    "  name: 'one',",
    "  buildStart() {},",
    "}));",
    "const nested = createPlugin(() => [{ name: 'two', buildStart() {} }]);",
    "const other = { buildStart() {} };",
  ].join("\n"),
};

nameCase(
  "conditional types: an object returned where a conditional type is expected is of its arms' type",
  async () => {
    assertEquals(
      await definitionOf(FACTORY_FILES, {
        path: "test/plugin.test.ts",
        name: "buildStart",
        line: 4,
      }),
      "src/types.ts:1",
    );
    const { lines } = await referencesIn(FACTORY_FILES, {
      path: "src/types.ts",
      name: "buildStart",
      line: 1,
      shared: true,
    });
    // Not the literal passed nowhere.
    assertEquals(lines, ["src/types.ts:1", "test/plugin.test.ts:4", "test/plugin.test.ts:6"]);
  },
);

const TABLE_FILES = {
  "src/types.ts": [
    "export type Manager = { name: string; lockFile?: string };",
  ].join("\n"),
  "src/managers.ts": [
    'import type { Manager } from "./types";',
    "export const managers: Manager[] = [",
    "  { name: 'npm', lockFile: 'package-lock.json' },",
    "  { name: 'yarn' },",
    "] as const;",
    "export const one: Manager = { name: 'pnpm' } as const;",
    "export const other = [{ name: 'bun' }] as const;",
  ].join("\n"),
};

nameCase(
  "as const: an object literal under a const assertion is of the type its place expects",
  async () => {
    assertEquals(
      await definitionOf(TABLE_FILES, { path: "src/managers.ts", name: "lockFile", line: 3 }),
      "src/types.ts:1",
    );
    const { lines } = await referencesIn(TABLE_FILES, {
      path: "src/types.ts",
      name: "name",
      line: 1,
      shared: true,
    });
    // Not the literal of no evident type.
    assertEquals(lines, [
      "src/managers.ts:3",
      "src/managers.ts:4",
      "src/managers.ts:6",
      "src/types.ts:1",
    ]);
  },
);

const DETECT_FILES = {
  "src/types.ts": [
    "export type Manager = { name: string; majorVersion?: string };",
  ].join("\n"),
  "src/detect.ts": [
    'import type { Manager } from "./types";',
    "export async function detect(): Promise<(Manager & { warnings?: string[] }) | undefined> {",
    "  return undefined;",
    "}",
  ].join("\n"),
  "test/detect.test.ts": [
    'import { detect } from "../src/detect";',
    "const detected = await detect();",
    "detected?.majorVersion;",
    "detected?.warnings;",
  ].join("\n"),
};

nameCase(
  "intersections: what a call gives of a union with an intersection in parentheses has its named part's members",
  async () => {
    assertEquals(
      await definitionOf(DETECT_FILES, {
        path: "test/detect.test.ts",
        name: "majorVersion",
        line: 3,
      }),
      "src/types.ts:1",
    );
    // The anonymous part's member: that part's.
    assertEquals(
      await definitionOf(DETECT_FILES, { path: "test/detect.test.ts", name: "warnings", line: 4 }),
      "src/detect.ts:2",
    );
  },
);

const PACKAGE_FILES = {
  "src/types.ts": [
    "export interface Options { name: string; buildStart?: () => void }",
  ].join("\n"),
  "src/farm.ts": [
    'import type { JsPlugin } from "@farmfe/core";',
    'import type { Options } from "./types";',
    "export function toFarm(plugin: Options): JsPlugin { return plugin as any; }",
  ].join("\n"),
  "test/farm.test.ts": [
    'import type { Options } from "../src/types";',
    'import { toFarm } from "../src/farm";',
    "const plugin: Options = { name: 'a', buildStart() {} };",
    "const farm = toFarm(plugin);",
    "farm.buildStart;",
    "plugin.buildStart;",
  ].join("\n"),
};

nameCase(
  "package types: what a call gives of a function returning a package's type is of none the files declare",
  async () => {
    const { lines } = await referencesIn(PACKAGE_FILES, {
      path: "src/types.ts",
      name: "buildStart",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/types.ts:1", "test/farm.test.ts:3", "test/farm.test.ts:6"]);
  },
);

const OPTIONS_FILES = {
  "src/types.ts": [
    "export type Manager = { name: string; command: string };",
    "export type Options = { cwd?: string; manager?: Manager | string };",
  ].join("\n"),
  "src/options.ts": [
    'import type { Manager, Options } from "./types";',
    "export async function resolveOptions(options: Options): Promise<",
    '  Pick<Options, "cwd"> & {',
    "    manager: Manager;",
    "  }",
    "> {",
    "  return { cwd: options.cwd, manager: { name: 'npm', command: 'npm' } };",
    "}",
  ].join("\n"),
  "src/api.ts": [
    'import type { Options } from "./types";',
    'import { resolveOptions } from "./options";',
    "export async function install(options: Options) {",
    "  const resolved = await resolveOptions(options);",
    "  return resolved.manager.command + resolved.cwd;",
    "}",
  ].join("\n"),
};

nameCase(
  "intersections: what a call gives of a return type written as an intersection has its anonymous part's members",
  async () => {
    assertEquals(
      await definitionOf(OPTIONS_FILES, { path: "src/api.ts", name: "manager", line: 5 }),
      "src/options.ts:4",
    );
    assertEquals(
      await definitionOf(OPTIONS_FILES, { path: "src/api.ts", name: "command", line: 5 }),
      "src/types.ts:1",
    );
    const { lines } = await referencesIn(OPTIONS_FILES, {
      path: "src/types.ts",
      name: "manager",
      line: 2,
      shared: true,
    });
    // `resolved.manager` is the anonymous part's, though the file names `Options`.
    assertEquals(lines, ["src/types.ts:2"]);
    // The object the function returns is of that part too.
    assertEquals(
      await definitionOf(OPTIONS_FILES, { path: "src/options.ts", name: "manager", line: 7 }),
      "src/options.ts:4",
    );
    // A key of that object the anonymous part does not declare is no member of the part; the
    // named part declaring it has it.
    assertEquals(
      await definitionOf(OPTIONS_FILES, { path: "src/api.ts", name: "cwd", line: 5 }),
      "src/types.ts:2",
    );
    assertEquals(
      await definitionOf(OPTIONS_FILES, { path: "src/options.ts", name: "cwd", line: 7 }),
      "src/types.ts:2",
    );
    const cwd = await referencesIn(OPTIONS_FILES, {
      path: "src/types.ts",
      name: "cwd",
      line: 2,
      shared: true,
    });
    assertEquals(cwd.lines, ["src/api.ts:5", "src/options.ts:7", "src/types.ts:2"]);
  },
);

const CONTEXT_FILES = {
  "src/types.ts": [
    "export interface BuildContext { addWatchFile: (id: string) => void }",
    "export interface Context { warn: (message: string) => void }",
  ].join("\n"),
  "src/context.ts": [
    'import type { BuildContext, Context } from "./types";',
    "export function createContext(build: BuildContext): {",
    "  mixed: BuildContext & Context",
    "} {",
    "  const mixed: BuildContext & Context = {",
    "    ...build,",
    "    warn(message) {},",
    "  };",
    "  return { mixed };",
    "}",
  ].join("\n"),
  "test/context.test.ts": [
    'import { createContext } from "../src/context";',
    "const context = createContext({ addWatchFile() {} });",
    "context.mixed.warn('a');",
    "context.mixed.addWatchFile('b');",
  ].join("\n"),
};

nameCase(
  "intersections: a value of an intersection of named types has each part's members",
  async () => {
    assertEquals(
      await definitionOf(CONTEXT_FILES, { path: "test/context.test.ts", name: "warn", line: 3 }),
      "src/types.ts:2",
    );
    assertEquals(
      await definitionOf(CONTEXT_FILES, {
        path: "test/context.test.ts",
        name: "addWatchFile",
        line: 4,
      }),
      "src/types.ts:1",
    );
    // An object literal annotated with the intersection: its key is the part's declaring it.
    assertEquals(
      await definitionOf(CONTEXT_FILES, { path: "src/context.ts", name: "warn", line: 7 }),
      "src/types.ts:2",
    );
    const { lines } = await referencesIn(CONTEXT_FILES, {
      path: "src/types.ts",
      name: "warn",
      line: 2,
      shared: true,
    });
    assertEquals(lines, ["src/context.ts:7", "src/types.ts:2", "test/context.test.ts:3"]);
  },
);

const BUILD_FILES = {
  "test/utils.ts": [
    "export const viteBuild = (config: unknown) => config;",
    "export const build: {",
    "  rollup: (config: unknown) => unknown",
    "  vite: typeof viteBuild",
    "} = {",
    "  rollup: (config) => config,",
    "  vite(config) {",
    "    return viteBuild(config);",
    "  },",
    "};",
  ].join("\n"),
  "test/filter.test.ts": [
    'import { build } from "./utils";',
    "await build.vite({});",
    "await build.rollup({});",
  ].join("\n"),
};

nameCase(
  "anonymous types: a member of an imported value annotated with an anonymous object type is that type's",
  async () => {
    assertEquals(
      await definitionOf(BUILD_FILES, { path: "test/filter.test.ts", name: "vite", line: 2 }),
      "test/utils.ts:4",
    );
    const { lines } = await referencesIn(BUILD_FILES, {
      path: "test/utils.ts",
      name: "rollup",
      line: 3,
    });
    assertEquals(lines, ["test/filter.test.ts:3", "test/utils.ts:3", "test/utils.ts:6"]);
  },
);

const META_FILES = {
  "data/meta.ts": [
    "export const repositoryMeta: {",
    "  owner: string",
    "  name: string",
    "}[] = [",
    "  { owner: 'unplugin', name: 'icons' },",
    "];",
  ].join("\n"),
  "config.ts": [
    'import { repositoryMeta } from "./data/meta";',
    "const names = repositoryMeta.map((repo) => repo.name);",
    "const owners = repositoryMeta.map(({ owner }) => owner);",
  ].join("\n"),
};

nameCase(
  "anonymous types: an element of an imported array annotated with an anonymous element type is of that type",
  async () => {
    assertEquals(
      await definitionOf(META_FILES, { path: "config.ts", name: "name", line: 2 }),
      "data/meta.ts:3",
    );
    const { lines } = await referencesIn(META_FILES, {
      path: "data/meta.ts",
      name: "owner",
      line: 2,
    });
    assertEquals(lines, ["config.ts:3", "data/meta.ts:2", "data/meta.ts:5"]);
  },
);

const WORKSPACE_FILES = {
  "src/types.ts": [
    "export type Options = { packageManager?: string; workspace?: boolean };",
  ].join("\n"),
  "src/args.ts": [
    'import type { Options } from "./types";',
    "export function workspaceArgs(options: Options): string[] {",
    "  return options.packageManager ? [options.packageManager] : [];",
    "}",
    "export function workspaceArgs2(options: {",
    "  workspace?: boolean;",
    "  packageManager: string;",
    "}): string[] {",
    "  return options.packageManager === 'pnpm' ? ['-w'] : [];",
    "}",
  ].join("\n"),
};

nameCase(
  "anonymous types: a value annotated with an anonymous object type has that type's members only",
  async () => {
    const { lines } = await referencesIn(WORKSPACE_FILES, {
      path: "src/types.ts",
      name: "packageManager",
      line: 1,
      shared: true,
    });
    // Not `options.packageManager` of the parameter typed `{ packageManager: string }`.
    assertEquals(lines, ["src/args.ts:3", "src/types.ts:1"]);
    const own = await referencesIn(WORKSPACE_FILES, {
      path: "src/args.ts",
      name: "packageManager",
      line: 7,
    });
    assertEquals(own.lines, ["src/args.ts:7", "src/args.ts:9"]);
  },
);

const THIS_FILES = {
  "src/types.ts": [
    "export interface Context { warn: (message: string) => void }",
    "export interface Options { id: string }",
    "export interface Plugin {",
    "  load: (this: Context, options: Options) => void",
    "  transform(this: Context, code: string, options: { sourceMap?: boolean }): void",
    "}",
  ].join("\n"),
  "src/plugin.ts": [
    'import type { Plugin } from "./types";',
    "export const plugin: Plugin = {",
    "  load(options) {",
    "    options.id;",
    "  },",
    "  transform(code, options) {",
    "    options.sourceMap;",
    "  },",
    "};",
  ].join("\n"),
};

nameCase(
  "this parameters: a function type's `this` parameter is not one of the parameters its values take",
  async () => {
    assertEquals(
      await definitionOf(THIS_FILES, { path: "src/plugin.ts", name: "id", line: 4 }),
      "src/types.ts:2",
    );
    assertEquals(
      await definitionOf(THIS_FILES, { path: "src/plugin.ts", name: "sourceMap", line: 7 }),
      "src/types.ts:5",
    );
  },
);

Deno.test("name resolution: plugin factories and package-manager tables", (t) => runCases(t));
