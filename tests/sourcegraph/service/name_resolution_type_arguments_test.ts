import { assertEquals } from "../../support/assert.ts";
import { nameCases } from "../../support/name_cases.ts";

// One parser for every case of the file (see `nameCases`).
const { nameCase, referencesIn, resolvedIn: definitionIn, runCases } = nameCases();

Deno.test("name resolution through type arguments and assertions: one parser, case by case", (t) =>
  runCases(t));

const ASSERTED_FILES = {
  "src/config.ts": [
    "export interface Config {",
    "  cwd: string;",
    "  publish: { tag?: string };",
    "}",
    "export const defaults = () =>",
    "  <Config>{",
    "    cwd: '.',",
    "    publish: { tag: 'latest' },",
    "  };",
    "export const other = { cwd: '..' };",
  ].join("\n"),
};

nameCase(
  "name resolution: an object under an angle-bracket type assertion is of the type asserted",
  async () => {
    const { lines } = await referencesIn(ASSERTED_FILES, {
      path: "src/config.ts",
      name: "cwd",
      line: 2,
      shared: true,
    });
    assertEquals(lines, ["src/config.ts:2", "src/config.ts:7"]);
    assertEquals(
      await definitionIn(ASSERTED_FILES, { path: "src/config.ts", name: "tag", line: 8 }),
      "src/config.ts:3",
    );
  },
);

const INDEXED_FILES = {
  "src/types.ts": [
    "export interface Schema { title?: string }",
    "export type Value = string | number | object;",
    "export interface Input {",
    "  schema?: Schema;",
    "  fallback?: any;",
    "  [key: string]: Value | Input;",
    "}",
  ].join("\n"),
  "src/resolve.ts": [
    'import type { Input } from "./types";',
    "export function resolve(input: Input) { return input; }",
  ].join("\n"),
  "test/resolve.test.ts": [
    'import { resolve } from "../src/resolve";',
    "resolve({",
    "  test: {",
    "    foo: { fallback: 'x', schema: { title: 'Test' } },",
    "  },",
    "});",
    "const other = { fallback: 1 };",
  ].join("\n"),
};

nameCase(
  "name resolution: an object at a key its type declares only by an index signature is of that signature's value type",
  async () => {
    const { lines } = await referencesIn(INDEXED_FILES, {
      path: "src/types.ts",
      name: "fallback",
      line: 5,
      shared: true,
    });
    assertEquals(lines, ["src/types.ts:5", "test/resolve.test.ts:4"]);
    assertEquals(
      await definitionIn(INDEXED_FILES, { path: "test/resolve.test.ts", name: "title", line: 4 }),
      "src/types.ts:1",
    );
  },
);

nameCase(
  "name resolution: an object in an array at a key of a typed literal is of that key's element type",
  async () => {
    const files = {
      "src/types.ts": [
        "export interface Arg { name?: string; optional?: boolean }",
        "export interface Schema { title?: string; args?: Arg[] }",
        "export function generate(schema: Schema) { return schema; }",
      ].join("\n"),
      "test/generate.test.ts": [
        'import { generate } from "../src/types";',
        "generate({",
        "  title: 'x',",
        "  args: [{ name: 'a', optional: true }, { name: 'b' }],",
        "});",
        "const other = { list: [{ optional: false }] };",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "optional",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/types.ts:1", "test/generate.test.ts:4"]);
    assertEquals(
      await definitionIn(files, { path: "test/generate.test.ts", name: "name", line: 4, nth: 1 }),
      "src/types.ts:1",
    );
  },
);

nameCase(
  "name resolution: a value typed by a type parameter has the members of the parameter's constraint",
  async () => {
    const files = {
      "src/types.ts": [
        "export interface Connector { name: string; dispose?: () => void }",
        "export interface Database { dispose: () => Promise<void> }",
      ].join("\n"),
      "src/database.ts": [
        'import type { Connector, Database } from "./types";',
        "export function create<C extends Connector = Connector>(connector: C): Database {",
        "  return { dispose: () => Promise.resolve(connector.dispose?.()) };",
        "}",
        "export function free<T>(value: T) { return (value as any).dispose; }",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "dispose",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/database.ts:3", "src/types.ts:1"]);
    assertEquals(
      await definitionIn(files, { path: "src/database.ts", name: "dispose", line: 3, nth: 1 }),
      "src/types.ts:1",
    );
  },
);

nameCase(
  "name resolution: an element of a variable set from a call of a function returning an array is of the array's element type",
  async () => {
    const files = {
      "src/git.ts": [
        "export interface Commit { body: string; hash: string }",
        "export function parse(raw: string[]): Commit[] { return []; }",
        "export async function diff(from: string): Promise<Commit[]> { return []; }",
      ].join("\n"),
      "test/git.test.ts": [
        'import { diff, parse } from "../src/git";',
        "const parsed = parse([]);",
        "parsed.map(({ body: _, ...rest }) => rest);",
        "const commits = await diff('a');",
        "commits.map((c) => c.body);",
        "const other = [{ body: 1 }].map(({ body }) => body);",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/git.ts",
      name: "body",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/git.ts:1", "test/git.test.ts:3", "test/git.test.ts:5"]);
    assertEquals(
      await definitionIn(files, { path: "test/git.test.ts", name: "body", line: 3 }),
      "src/git.ts:1",
    );
  },
);

const TABLE_FILES = {
  "test/drivers.test.ts": [
    "const drivers: { name: string; open: () => number }[] = [",
    "  { name: 'a', open: () => 1 },",
    "  { name: 'b', open: () => 2 },",
    "];",
    "const first: { name: string } = { name: 'c' };",
  ].join("\n"),
};

nameCase(
  "name resolution: an object in an array set to a variable annotated with an anonymous element type is of that type",
  async () => {
    const { lines } = await referencesIn(TABLE_FILES, {
      path: "test/drivers.test.ts",
      name: "name",
      line: 1,
    });
    assertEquals(lines, [
      "test/drivers.test.ts:1",
      "test/drivers.test.ts:2",
      "test/drivers.test.ts:3",
    ]);
    assertEquals(
      await definitionIn(TABLE_FILES, { path: "test/drivers.test.ts", name: "name", line: 3 }),
      "test/drivers.test.ts:1",
    );
  },
);

nameCase(
  "name resolution: a value under an angle-bracket type assertion is of the type asserted",
  async () => {
    const files = {
      "src/errors.ts": [
        "export class HttpError extends Error { status = 500; }",
        "export function code(error: unknown) {",
        "  return (<HttpError>error).status;",
        "}",
        "export const other = { status: 1 };",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/errors.ts",
      name: "status",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/errors.ts:1", "src/errors.ts:3"]);
    assertEquals(
      await definitionIn(files, { path: "src/errors.ts", name: "status", line: 3 }),
      "src/errors.ts:1",
    );
  },
);

nameCase(
  "name resolution: an element of an imported variable set from a call of a function returning an array is of the array's element type",
  async () => {
    const files = {
      "src/git.ts": [
        "export interface Commit { body: string; hash: string }",
        "export function parse(raw: string[]): Commit[] { return []; }",
        "export const commits = parse([]);",
      ].join("\n"),
      "src/log.ts": [
        'import { commits } from "./git";',
        "for (const commit of commits) console.log(commit.body);",
        "const other = [{ body: 1 }].map((o) => o.body);",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/git.ts",
      name: "body",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/git.ts:1", "src/log.ts:2"]);
    assertEquals(
      await definitionIn(files, { path: "src/log.ts", name: "body", line: 2 }),
      "src/git.ts:1",
    );
  },
);
