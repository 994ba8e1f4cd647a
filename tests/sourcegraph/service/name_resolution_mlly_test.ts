import { assertEquals } from "../../support/assert.ts";
import { nameCases } from "../../support/name_cases.ts";
import { refersTo, resolveAt } from "../../../sourcegraph/service/name_resolution.ts";
import { resolverOver } from "../../support/resolved_references.ts";

// One parser for every case of the file (see `nameCases`).
const { definedIn, nameCase, referencesIn, runCases, sharedParser } = nameCases();

const PROXIES = {
  "src/utils.ts": [
    "export function createProxy<T>(node: object, handler: ProxyHandler<object>): T {",
    "  return new Proxy(",
    "    {},",
    "    {",
    "      ownKeys() {",
    "        return [];",
    "      },",
    "      get(target: any, key: string | symbol, receiver: any) {",
    "        if (handler.get) {",
    "          return handler.get(target, key, receiver);",
    "        }",
    "      },",
    "    },",
    "  ) as T;",
    "}",
  ].join("\n"),
  "src/object.ts": [
    'import { createProxy } from "./utils";',
    "export function proxifyObject(node: object) {",
    "  return createProxy(node, {",
    "    get(_, key) {",
    "      return undefined;",
    "    },",
    "    ownKeys() {",
    "      return [];",
    "    },",
    "    has(_, key) {",
    "      return Array.from(this.ownKeys!(_)).includes(key);",
    "    },",
    "  });",
    "}",
  ].join("\n"),
  "src/array.ts": [
    "export function proxifyArray(node: object) {",
    "  return new Proxy([], {",
    "    ownKeys() {",
    "      return Reflect.ownKeys(node);",
    "    },",
    "  });",
    "}",
  ].join("\n"),
  "src/store.ts": [
    "export interface Options { get(): number; ownKeys(): string[] }",
    "export function define(options: Options) {}",
    "define({ get: () => 1, ownKeys: () => [] });",
    "const plain = { ownKeys() { return []; } };",
  ].join("\n"),
};

nameCase(
  "platform types: keys of objects of one platform type (a handler passed to new Proxy or to a parameter annotated with its type) are one member",
  async () => {
    const { lines } = await referencesIn(PROXIES, {
      path: "src/object.ts",
      name: "ownKeys",
      line: 7,
    });
    // Not `Reflect.ownKeys`, nor a key of a type of the files or of an untyped object.
    assertEquals(lines, [
      "src/array.ts:3",
      "src/object.ts:7",
      "src/object.ts:11",
      "src/utils.ts:5",
    ]);
    const get = await referencesIn(PROXIES, { path: "src/array.ts", name: "ownKeys", line: 3 });
    assertEquals(get.lines, lines);
  },
);

nameCase(
  "platform types: a member of a value annotated with a platform type is that type's member, which its objects' keys are",
  async () => {
    const { lines } = await referencesIn(PROXIES, { path: "src/utils.ts", name: "get", line: 8 });
    assertEquals(lines, ["src/object.ts:4", "src/utils.ts:8", "src/utils.ts:9", "src/utils.ts:10"]);
  },
);

nameCase(
  "same line: a parameter declared on a function's line is not the function",
  async () => {
    const files = {
      "src/esprima.ts": [
        "export function parse(source: string, options?: any) {",
        '  return read(source, { range: options?.range, tolerant: getOption(options, "t") });',
        "}",
        "function read(source: string, options: unknown) {}",
        "function getOption(options: any, key: string) {}",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/esprima.ts",
      name: "options",
      line: 1,
    });
    assertEquals(lines, ["src/esprima.ts:1", "src/esprima.ts:2"]);
    // Asked for the function, an occurrence of another name declared on its line is not it.
    const resolver = resolverOver(sharedParser(), files);
    const column = files["src/esprima.ts"].indexOf("parse");
    const target = await resolveAt(resolver, {
      path: "src/esprima.ts",
      name: "parse",
      line: 1,
      column,
    });
    const options = await resolver.analysis("src/esprima.ts", "options");
    const referring = [];
    for (const occurrence of options?.occurrences ?? []) {
      const at = { path: "src/esprima.ts", name: "options", occurrence };
      if (await refersTo(resolver, at, target!)) referring.push(occurrence.line);
    }
    // (The function's own line is a row of it whatever else is written there.)
    assertEquals(referring, [1]);
  },
);

nameCase(
  "predefined types: a value annotated with a platform's predefined type (string, number) is of no type of the files",
  async () => {
    const files = {
      "src/mapping.ts": [
        "export default class Mapping {",
        "  slice(start: number) { return this; }",
        "  toFixed(digits: number) { return this; }",
        "}",
      ].join("\n"),
      "src/lines.ts": [
        'import Mapping from "./mapping";',
        "export class Lines {",
        "  private mappings: Mapping[] = [];",
        "  text(line: string, other, width: number) {",
        "    other.slice(1);",
        "    other.toFixed(2);",
        "    width.toFixed(2);",
        "    return line.slice(1);",
        "  }",
        "}",
      ].join("\n"),
    };
    const slice = await referencesIn(files, {
      path: "src/mapping.ts",
      name: "slice",
      line: 2,
      shared: true,
    });
    // A value of no evident type in a file naming the type may be of it; a string is not.
    assertEquals(slice.lines, ["src/lines.ts:5", "src/mapping.ts:2"]);
    const fixed = await referencesIn(files, { path: "src/mapping.ts", name: "toFixed", line: 3 });
    assertEquals(fixed.lines, ["src/lines.ts:6", "src/mapping.ts:3"]);
  },
);

nameCase(
  "anonymous variable types: an object under a key of an object of a variable's anonymous type is of that key's type",
  async () => {
    const files = {
      "src/format.ts":
        "export interface FormatOptions {\n  quote?: string;\n  useSemi?: boolean;\n}",
      "test/format.test.ts": [
        'import type { FormatOptions } from "../src/format";',
        "const cases: Array<{ name: string; format: FormatOptions; extra: { depth: number } }> = [",
        '  { name: "single", format: { quote: "single" }, extra: { depth: 1 } },',
        "  { name: 'semi', format: { useSemi: true }, extra: { depth: 2 } },",
        "];",
        "const other = { format: { quote: 1 } };",
      ].join("\n"),
    };
    assertEquals(
      await definedIn(files, { path: "test/format.test.ts", name: "quote", line: 3 }),
      "src/format.ts:2",
    );
    const { lines } = await referencesIn(files, { path: "src/format.ts", name: "quote", line: 2 });
    // Not a key of an untyped object.
    assertEquals(lines, ["src/format.ts:2", "test/format.test.ts:3"]);
    const depth = await referencesIn(files, {
      path: "test/format.test.ts",
      name: "depth",
      line: 2,
    });
    assertEquals(depth.lines, [
      "test/format.test.ts:2",
      "test/format.test.ts:3",
      "test/format.test.ts:4",
    ]);
  },
);

nameCase(
  "untyped initializers: an object set without an annotation to a variable, at any depth, is of its own type, not another object's anonymous type",
  async () => {
    const files = {
      "test/imports.test.ts": [
        "type MaybeArray<T> = T | T[];",
        "const staticTests: Record<string, MaybeArray<{ specifier: string; type?: string }>> = {",
        '  a: [{ specifier: "a", type: "static" }],',
        "};",
        'staticTests.b = { specifier: "b" };',
        "const TypeTests = {",
        '  c: { specifier: "c", type: "type" },',
        '  d: [{ specifier: "d" }],',
        "};",
        'const dynamicTests = { e: { specifier: "e" } } as const;',
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "test/imports.test.ts",
      name: "specifier",
      line: 2,
    });
    assertEquals(lines, [
      "test/imports.test.ts:2",
      "test/imports.test.ts:3",
      "test/imports.test.ts:5",
    ]);
  },
);

nameCase(
  "constrained elements: an element of an array of a type parameter is of its constraint, of an optional array of its element type",
  async () => {
    const files = {
      "src/analyze.ts": [
        "export interface ESMImport {",
        "  start: number;",
        "  end: number;",
        "}",
        "interface TokenLocation {",
        "  start: number;",
        "  end: number;",
        "}",
        "export function filterStatement<T extends TokenLocation>(",
        "  locations: TokenLocation[] | undefined,",
        "  statements: T[],",
        "): T[] {",
        "  return statements.filter((exp) => {",
        "    return !locations || locations.some((location) => {",
        "      return exp.start <= location.start && exp.end >= location.end;",
        "    });",
        "  });",
        "}",
      ].join("\n"),
    };
    assertEquals(
      await definedIn(files, { path: "src/analyze.ts", name: "start", line: 15 }),
      "src/analyze.ts:6",
    );
    assertEquals(
      await definedIn(files, { path: "src/analyze.ts", name: "end", line: 15, nth: 1 }),
      "src/analyze.ts:7",
    );
    // `locations: TokenLocation[] | undefined`: an element of the array when it is one.
    assertEquals(
      await definedIn(files, { path: "src/analyze.ts", name: "start", line: 15, nth: 1 }),
      "src/analyze.ts:6",
    );
    const { lines } = await referencesIn(files, {
      path: "src/analyze.ts",
      name: "start",
      line: 2,
      shared: true,
    });
    assertEquals(lines, ["src/analyze.ts:2"]);
  },
);

nameCase(
  "annotated unions: a value annotated with a union of named types is of each arm, one with null or undefined of the other part",
  async () => {
    const files = {
      "src/analyze.ts": [
        'export interface StaticImport { type: "static"; imports: string }',
        'export interface TypeImport { type: "type"; imports: string }',
        'export interface Other { type: "other"; imports: string }',
        "export function parseTypeImport(matched: TypeImport | StaticImport, other: Other | null) {",
        '  if (matched.type === "type") return matched.imports;',
        "  return other?.imports;",
        "}",
      ].join("\n"),
    };
    assertEquals(
      await definedIn(files, { path: "src/analyze.ts", name: "type", line: 5 }),
      "src/analyze.ts:2",
    );
    assertEquals(
      await definedIn(files, { path: "src/analyze.ts", name: "imports", line: 6 }),
      "src/analyze.ts:3",
    );
    const at = { path: "src/analyze.ts", name: "imports", shared: true };
    const staticImports = await referencesIn(files, { ...at, line: 1 });
    assertEquals(staticImports.lines, ["src/analyze.ts:1", "src/analyze.ts:5"]);
    const typeImports = await referencesIn(files, { ...at, line: 2 });
    assertEquals(typeImports.lines, ["src/analyze.ts:2", "src/analyze.ts:5"]);
    const other = await referencesIn(files, { ...at, line: 3 });
    assertEquals(other.lines, ["src/analyze.ts:3", "src/analyze.ts:6"]);
  },
);

nameCase(
  "record values: an object a Record's value is (set in its literal, in an array there, or assigned to a key) is of its anonymous value type",
  async () => {
    const files = {
      "test/imports.test.ts": [
        "type MaybeArray<T> = T | T[];",
        "const staticTests: Record<",
        "  string,",
        "  MaybeArray<{",
        "    specifier: string;",
        "    type?: string;",
        "  }>",
        "> = {",
        '  "import a": { specifier: "a" },',
        '  "import b": [{ specifier: "b" }, { specifier: "c", type: "static" }],',
        "};",
        'staticTests["import d"] = { specifier: "d" };',
        "const plain: Record<string, { specifier: string }> = {",
        '  e: { specifier: "e" },',
        "};",
      ].join("\n"),
    };
    for (const line of [9, 10, 12]) {
      assertEquals(
        await definedIn(files, { path: "test/imports.test.ts", name: "specifier", line }),
        "test/imports.test.ts:5",
      );
    }
    assertEquals(
      await definedIn(files, { path: "test/imports.test.ts", name: "specifier", line: 10, nth: 1 }),
      "test/imports.test.ts:5",
    );
    const { lines } = await referencesIn(files, {
      path: "test/imports.test.ts",
      name: "specifier",
      line: 5,
    });
    assertEquals(lines, [
      "test/imports.test.ts:5",
      "test/imports.test.ts:9",
      "test/imports.test.ts:10",
      "test/imports.test.ts:12",
    ]);
    assertEquals(
      await definedIn(files, { path: "test/imports.test.ts", name: "specifier", line: 14 }),
      "test/imports.test.ts:13",
    );
  },
);

nameCase(
  "literal receivers: a member of an array, string or template literal is the platform's",
  async () => {
    const files = {
      "src/lines.ts": [
        "export class Lines {",
        "  join(elements: Lines[]) { return this; }",
        "  trim() { return this; }",
        "}",
      ].join("\n"),
      "test/lines.ts": [
        'import { Lines } from "../src/lines";',
        "export function check(lines: Lines, other, eol: string) {",
        '  const code = ["function f() {", "}"].join(eol);',
        "  lines.join([lines]);",
        "  other.join([lines]);",
        '  return "  x ".trim() + `${code} `.trim() + other.trim();',
        "}",
      ].join("\n"),
    };
    const join = await referencesIn(files, {
      path: "src/lines.ts",
      name: "join",
      line: 2,
      shared: true,
    });
    assertEquals(join.lines, ["src/lines.ts:2", "test/lines.ts:4", "test/lines.ts:5"]);
    const trim = await referencesIn(files, {
      path: "src/lines.ts",
      name: "trim",
      line: 3,
      shared: true,
    });
    // Only `other.trim()` on that line may be the type's: the line is a row once.
    assertEquals(trim.lines, ["src/lines.ts:3", "test/lines.ts:6"]);
  },
);

nameCase(
  "element variables: a variable set to an element of an array of evident element type is of that type",
  async () => {
    const files = {
      "src/analyze.ts": [
        'export interface DynamicImport { type: "dynamic"; expression: string }',
        "export function findDynamicImports(code: string): DynamicImport[] {",
        "  return [];",
        "}",
      ].join("\n"),
      "test/imports.test.ts": [
        'import { findDynamicImports } from "../src/analyze";',
        'const tests: Record<string, { type?: string }> = { a: { type: "dynamic" } };',
        'const matches = findDynamicImports("x");',
        "const match = matches[0];",
        "const last = matches.at(-1)!;",
        'if (match.type === "dynamic" && last.type) {}',
      ].join("\n"),
    };
    assertEquals(
      await definedIn(files, { path: "test/imports.test.ts", name: "type", line: 6 }),
      "src/analyze.ts:1",
    );
    assertEquals(
      await definedIn(files, { path: "test/imports.test.ts", name: "type", line: 6, nth: 1 }),
      "src/analyze.ts:1",
    );
    const { lines } = await referencesIn(files, {
      path: "test/imports.test.ts",
      name: "type",
      line: 2,
    });
    assertEquals(lines, ["test/imports.test.ts:2"]);
  },
);

nameCase(
  "type positions: a name in a type position is a type's, past a value of the same name declared nearer",
  async () => {
    const files = {
      "src/path_visitor.ts": [
        "export interface PathVisitor {",
        "  visit(node: unknown): void;",
        "}",
        "export const make = () => {",
        "  const PathVisitor = function PathVisitor(this: PathVisitor) {",
        "    return this;",
        "  } as any;",
        "  const PVp: PathVisitor =",
        "    PathVisitor.prototype;",
        "  return PVp;",
        "};",
      ].join("\n"),
    };
    const at = { path: "src/path_visitor.ts", name: "PathVisitor" };
    assertEquals(await definedIn(files, { ...at, line: 5, nth: 2 }), "src/path_visitor.ts:1");
    assertEquals(await definedIn(files, { ...at, line: 8 }), "src/path_visitor.ts:1");
    assertEquals(await definedIn(files, { ...at, line: 9 }), "src/path_visitor.ts:5");
    const { lines } = await referencesIn(files, { ...at, line: 1 });
    assertEquals(lines, [
      "src/path_visitor.ts:1",
      "src/path_visitor.ts:5",
      "src/path_visitor.ts:8",
    ]);
  },
);

nameCase(
  "constructor values: new of a value cast to a type with a construct signature makes what that signature returns",
  async () => {
    const files = {
      "src/printer.ts": [
        "interface PrinterType {",
        "  print(ast: unknown): string;",
        "}",
        "interface PrinterConstructor {",
        "  new (config?: object): PrinterType;",
        "}",
        "const Printer = function Printer(config?: object) {",
        "  return config;",
        "} as any as PrinterConstructor;",
        "export { Printer };",
      ].join("\n"),
      "src/main.ts": [
        'import { Printer } from "./printer";',
        "export function print(node: unknown) {",
        "  return new Printer().print(node);",
        "}",
      ].join("\n"),
      "test/printer.ts": [
        'import { Printer } from "../src/printer";',
        "const printer = new Printer({});",
        "printer.print(null);",
      ].join("\n"),
    };
    assertEquals(
      await definedIn(files, { path: "src/main.ts", name: "print", line: 3 }),
      "src/printer.ts:2",
    );
    const { lines } = await referencesIn(files, {
      path: "src/printer.ts",
      name: "print",
      line: 2,
      shared: true,
    });
    assertEquals(lines, ["src/main.ts:3", "src/printer.ts:2", "test/printer.ts:3"]);
  },
);

nameCase(
  "annotated unions: a value of a union of up to 16 named types is of each; a wider one, 20,000 arms as hostile content may write, is of no evident type and costs its length",
  async () => {
    // The parser nests a long union one arm a level; each arm would be one lookup a member.
    const measure = (count: number) => {
      const arms = Array.from({ length: count - 1 }, (_, i) => `A${i}`).join(" | ");
      return {
        "src/wide.ts": [
          "export interface Box { size: number }",
          `export function measure(value: ${arms} | Box) {`,
          "  return value.size;",
          "}",
        ].join("\n"),
      };
    };
    const at = { path: "src/wide.ts", name: "size", line: 3 };
    assertEquals(await definedIn(measure(16), at), "src/wide.ts:1");
    assertEquals(await definedIn(measure(17), at), null);
    assertEquals(await definedIn(measure(2_000), at), null);
    assertEquals(await definedIn(measure(20_000), at), null);
  },
);

Deno.test("name resolution of mlly and magicast: one parser, case by case", (t) => runCases(t));
