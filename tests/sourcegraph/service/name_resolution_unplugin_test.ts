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

Deno.test("name resolution: plugin factories and package-manager tables", (t) => runCases(t));
