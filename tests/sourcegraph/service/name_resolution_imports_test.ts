import { assertEquals } from "../../support/assert.ts";
import { nameCases } from "../../support/name_cases.ts";

// One parser for every case of the file (see `nameCases`).
const { nameCase, referencesIn, resolvedIn: definitionIn, runCases } = nameCases();

Deno.test("name resolution through function types: one parser, case by case", (t) => runCases(t));

const PROVIDER_FILES = {
  "src/types.ts": [
    "export interface Info {",
    "  name: string;",
    "  version?: string;",
    "}",
    "export type Provider = (",
    "  input: string,",
    "  options: { auth?: string },",
    ") => Info | Promise<Info> | null;",
  ].join("\n"),
  "src/providers.ts": [
    'import type { Provider } from "./types";',
    "export const github: Provider = (input, options) => {",
    "  return {",
    "    name: input,",
    "    version: options.auth,",
    "  };",
    "};",
  ].join("\n"),
};

nameCase(
  "name resolution: an object returned by a function set to a variable of a named function type is of that type's return type",
  async () => {
    const { lines } = await referencesIn(PROVIDER_FILES, {
      path: "src/types.ts",
      name: "version",
      line: 3,
      shared: true,
    });
    assertEquals(lines, ["src/providers.ts:5", "src/types.ts:3"]);
    assertEquals(
      await definitionIn(PROVIDER_FILES, { path: "src/providers.ts", name: "name", line: 4 }),
      "src/types.ts:2",
    );
  },
);

nameCase(
  "name resolution: a parameter of a function set to a variable of a named function type is of that type's anonymous parameter type",
  async () => {
    const { lines } = await referencesIn(PROVIDER_FILES, {
      path: "src/types.ts",
      name: "auth",
      line: 7,
      shared: true,
    });
    assertEquals(lines, ["src/providers.ts:5", "src/types.ts:7"]);
    assertEquals(
      await definitionIn(PROVIDER_FILES, { path: "src/providers.ts", name: "auth", line: 5 }),
      "src/types.ts:7",
    );
  },
);

const DYNAMIC_FILES = {
  "src/prompt.ts": [
    "export async function prompt(message: string) {",
    "  return message;",
    "}",
  ].join("\n"),
  "src/types.ts": [
    "export interface Options {",
    '  prompt?: typeof import("./prompt").prompt | undefined;',
    "}",
  ].join("\n"),
  "src/index.ts": [
    "export const options = {",
    '  prompt: (message: string) => import("./prompt").then((m) => m.prompt(message)),',
    "};",
    "export async function ask(message: string) {",
    '  const loaded = await import("./prompt");',
    '  await (await import("./prompt")).prompt(message);',
    "  return loaded.prompt(message);",
    "}",
  ].join("\n"),
};

nameCase(
  "name resolution: a member of a module loaded with `import()` (awaited, in `typeof`, or given to `then`) is that module's export",
  async () => {
    const { lines } = await referencesIn(DYNAMIC_FILES, {
      path: "src/prompt.ts",
      name: "prompt",
      line: 1,
    });
    assertEquals(lines, [
      "src/index.ts:2",
      "src/index.ts:6",
      "src/index.ts:7",
      "src/prompt.ts:1",
      "src/types.ts:2",
    ]);
    // The module's name is a word of its own: the member is the line's last `prompt`.
    for (const [line, nth] of [[2, 2], [6, 1], [7, 0]]) {
      assertEquals(
        await definitionIn(DYNAMIC_FILES, { path: "src/index.ts", name: "prompt", line, nth }),
        "src/prompt.ts:1",
      );
    }
    assertEquals(
      await definitionIn(DYNAMIC_FILES, { path: "src/types.ts", name: "prompt", line: 2, nth: 2 }),
      "src/prompt.ts:1",
    );
  },
);

nameCase(
  "name resolution: an object returned by a function set under a typed literal's key is of the return type of that key's function type",
  async () => {
    const files = {
      ...PROVIDER_FILES,
      "src/download.ts": [
        'import type { Provider } from "./types";',
        "export interface DownloadOptions {",
        "  providers?: Record<string, Provider>;",
        "  fallback?: Provider;",
        "}",
        "export function download(input: string, options: DownloadOptions = {}) {",
        "  return options.providers?.[input];",
        "}",
      ].join("\n"),
      "test/download.test.ts": [
        'import { download } from "../src/download";',
        "download('custom:x', {",
        "  providers: {",
        "    custom: async (input) => {",
        "      return { name: input };",
        "    },",
        "  },",
        "  fallback: (input) => ({ version: input }),",
        "});",
      ].join("\n"),
    };
    assertEquals(
      (await referencesIn(files, { path: "src/types.ts", name: "name", line: 2, shared: true }))
        .lines,
      ["src/providers.ts:4", "src/types.ts:2", "test/download.test.ts:5"],
    );
    assertEquals(
      await definitionIn(files, { path: "test/download.test.ts", name: "version", line: 8 }),
      "src/types.ts:3",
    );
  },
);

nameCase(
  "name resolution: a value annotated `Awaited<ReturnType<typeof f>>` or `ReturnType<typeof f>` is of what f returns",
  async () => {
    const files = {
      "src/download.ts": [
        "export interface Result {",
        "  dir: string;",
        "}",
        "export async function download(input: string): Promise<Result> {",
        "  return { dir: input };",
        "}",
        "export function plan(input: string): Result {",
        "  return { dir: input };",
        "}",
      ].join("\n"),
      "src/cli.ts": [
        'import { download, plan } from "./download";',
        "export async function run(input: string) {",
        "  let r: Awaited<ReturnType<typeof download>>;",
        "  r = await download(input);",
        "  const p: ReturnType<typeof plan> = plan(input);",
        "  return r.dir + p.dir;",
        "}",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, { path: "src/download.ts", name: "dir", line: 2 });
    assertEquals(lines, [
      "src/cli.ts:6",
      "src/download.ts:2",
      "src/download.ts:5",
      "src/download.ts:8",
    ]);
    for (const nth of [0, 1]) {
      assertEquals(
        await definitionIn(files, { path: "src/cli.ts", name: "dir", line: 6, nth }),
        "src/download.ts:2",
      );
    }
  },
);

nameCase(
  "name resolution: a name destructured from a module's namespace (`await import()` or `import * as`) is that module's export",
  async () => {
    const files = {
      "src/prompt.ts": [
        "export async function prompt(message: string) {",
        "  return message;",
        "}",
      ].join("\n"),
      "src/index.ts": [
        'import * as ns from "./prompt";',
        "export async function ask(message: string) {",
        '  const { prompt } = await import("./prompt");',
        "  return prompt(message);",
        "}",
        "export function other(message: string) {",
        "  const { prompt } = ns;",
        "  return prompt(message);",
        "}",
        "export function local(message: string) {",
        "  const { prompt } = { prompt: (text: string) => text };",
        "  return prompt(message);",
        "}",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, { path: "src/prompt.ts", name: "prompt", line: 1 });
    assertEquals(lines, [
      "src/index.ts:3",
      "src/index.ts:4",
      "src/index.ts:7",
      "src/index.ts:8",
      "src/prompt.ts:1",
    ]);
  },
);
