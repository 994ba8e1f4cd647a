import { assertEquals } from "../../support/assert.ts";
import { nameCases } from "../../support/name_cases.ts";

// One parser for every case of the file (see `nameCases`).
const { nameCase, referencesIn, resolvedIn: definitionIn, runCases } = nameCases();

Deno.test("name resolution of modules' options: one parser, case by case", (t) => runCases(t));

const LOADER_FILES = {
  "src/types.ts": [
    "export interface LoadOptions<T = any> {",
    "  cwd?: string;",
    "  defaults?: T;",
    "}",
  ].join("\n"),
  "src/loader.ts": [
    'import type { LoadOptions } from "./types";',
    "export function load<T = any>(options: LoadOptions<T>): T {",
    "  return options.defaults as T;",
    "}",
  ].join("\n"),
  "test/load.test.ts": [
    'import { load } from "../src/loader";',
    "it('loads', async () => {",
    "  type UserConfig = Partial<{ name: string }>;",
    "  const { config } = await load<UserConfig>({",
    "    cwd: '.',",
    "    defaults: { name: 'x' },",
    "  });",
    "});",
  ].join("\n"),
};

nameCase(
  "name resolution: an object passed to `await` of a call written with a type argument is of the callee's parameter type",
  async () => {
    const { lines } = await referencesIn(LOADER_FILES, {
      path: "src/types.ts",
      name: "cwd",
      line: 2,
      shared: true,
    });
    assertEquals(lines, ["src/types.ts:2", "test/load.test.ts:5"]);
    assertEquals(
      await definitionIn(LOADER_FILES, { path: "test/load.test.ts", name: "cwd", line: 5 }),
      "src/types.ts:2",
    );
  },
);

nameCase(
  "name resolution: a value set from `await` of a call written with a type argument is of the type the callee returns",
  async () => {
    const files = {
      "src/types.ts": [
        "export interface Layer { cwd?: string }",
        "export interface Resolved<T = any> { config: T; layers?: Layer[] }",
      ].join("\n"),
      "src/loader.ts": [
        'import type { Resolved } from "./types";',
        "export async function load<T = any>(name: string): Promise<Resolved<T>> {",
        "  return { config: {} as T };",
        "}",
      ].join("\n"),
      "src/watch.ts": [
        'import { load } from "./loader";',
        "export async function watch<T>(name: string) {",
        "  let loaded = await load<T>(name);",
        "  return loaded.layers;",
        "}",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "layers",
      line: 2,
      shared: true,
    });
    assertEquals(lines, ["src/types.ts:2", "src/watch.ts:4"]);
    assertEquals(
      await definitionIn(files, { path: "src/watch.ts", name: "layers", line: 4 }),
      "src/types.ts:2",
    );
  },
);

nameCase(
  "name resolution: a callee's parameter of a named type types an object passed to it, not the call's type argument",
  async () => {
    const files = {
      ...LOADER_FILES,
      "test/load.test.ts": [
        'import { load } from "../src/loader";',
        "type UserConfig = { cwd: boolean; name: string };",
        "load<UserConfig>({ cwd: '.' });",
        "function atom<Value>(initial: Value): Value { return initial; }",
        "atom<UserConfig>({ cwd: true, name: 'x' });",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "cwd",
      line: 2,
      shared: true,
    });
    // Not `UserConfig`'s `cwd`: the type argument is what the options' `defaults` are.
    assertEquals(lines, ["src/types.ts:2", "test/load.test.ts:3"]);
    const own = await referencesIn(files, { path: "test/load.test.ts", name: "cwd", line: 2 });
    // A parameter of the type parameter's own type is of the type argument.
    assertEquals(own.lines, ["test/load.test.ts:2", "test/load.test.ts:5"]);
    assertEquals(
      await definitionIn(files, { path: "test/load.test.ts", name: "cwd", line: 3 }),
      "src/types.ts:2",
    );
  },
);

const DRIVER_FILES = {
  "src/utils.ts": [
    "export interface Driver<OptionsT = any> { name?: string; options?: OptionsT }",
    "export type DriverFactory<OptionsT, InstanceT = never> = (opts: OptionsT) => Driver<OptionsT>;",
  ].join("\n"),
  "src/drivers/fs.ts": [
    'import type { DriverFactory } from "../utils";',
    "export interface FSOptions { base?: string }",
    "const driver: DriverFactory<FSOptions> = (opts) => ({ name: opts.base });",
    "export default driver;",
  ].join("\n"),
  "src/drivers/memory.ts": [
    'import type { DriverFactory } from "../utils";',
    "export interface MemoryOptions { base?: string }",
    "const driver: DriverFactory<MemoryOptions> = (opts) => ({ name: 'memory' });",
    "export default driver;",
  ].join("\n"),
  "test/fs.test.ts": [
    'import driver from "../src/drivers/fs";',
    'import memory from "../src/drivers/memory";',
    "setup({ driver: driver({ base: 'tmp' }) });",
    "setup({ driver: memory({ base: 'tmp' }) });",
  ].join("\n"),
};

nameCase(
  "name resolution: an object passed to a value annotated with a generic function type is of the type argument its parameter stands for",
  async () => {
    const { lines } = await referencesIn(DRIVER_FILES, {
      path: "src/drivers/fs.ts",
      name: "base",
      line: 2,
      shared: true,
    });
    // Not the memory driver's options, of another type argument.
    assertEquals(lines, ["src/drivers/fs.ts:2", "src/drivers/fs.ts:3", "test/fs.test.ts:3"]);
    assertEquals(
      await definitionIn(DRIVER_FILES, { path: "test/fs.test.ts", name: "base", line: 4 }),
      "src/drivers/memory.ts:2",
    );
  },
);

const WATCH_FILES = {
  "src/watch.ts": [
    "export interface WatchOptions {",
    "  onWatch?: (event: { type: string; path: string }) => void;",
    "  onUpdate(context: { getDiff: () => string[] }): void;",
    "}",
    "export function watch(options: WatchOptions) {",
    "  options.onWatch?.({ type: 'add', path: '.' });",
    "}",
  ].join("\n"),
  "src/other.ts": [
    "export interface OtherOptions { onWatch?: (event: { type: string }) => void }",
    "export function other(options: OtherOptions) {",
    "  options.onWatch?.({ type: 'x' });",
    "}",
  ].join("\n"),
  "playground/watch.ts": [
    'import { watch } from "../src/watch";',
    'import { other } from "../src/other";',
    "watch({",
    "  onWatch: (event) => console.log(event.type, event.path),",
    "  onUpdate({ getDiff }) { getDiff(); },",
    "});",
    "other({ onWatch: (event) => console.log(event.type) });",
  ].join("\n"),
};

nameCase(
  "name resolution: a member of an anonymous object type annotating a parameter of a property's function type is that property's parameter",
  async () => {
    const { lines } = await referencesIn(WATCH_FILES, {
      path: "src/watch.ts",
      name: "type",
      line: 2,
      shared: true,
    });
    // The object passed to the property's call, the member of its handler's parameter; not the
    // other options' `type`.
    assertEquals(lines, ["playground/watch.ts:4", "src/watch.ts:2", "src/watch.ts:6"]);
    const diff = await referencesIn(WATCH_FILES, {
      path: "src/watch.ts",
      name: "getDiff",
      line: 3,
      shared: true,
    });
    assertEquals(diff.lines, ["playground/watch.ts:5", "src/watch.ts:3"]);
    assertEquals(
      await definitionIn(WATCH_FILES, { path: "playground/watch.ts", name: "path", line: 4 }),
      "src/watch.ts:2",
    );
    assertEquals(
      await definitionIn(WATCH_FILES, { path: "src/watch.ts", name: "path", line: 6 }),
      "src/watch.ts:2",
    );
  },
);

const EXTEND_FILES = {
  "src/types.ts": [
    "export interface LoadOptions {",
    "  extend?: false | {",
    "    extendKey?: string;",
    "  };",
    "}",
    "export interface OtherOptions { extend?: { extendKey?: string } }",
  ].join("\n"),
  "src/loader.ts": [
    'import type { LoadOptions } from "./types";',
    "export function load(options: LoadOptions) {",
    "  return options.extend && options.extend.extendKey;",
    "}",
  ].join("\n"),
  "test/load.test.ts": [
    'import { load } from "../src/loader";',
    "load({ extend: { extendKey: 'theme' } });",
  ].join("\n"),
};

nameCase(
  "name resolution: a member of an anonymous object type annotating a property is that property's value's",
  async () => {
    const { lines } = await referencesIn(EXTEND_FILES, {
      path: "src/types.ts",
      name: "extendKey",
      line: 3,
      shared: true,
    });
    // Not the other options' `extendKey`.
    assertEquals(lines, ["src/loader.ts:3", "src/types.ts:3", "test/load.test.ts:2"]);
    const other = await referencesIn(EXTEND_FILES, {
      path: "src/types.ts",
      name: "extendKey",
      line: 6,
      shared: true,
    });
    assertEquals(other.lines, ["src/types.ts:6"]);
    assertEquals(
      await definitionIn(EXTEND_FILES, { path: "test/load.test.ts", name: "extendKey", line: 2 }),
      "src/types.ts:3",
    );
    assertEquals(
      await definitionIn(EXTEND_FILES, { path: "src/loader.ts", name: "extendKey", line: 3 }),
      "src/types.ts:3",
    );
  },
);

const LAYER_FILES = {
  "src/types.ts": [
    "export interface Layer { cwd?: string }",
    "export interface Options { cwd?: string }",
    "export interface Resolved { layers?: Layer[] }",
  ].join("\n"),
  "src/watch.ts": [
    'import type { Options, Resolved } from "./types";',
    "export function watch(config: Resolved, options: Options) {",
    "  return (config.layers || [])",
    "    .filter((l) => l.cwd)",
    "    .map((l) => l.cwd + options.cwd);",
    "}",
  ].join("\n"),
};

nameCase(
  "name resolution: a parameter of a function passed to an array's method is an element of that array",
  async () => {
    const { lines } = await referencesIn(LAYER_FILES, {
      path: "src/types.ts",
      name: "cwd",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/types.ts:1", "src/watch.ts:4", "src/watch.ts:5"]);
    const options = await referencesIn(LAYER_FILES, {
      path: "src/types.ts",
      name: "cwd",
      line: 2,
      shared: true,
    });
    // Not the layers' `cwd`, though the file names `Options`.
    assertEquals(options.lines, ["src/types.ts:2", "src/watch.ts:5"]);
    assertEquals(
      await definitionIn(LAYER_FILES, { path: "src/watch.ts", name: "cwd", line: 4 }),
      "src/types.ts:1",
    );
  },
);

nameCase(
  "name resolution: an object that is a property's value in a literal of a type `Record<K, V>` is a V",
  async () => {
    const files = {
      "src/types.ts": [
        "export interface Dependency { name: string; version: string }",
        "export type Dependencies = Record<string, Dependency>;",
        "export interface Other { version: string }",
      ].join("\n"),
      "src/drivers.ts": [
        'import type { Dependencies } from "./types";',
        "export const dependencies: Partial<Record<string, Dependencies>> = {",
        '  "azure-cosmos": { lib: { name: "@azure/cosmos", version: "^4" } },',
        '  redis: { lib: { name: "ioredis", version: "^5" } },',
        "};",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "version",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/drivers.ts:3", "src/drivers.ts:4", "src/types.ts:1"]);
    assertEquals(
      await definitionIn(files, { path: "src/drivers.ts", name: "version", line: 3 }),
      "src/types.ts:1",
    );
  },
);

nameCase(
  "name resolution: a `Record<K, V | undefined>`'s values are V's",
  async () => {
    const files = {
      "src/tracing.ts": [
        "export function trace() {",
        "  type Config = { meta?: boolean; forceMeta?: boolean };",
        "  const operations: Record<string, Config | undefined> = {",
        "    getMeta: { forceMeta: true },",
        "  };",
        "  return operations.getMeta?.forceMeta;",
        "}",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/tracing.ts",
      name: "forceMeta",
      line: 2,
      shared: true,
    });
    assertEquals(lines, ["src/tracing.ts:2", "src/tracing.ts:4", "src/tracing.ts:6"]);
    assertEquals(
      await definitionIn(files, { path: "src/tracing.ts", name: "forceMeta", line: 4 }),
      "src/tracing.ts:2",
    );
  },
);

nameCase(
  "name resolution: an object assigned to a member of a value of a named type is of that member's type",
  async () => {
    const files = {
      ...EXTEND_FILES,
      "src/loader.ts": [
        'import type { LoadOptions } from "./types";',
        "export function load(options: LoadOptions) {",
        "  options.extend = { extendKey: 'extends' };",
        "}",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "extendKey",
      line: 3,
      shared: true,
    });
    assertEquals(lines, ["src/loader.ts:3", "src/types.ts:3", "test/load.test.ts:2"]);
    assertEquals(
      await definitionIn(files, { path: "src/loader.ts", name: "extendKey", line: 3 }),
      "src/types.ts:3",
    );
  },
);

nameCase(
  "name resolution: a parameter of a function set to a value annotated with a generic function type is of the type argument its type parameter stands for",
  async () => {
    const files = {
      "src/utils.ts": DRIVER_FILES["src/utils.ts"],
      "src/drivers/fs.ts": [
        'import type { DriverFactory } from "../utils";',
        "export interface FSOptions { readOnly?: boolean }",
        "const driver: DriverFactory<FSOptions> = (opts) => ({ name: String(opts.readOnly) });",
        "export default driver;",
      ].join("\n"),
      "src/drivers/fs-lite.ts": [
        'import type { DriverFactory } from "../utils";',
        "export interface FSOptions { readOnly?: boolean }",
        "const driver: DriverFactory<FSOptions> = (opts) => ({ name: String(opts.readOnly) });",
        "export default driver;",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/drivers/fs.ts",
      name: "readOnly",
      line: 2,
      shared: true,
    });
    // Not the other file's options of the same type name.
    assertEquals(lines, ["src/drivers/fs.ts:2", "src/drivers/fs.ts:3"]);
    assertEquals(
      await definitionIn(files, { path: "src/drivers/fs-lite.ts", name: "readOnly", line: 3 }),
      "src/drivers/fs-lite.ts:2",
    );
  },
);

nameCase(
  "name resolution: an object literal of no evident type may be of its file's anonymous property type",
  async () => {
    const files = {
      "src/animation.ts": [
        "type Animation = { from: { transform: string } };",
        "const animations = new Map<string, Animation>();",
        "animations.set('float', { from: { transform: 'none' } });",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/animation.ts",
      name: "transform",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/animation.ts:1", "src/animation.ts:3"]);
  },
);

nameCase(
  "name resolution: a property's anonymous type inside a call's type argument is seen in its statement only",
  async () => {
    const files = {
      "test/persist.test.ts": [
        "it('hydrates', () => {",
        "  const older = deferred<{ state: { count: number } }>();",
        "  const other = { count: 2 };",
        "  use(other);",
        "});",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "test/persist.test.ts",
      name: "count",
      line: 2,
      shared: true,
    });
    assertEquals(lines, ["test/persist.test.ts:2"]);
  },
);

nameCase(
  "name resolution: a member of `globalThis` is the file's global declaration of that name",
  async () => {
    const files = {
      "src/dotenv.ts": [
        "declare global {",
        "  var __dotenv_vars__: Map<string, Set<string>>;",
        "}",
        "export function vars() {",
        "  return (globalThis.__dotenv_vars__ ||= new Map());",
        "}",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/dotenv.ts",
      name: "__dotenv_vars__",
      line: 2,
    });
    assertEquals(lines, ["src/dotenv.ts:2", "src/dotenv.ts:5"]);
    assertEquals(
      await definitionIn(files, { path: "src/dotenv.ts", name: "__dotenv_vars__", line: 5 }),
      "src/dotenv.ts:2",
    );
  },
);
