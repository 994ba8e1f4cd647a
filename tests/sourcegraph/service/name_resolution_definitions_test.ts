import { assertEquals } from "../../support/assert.ts";
import { definitionAt } from "../../../sourcegraph/service/name_resolution.ts";
import { fileTypeMember } from "../../../sourcegraph/service/repository_definitions.ts";
import { resolvedReferences, resolverOver } from "../../support/resolved_references.ts";
import { nameCases } from "../../support/name_cases.ts";

// One parser for every case of the file (see `nameCases`).
const { nameCase: definitionCase, runCases, sharedParser } = nameCases();

// The position of the `nth` whole-word occurrence of `name` on line `line` of `path`.
function positionOf(
  files: Record<string, string>,
  at: { path: string; name: string; line: number; nth?: number },
): { path: string; name: string; line: number; column: number } {
  const text = files[at.path].split("\n")[at.line - 1];
  const columns = [...text.matchAll(new RegExp(`\\b${at.name}\\b`, "g"))].map((m) => m.index);
  return { path: at.path, name: at.name, line: at.line, column: columns[at.nth ?? 0] };
}

// The `path:line` `definitionAt` answers for the name at `at`, or null.
async function definedAt(
  files: Record<string, string>,
  at: { path: string; name: string; line: number; nth?: number },
): Promise<string | null> {
  const resolver = resolverOver(sharedParser(), files);
  const found = await definitionAt(resolver, positionOf(files, at));
  return found === null ? null : `${found.path}:${found.line}`;
}

// Two test blocks, each declaring its own class, type and interface of the same names.
const BLOCKS = {
  "tests/count.test.ts": [
    "it('first', () => {", // 1
    "  class CountClass {",
    "    public count: number",
    "    constructor() { this.count = 0 }",
    "  }",
    "  type State = { value: number }",
    "  interface Props { label: string }",
    "  const s: State = { value: 1 }",
    "  function Show({ label }: Props) { return label }",
    "})", // 10
    "it('second', () => {",
    "  class CountClass {",
    "    public count: number",
    "    constructor() { this.count = 0 }",
    "    twice() { return this.count * 2 }",
    "  }",
    "  type State = { value: number }",
    "  interface Props { label: string }",
    "  const s: State = { value: 2 }",
    "  function Show({ label }: Props) { return label }", // 20
    "  const item = load()",
    "  item.label",
    "})",
  ].join("\n"),
};

definitionCase(
  "definitions: `this.member` in a class declared in a block is that class's member, not a same-named class's of another block",
  async () => {
    const path = "tests/count.test.ts";
    assertEquals(await definedAt(BLOCKS, { path, name: "count", line: 14 }), `${path}:13`);
    assertEquals(await definedAt(BLOCKS, { path, name: "count", line: 15 }), `${path}:13`);
    assertEquals(await definedAt(BLOCKS, { path, name: "count", line: 4 }), `${path}:3`);
  },
);

definitionCase(
  "definitions: an object literal's key is a member of the type its annotation names as its block sees it",
  async () => {
    const path = "tests/count.test.ts";
    assertEquals(await definedAt(BLOCKS, { path, name: "value", line: 19 }), `${path}:17`);
    assertEquals(await definedAt(BLOCKS, { path, name: "value", line: 8 }), `${path}:6`);
  },
);

definitionCase(
  "definitions: a name destructured from a parameter of a type declared in a block is that type's member",
  async () => {
    const path = "tests/count.test.ts";
    assertEquals(await definedAt(BLOCKS, { path, name: "label", line: 20 }), `${path}:18`);
  },
);

definitionCase(
  "definitions: a member of a value of no evident type is likeliest that of a type declared in its block",
  async () => {
    const path = "tests/count.test.ts";
    const resolver = resolverOver(sharedParser(), BLOCKS);
    const found = await fileTypeMember(
      resolver,
      positionOf(BLOCKS, { path, name: "label", line: 22 }),
    );
    assertEquals(found && `${found.path}:${found.line}`, `${path}:18`);
  },
);

definitionCase(
  "definitions: an object passed to a method of a store made with a type argument is of that type as its block sees it",
  async () => {
    const path = "tests/store.test.ts";
    const files = {
      [path]: [
        "import { create } from 'zustand'",
        "it('first', () => {",
        "  type State = { count: number }",
        "  const useBoundStore = create<State>()(() => ({ count: 0 }))",
        "  useBoundStore.setState({ count: 5 })",
        "})",
        "it('second', () => {",
        "  type State = { count: number; a: number }",
        "  const useBoundStore = create<State>()(() => ({ count: 0, a: 1 }))",
        "  useBoundStore.setState({ count: 5, a: 9 })", // 10
        "})",
      ].join("\n"),
    };
    assertEquals(await definedAt(files, { path, name: "count", line: 10 }), `${path}:8`);
    assertEquals(await definedAt(files, { path, name: "a", line: 10 }), `${path}:8`);
    assertEquals(await definedAt(files, { path, name: "count", line: 5 }), `${path}:3`);
  },
);

const ARRAYS = {
  "src/state.ts": [
    "export interface Todo { id: number; title: string }",
    "export interface RootState {",
    "  todos: Todo[]",
    "  alerts: { id: number; read: boolean }[]",
    "  items: {",
    "    id: number",
    "    name: string",
    "  }[]",
    "  from: { transform: string }",
    "}", // 10
  ].join("\n"),
  "src/use.ts": [
    'import type { RootState } from "./state"',
    "const state: RootState = {",
    "  todos: [{ id: 0, title: 'a' }],",
    "  alerts: [",
    "    { id: 0, read: false },",
    "  ],",
    "  items: [{ id: 1, name: 'b' }],",
    "  from: { transform: 'none' },",
    "}",
  ].join("\n"),
};

definitionCase(
  "definitions: an object in an array that is a typed literal's property is of that property's element type, named or written",
  async () => {
    const path = "src/use.ts";
    assertEquals(await definedAt(ARRAYS, { path, name: "title", line: 3 }), "src/state.ts:1");
    assertEquals(await definedAt(ARRAYS, { path, name: "id", line: 3 }), "src/state.ts:1");
    assertEquals(await definedAt(ARRAYS, { path, name: "read", line: 5 }), "src/state.ts:4");
    assertEquals(await definedAt(ARRAYS, { path, name: "id", line: 5 }), "src/state.ts:4");
    assertEquals(await definedAt(ARRAYS, { path, name: "name", line: 7 }), "src/state.ts:7");
  },
);

definitionCase(
  "definitions: an object that is a typed literal's property is of the object type written for that property",
  async () => {
    const path = "src/use.ts";
    assertEquals(await definedAt(ARRAYS, { path, name: "transform", line: 8 }), "src/state.ts:9");
  },
);

definitionCase(
  "references: the keys of objects in a typed literal's array are the element type's members",
  async () => {
    const { lines } = await resolvedReferences(sharedParser(), ARRAYS, {
      path: "src/state.ts",
      name: "read",
      line: 4,
    });
    assertEquals(lines, ["src/state.ts:4", "src/use.ts:5"]);
  },
);

definitionCase(
  "definitions: an object passed to a function cast to a function type is of that type's parameter type",
  async () => {
    const files = {
      "src/persist.ts": [
        "export interface PersistOptions { name: string; version?: number }",
        "type Persist = <T>(init: () => T, options: PersistOptions) => T",
        "const persistImpl = (init: () => unknown, options: { name: string }) => init()",
        "export const persist = persistImpl as unknown as Persist",
      ].join("\n"),
      "src/use.ts": [
        'import { persist } from "./persist"',
        "persist(() => 1, { name: 'x', version: 1 })",
      ].join("\n"),
    };
    const path = "src/use.ts";
    assertEquals(await definedAt(files, { path, name: "version", line: 2 }), "src/persist.ts:1");
    assertEquals(await definedAt(files, { path, name: "name", line: 2 }), "src/persist.ts:1");
  },
);

definitionCase(
  "definitions: a JSX attribute of a component declared in a block is a member of its props' type as that block sees it",
  async () => {
    const path = "tests/basic.test.tsx";
    const files = {
      [path]: [
        "const equalityFn = (a: number, b: number) => a === b",
        "it('first', () => {",
        "  type Props = { equalityFn: (a: string) => boolean }",
        "  function Component({ equalityFn }: Props) { return null }",
        "  render(<Component equalityFn={() => true} />)",
        "})",
        "it('second', () => {",
        "  type Props = { selector?: () => number; equalityFn?: (a: number) => boolean }",
        "  function Component({ selector, equalityFn }: Props) { return null }",
        "  render(<Component equalityFn={() => false} />)", // 10
        "})",
      ].join("\n"),
    };
    assertEquals(await definedAt(files, { path, name: "equalityFn", line: 10 }), `${path}:8`);
    assertEquals(await definedAt(files, { path, name: "equalityFn", line: 5 }), `${path}:3`);
  },
);

definitionCase(
  "definitions: a member compared with a string, or a key set to one, is that of the union's arm declaring that literal",
  async () => {
    const path = "src/loadable.ts";
    const files = {
      [path]: [
        "export type Loadable =",
        "  | { state: 'loading' }",
        "  | { state: 'hasError'; error: unknown }",
        "  | { state: 'hasData'; data: number }",
        "export function show(value: Loadable) {",
        "  if (value.state === 'hasError') return value.error",
        "  return { state: 'hasData', data: 1 } as Loadable",
        "}",
        "export const loading = (value: Loadable) => value.state",
      ].join("\n"),
    };
    assertEquals(await definedAt(files, { path, name: "state", line: 6 }), `${path}:3`);
    assertEquals(await definedAt(files, { path, name: "state", line: 7 }), `${path}:4`);
    assertEquals(await definedAt(files, { path, name: "state", line: 9 }), `${path}:2`);
  },
);

definitionCase(
  "definitions: an object set as a value of a map constructed with type arguments is of the map's value type",
  async () => {
    const path = "src/float.ts";
    const files = {
      [path]: [
        "type Animation = {",
        "  from: { transform: string }",
        "  to: { transform: string }",
        "}",
        "const animations = new Map<string, Animation>()",
        "animations.set('float', {",
        "  from: { transform: 'none' },",
        "  to: { transform: 'up' },",
        "})",
      ].join("\n"),
    };
    assertEquals(await definedAt(files, { path, name: "to", line: 8 }), `${path}:3`);
    assertEquals(await definedAt(files, { path, name: "transform", line: 7 }), `${path}:2`);
  },
);

definitionCase(
  "definitions: an element of a value a call written with type arguments made is of those types as its block sees them",
  async () => {
    const path = "tests/map.test.ts";
    const files = {
      [path]: [
        "function proxyMap<K, V>() {", // 1
        "  return [] as [K, V][]",
        "}",
        "it('first', () => {",
        "  interface MapItem { id: number; name: string }",
        "  const state = proxyMap<number, MapItem>()",
        "})",
        "it('second', () => {",
        "  interface MapItem { id: number; name: string }",
        "  const state = proxyMap<number, MapItem>()", // 10
        "  state.forEach((value) => console.log(value.name))",
        "})",
      ].join("\n"),
    };
    const resolver = resolverOver(sharedParser(), files);
    const found = await fileTypeMember(
      resolver,
      positionOf(files, { path, name: "name", line: 11 }),
    );
    assertEquals(found && `${found.path}:${found.line}`, `${path}:9`);
  },
);

Deno.test("definitions: one parser, case by case", (t) => runCases(t));
