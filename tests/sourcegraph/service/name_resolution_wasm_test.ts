import { assertEquals } from "../../support/assert.ts";
import { nameCases } from "../../support/name_cases.ts";

// `export const _private = { generate }`: calling `_private.generate(...)` calls the function
// `generate`, so the objects passed are of its parameter types and what it returns of its return
// type.

// One parser for every case of the file (see `nameCases`).
const { definedIn: definitionOf, nameCase, runCases } = nameCases();

const FILES = {
  "src/cert.ts": [
    "export interface Options { bits?: number; passphrase?: string }",
    "export interface Cert { key: string; cert: string }",
    "async function generate(options: Options): Promise<Cert> {",
    "  return { key: '', cert: '' };",
    "}",
    "export const _private = { generate };",
  ].join("\n"),
  "test/cert.test.ts": [
    'import { _private } from "../src/cert";',
    "const made = await _private.generate({ bits: 1, passphrase: 'x' });",
    "made.key;",
  ].join("\n"),
};

nameCase(
  "shorthand: an object passed to a function a literal holds as a shorthand property is of its parameter type",
  async () => {
    assertEquals(
      await definitionOf(FILES, { path: "test/cert.test.ts", name: "bits", line: 2 }),
      "src/cert.ts:1",
    );
  },
);
nameCase(
  "shorthand: what a function a literal holds as a shorthand property returns is of its return type",
  async () => {
    assertEquals(
      await definitionOf(FILES, { path: "test/cert.test.ts", name: "key", line: 3 }),
      "src/cert.ts:2",
    );
  },
);
Deno.test("name resolution: functions held as shorthand properties", (t) => runCases(t));
