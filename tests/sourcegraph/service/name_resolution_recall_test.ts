import { assertEquals } from "../../support/assert.ts";
import { ReferenceParser } from "../../../sourcegraph/service/name_references.ts";
import { definitionAt } from "../../../sourcegraph/service/name_resolution.ts";
import {
  type NameAt,
  resolvedReferences,
  resolverOver,
} from "../../support/resolved_references.ts";

// One parser (its workers and their grammars started once) for every case: its answers are
// kept by path, text and name, so a case never sees another's files.
let parser: ReferenceParser | null = null;
const CASES: [string, () => Promise<void>][] = [];

function sharedParser(): ReferenceParser {
  if (parser === null) throw new Error("the cases run inside the file's one test");
  return parser;
}

function nameCase(name: string, fn: () => Promise<void>): void {
  CASES.push([name, fn]);
}

function referencesIn(
  files: Record<string, string>,
  at: NameAt,
): ReturnType<typeof resolvedReferences> {
  return resolvedReferences(sharedParser(), files, at);
}

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

Deno.test("name resolution recall: one parser, case by case", async (t) => {
  // Generous deadlines, the wait before a parse begins too (a grammar's load counts toward it).
  parser = new ReferenceParser({ fileMs: 60_000, queuedMs: 60_000 });
  try {
    for (const [name, fn] of CASES) await t.step(name, fn);
  } finally {
    parser.close();
    parser = null;
  }
});
