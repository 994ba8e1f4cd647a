import { assertEquals } from "../../support/assert.ts";
import { nameCases } from "../../support/name_cases.ts";

// One parser for every case of the file (see `nameCases`).
const { nameCase, referencesIn, runCases } = nameCases();

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

Deno.test("name resolution of mlly and magicast: one parser, case by case", (t) => runCases(t));
