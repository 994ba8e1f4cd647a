import { assertEquals } from "../../support/assert.ts";
import { referencesOf } from "../../../sourcegraph/service/name_references.ts";
import {
  definitionAt,
  NameResolver,
  resolveAt,
} from "../../../sourcegraph/service/name_resolution.ts";
import { resolverOver } from "../../support/resolved_references.ts";
import { nameCases } from "../../support/name_cases.ts";

// One parser for every case of the file (see `nameCases`).
const { nameCase, referencesIn, runCases, sharedParser } = nameCases();

const PROPS_FILES = {
  "src/button.tsx": [
    "export interface ButtonProps { label: string; onPress: () => void }",
    "export function Button(props: ButtonProps) { return <b>{props.label}</b>; }",
    "export function Other(props: { label: string }) { return <Button label={props.label} onPress={() => {}} />; }",
  ].join("\n"),
  "src/app.tsx": [
    'import { Button } from "./button";',
    'import { Card } from "./card";',
    'export const App = () => <div label="x"><Button label="go" onPress={run} /><Card label="c" /></div>;',
  ].join("\n"),
  "src/card.tsx": "export function Card(props: { label: string }) { return <i>{props.label}</i>; }",
};

nameCase(
  "name resolution: a JSX attribute is a property of its component's props, wherever the component is used",
  async () => {
    const { target, lines } = await referencesIn(PROPS_FILES, {
      path: "src/button.tsx",
      name: "label",
      line: 1,
      shared: true,
    });
    assertEquals(target?.container, "ButtonProps");
    // Not the intrinsic `div`'s attribute, nor `Card`'s, declared elsewhere.
    assertEquals(lines, [
      "src/app.tsx:3",
      "src/button.tsx:1",
      "src/button.tsx:2",
      "src/button.tsx:3",
    ]);
  },
);

nameCase(
  "name resolution: the definition of a JSX attribute is the member of its component's props",
  async () => {
    const parser = sharedParser();
    const resolver = resolverOver(parser, PROPS_FILES);
    const column = PROPS_FILES["src/app.tsx"].split("\n")[2].indexOf("onPress");
    const found = await resolveAt(resolver, {
      path: "src/app.tsx",
      name: "onPress",
      line: 3,
      column,
    });
    assertEquals(
      found && { path: found.path, line: found.line, container: found.container },
      { path: "src/button.tsx", line: 1, container: "ButtonProps" },
    );
  },
);

nameCase(
  "name resolution: another file's type of the same name declares another member",
  async () => {
    const { lines } = await referencesIn({
      "src/a.ts": [
        "type Env = { Bindings: { key: string } };",
        "export const read = (env: Env) => env.Bindings;",
      ].join("\n"),
      "src/b.ts": [
        "type Env = { Bindings: { token: string } };",
        "export const other = (env: Env) => env.Bindings;",
      ].join("\n"),
    }, { path: "src/a.ts", name: "Bindings", line: 1, shared: true });
    assertEquals(lines, ["src/a.ts:1", "src/a.ts:2"]);
  },
);

nameCase(
  "name resolution: a member of a class is also used through the interface it implements",
  async () => {
    const { target, lines } = await referencesIn({
      "src/router.ts": "export interface Router { add(path: string): void }",
      "src/smart.ts": [
        'import type { Router } from "./router";',
        "export class SmartRouter implements Router {",
        "  add(path: string): void {}",
        "}",
      ].join("\n"),
      "src/use.ts": [
        'import type { Router } from "./router";',
        "export function build(router: Router) { router.add('/'); }",
      ].join("\n"),
      "src/other.ts": [
        "export class Set2 { add(value: number): void {} }",
        "export function fill(set: Set2) { set.add(1); }",
      ].join("\n"),
    }, { path: "src/smart.ts", name: "add", line: 3, shared: true });
    assertEquals(target?.heritage, ["Router"]);
    assertEquals(lines, ["src/router.ts:1", "src/smart.ts:3", "src/use.ts:2"]);
  },
);

nameCase(
  "name resolution: an object literal passed to a function is of its parameter's type, named or written inline",
  async () => {
    const files = {
      "src/auth.ts": [
        "export interface AuthOptions { username: string; realm?: string }",
        "export const auth = (options: AuthOptions) => options.username;",
        "export function jwt(secret: string, options: { alg: string; realm?: string }) { return options.alg; }",
      ].join("\n"),
      "src/app.ts": [
        'import { auth, jwt } from "./auth";',
        "const username = 'u';",
        "auth({ username, realm: 'r' });",
        "jwt('s', { alg: 'HS256', realm: 'x' });",
        "other({ username: 'v', alg: 'none' });",
        "function other(value: { username: string; alg: string }) { return value; }",
      ].join("\n"),
    };
    const named = await referencesIn(files, {
      path: "src/auth.ts",
      name: "username",
      line: 1,
      shared: true,
    });
    // The shorthand `{ username }` is the property too; `other`'s parameter is another type.
    assertEquals(named.lines, ["src/app.ts:3", "src/auth.ts:1", "src/auth.ts:2"]);
    const inline = await referencesIn(files, {
      path: "src/auth.ts",
      name: "alg",
      line: 3,
      shared: true,
    });
    assertEquals(inline.target?.parameter, { line: 3, index: 1, to: 3 });
    assertEquals(inline.lines, ["src/app.ts:4", "src/auth.ts:3"]);
    // From the argument, the definition is the parameter's member.
    const fromUse = await referencesIn(files, {
      path: "src/app.ts",
      name: "alg",
      line: 4,
      shared: true,
    });
    assertEquals([fromUse.target?.path, fromUse.target?.line], ["src/auth.ts", 3]);
    assertEquals(fromUse.lines, inline.lines);
  },
);

nameCase(
  "name resolution: the elements of a typed array and objects written `as` or `satisfies` a type are of that type",
  async () => {
    const { lines } = await referencesIn({
      "src/route.ts": "export interface Route { method: string; path: string }",
      "src/routes.ts": [
        'import type { Route } from "./route";',
        "export const routes: Route[] = [",
        "  { method: 'GET', path: '/a' },",
        "];",
        "export const one = { method: 'PUT', path: '/b' } satisfies Route;",
        "export const two = { method: 'POST', path: '/c' } as Route;",
        "export const untyped = [{ method: 'DELETE', path: '/d' }];",
        "export const make = () => ({ method: 'HEAD', path: '/e' }) as Route;",
        "export const made = () => ({ method: 'HEAD', path: '/f' });",
      ].join("\n"),
    }, { path: "src/route.ts", name: "path", line: 1, shared: true });
    assertEquals(lines, [
      "src/route.ts:1",
      "src/routes.ts:3",
      "src/routes.ts:5",
      "src/routes.ts:6",
      "src/routes.ts:8",
    ]);
  },
);

nameCase(
  "name resolution: an object pushed onto an array annotated with a named element type is of that type",
  async () => {
    const { lines } = await referencesIn({
      "src/patch.ts": "export interface Patch { op: string; path: string[] }",
      "src/patches.ts": [
        'import type { Patch } from "./patch";',
        "export function record(patches: Patch[], inverse: readonly Patch[], op: string) {",
        "  patches.push({ op, path: [] });",
        "  inverse.unshift({ op: 'remove', path: [] });",
        "  const list: Array<Patch> = [];",
        "  list.push({ op: 'add', path: [] });",
        "  const untyped = [];",
        "  untyped.push({ op: 'x', path: [] });",
        "  const notes: Patch[] = [];",
        "  notes.includes({ op: 'y', path: [] });",
        "  patches.push(op ? { op, path: [] } : { op: 'z', path: [] });",
        "}",
      ].join("\n"),
    }, { path: "src/patch.ts", name: "path", line: 1, shared: true });
    // Not the untyped array's element, nor an object passed to another method of a typed array.
    assertEquals(lines, [
      "src/patch.ts:1",
      "src/patches.ts:3",
      "src/patches.ts:4",
      "src/patches.ts:6",
      "src/patches.ts:11",
    ]);
  },
);

nameCase(
  "name resolution: an object assigned to an annotated variable or to a class's annotated field is of its type",
  async () => {
    const { lines } = await referencesIn({
      "src/options.ts": "export interface Options { method: string; retry: number }",
      "src/client.ts": [
        'import type { Options } from "./options";',
        "export class Client {",
        "  #options: Options;",
        "  other = { method: 'GET' };",
        "  constructor() {",
        "    this.#options = { method: 'GET', retry: 2 };",
        "    this.other = { method: 'PUT' };",
        "    let current: Options | undefined;",
        "    current = { method: 'POST', retry: 0 };",
        "    let loose;",
        "    loose = { method: 'DELETE' };",
        "    this[STATE] = { method: 'PATCH', retry: 1 };",
        "    this[OTHER] = { method: 'OPTIONS' };",
        "  }",
        "  [STATE]: Options;",
        "}",
      ].join("\n"),
    }, { path: "src/options.ts", name: "method", line: 1, shared: true });
    // Not the untyped field's literals, an unannotated variable's, nor a key the class does not
    // declare.
    assertEquals(lines, [
      "src/client.ts:6",
      "src/client.ts:9",
      "src/client.ts:12",
      "src/options.ts:1",
    ]);
  },
);

nameCase(
  "name resolution: a property of an object literal of a named type is the type's, as is every other literal's of that type",
  async () => {
    const { lines } = await referencesIn({
      "src/store.ts": "export interface Store { get(): string | null }",
      "src/stores.ts": [
        'import type { Store } from "./store";',
        "export const empty: Store = {",
        "  get() { return null; },",
        "};",
        "export const full: Store = {",
        "  get() { return 'x'; },",
        "};",
        "empty.get();",
      ].join("\n"),
    }, { path: "src/stores.ts", name: "get", line: 3, shared: true });
    // As the compiler's language service answers from line 3: the interface's method, each
    // literal's and `empty.get()`.
    assertEquals(lines, [
      "src/store.ts:1",
      "src/stores.ts:3",
      "src/stores.ts:6",
      "src/stores.ts:8",
    ]);
  },
);

nameCase(
  "name resolution: the arms of a union type alias and the objects returned as a named type are of that type",
  async () => {
    const files = {
      "src/options.ts": [
        "export type Options = { token: string; prefix?: string } | { verify: () => boolean; prefix?: string };",
        "export interface Result { items: string[] }",
        "export function read(options: Options) { return options.prefix; }",
        "export async function load(): Promise<Result> { return { items: [] }; }",
        "export const make = (): Result => ({ items: ['a'] });",
        "export function other() { return { items: 1, prefix: 'x' }; }",
      ].join("\n"),
    };
    const union = await referencesIn(files, {
      path: "src/options.ts",
      name: "prefix",
      line: 1,
      shared: true,
    });
    assertEquals(union.target?.container, "Options");
    assertEquals(union.lines, ["src/options.ts:1", "src/options.ts:3"]);
    const returned = await referencesIn(files, {
      path: "src/options.ts",
      name: "items",
      line: 2,
      shared: true,
    });
    assertEquals(returned.lines, ["src/options.ts:2", "src/options.ts:4", "src/options.ts:5"]);
  },
);

const CALLBACK_FILES = {
  "src/types.ts": [
    "export interface Event { readonly res: number }",
    "export interface Handler { (event: Event): unknown }",
    "export type Middleware = (event: Event, next: () => void) => void;",
    "export interface Context { res: string }",
  ].join("\n"),
  "src/event.ts": [
    'import type { Event } from "./types";',
    "export class AppEvent implements Event { get res() { return 1; } }",
  ].join("\n"),
  "src/app.ts": [
    'import type { Context, Event, Handler, Middleware } from "./types";',
    "export class App { get(route: string, handler: Handler | App): this { return this; } use(mw: Middleware) {} }",
    "export function each(fn: (context: Context, event: Event) => void) {}",
  ].join("\n"),
  "src/use.ts": [
    'import type { Event } from "./types";',
    'import { App, each } from "./app";',
    "const app = new App();",
    "app.get('/', (event) => event.res);",
    "app.use((e, next) => e.res);",
    "each((context, event) => event.res);",
    "each((context) => context.res);",
    "each(({ res }, event) => res);",
    "export const typed = (event: Event) => event;",
  ].join("\n"),
  "src/handler.ts": [
    'import type { Handler } from "./types";',
    "export const handler: Handler = async (event) => event.res;",
  ].join("\n"),
};

nameCase(
  "name resolution: a callback's parameter is of the type the callee's parameter gives it, or the function's own annotated type",
  async () => {
    const { lines } = await referencesIn(CALLBACK_FILES, {
      path: "src/event.ts",
      name: "res",
      line: 2,
      shared: true,
    });
    // The handler's `event` (a named call signature), the middleware's `e` (a function type
    // alias) and the inline function type's second parameter are Events; the inline type's
    // first parameter is a Context, whose `res` is its own, though use.ts names Event.
    assertEquals(lines, [
      "src/event.ts:2",
      "src/handler.ts:2",
      "src/types.ts:1",
      "src/use.ts:4",
      "src/use.ts:5",
      "src/use.ts:6",
    ]);
    const resolver = resolverOver(sharedParser(), CALLBACK_FILES);
    const line = CALLBACK_FILES["src/use.ts"].split("\n")[3];
    const found = await resolveAt(resolver, {
      path: "src/use.ts",
      name: "res",
      line: 4,
      column: line.lastIndexOf("res"),
    });
    assertEquals(found && { path: found.path, line: found.line }, {
      path: "src/types.ts",
      line: 1,
    });
  },
);

nameCase(
  "name resolution: an anonymous object type inside a type argument, a function type or a cast is known in its statement only",
  async () => {
    const files = {
      "src/store.test.ts": [
        "describe('redux', () => {",
        "  let api: Store<{",
        "    dispatch: (action: { type: 'INC' }) => void",
        "  }>",
        "  it('works', () => {",
        "    api = create(redux(({ count }, { type }: { type: 'INC' } | { type: 'DEC' }) => ({ count })))",
        "    api.dispatch({ type: 'INC' })",
        "    const next = (state as { type: string }).type",
        "    const envelope = JSON.parse(text) as { error: { code: string } }",
        "    expect(envelope.error.code).toBe('x')",
        "    const app = new App<{ Bindings: { type: string } }>()",
        "    app.get('/', (c) => c.env.type)",
        "    return next",
        "  })",
        "})",
      ].join("\n"),
    };
    const inArgument = await referencesIn(files, {
      path: "src/store.test.ts",
      name: "type",
      line: 3,
      shared: true,
    });
    assertEquals(inArgument.lines, ["src/store.test.ts:3"]);
    const cast = await referencesIn(files, {
      path: "src/store.test.ts",
      name: "type",
      line: 8,
      shared: true,
    });
    assertEquals(cast.lines, ["src/store.test.ts:8"]);
    // A constructor's type argument types the instance, wherever it is used.
    const constructed = await referencesIn(files, {
      path: "src/store.test.ts",
      name: "type",
      line: 11,
      shared: true,
    });
    assertEquals(constructed.lines.includes("src/store.test.ts:12"), true);
    // A cast's value set to a variable is used wherever the variable is.
    const assigned = await referencesIn(files, {
      path: "src/store.test.ts",
      name: "code",
      line: 9,
      shared: true,
    });
    assertEquals(assigned.lines, ["src/store.test.ts:9", "src/store.test.ts:10"]);
  },
);

nameCase(
  "name resolution: a type declared in a function body is known in that body only",
  async () => {
    const { lines } = await referencesIn({
      "src/basic.test.ts": [
        "it('reads', () => {",
        "  type State = { value: number }",
        "  const read = (s: State) => s.value",
        "  expect(store.getState().value).toBe(1)",
        "})",
        "it('reads again', () => {",
        "  interface State { value: string }",
        "  expect(store.getState().value).toBe('x')",
        "})",
      ].join("\n"),
    }, { path: "src/basic.test.ts", name: "value", line: 2, shared: true });
    assertEquals(lines, ["src/basic.test.ts:2", "src/basic.test.ts:3", "src/basic.test.ts:4"]);
  },
);

nameCase(
  "name resolution: objects a callback returns to a call written with a type argument are of that type",
  async () => {
    const files = {
      "src/counter.test.ts": [
        "type CounterState = { count: number; inc: () => void }",
        "const useA = create<CounterState>((set) => ({",
        "  count: 0,",
        "  inc: () => set((s) => ({ count: s.count + 1 })),",
        "  reset: () => set(() => ({ count: 0 })),",
        "}))",
        "const useB = create<CounterState>()(devtools((set) => ({ count: 1, inc: () => {} }), { count: 2 }))",
        "const useC = create(() => ({ count: 3 }))",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/counter.test.ts",
      name: "count",
      line: 1,
      shared: true,
    });
    // Not the options object (line 7's second argument is not returned), nor an untyped call's.
    // Line 5: returned by a callback of a call inside the one written with the type argument.
    assertEquals(lines, [
      "src/counter.test.ts:1",
      "src/counter.test.ts:3",
      "src/counter.test.ts:4",
      "src/counter.test.ts:5",
      "src/counter.test.ts:7",
    ]);
    const resolver = resolverOver(sharedParser(), files);
    const found = await definitionAt(resolver, {
      path: "src/counter.test.ts",
      name: "count",
      line: 3,
      column: 2,
    });
    assertEquals(found && { path: found.path, line: found.line }, {
      path: "src/counter.test.ts",
      line: 1,
    });
  },
);

nameCase(
  "name resolution: an array's members are the platform's, and a platform method's name is no sign of the target",
  async () => {
    const { lines } = await referencesIn({
      "src/stream.ts": [
        "export class EventStream {",
        "  async push(message: string): Promise<void> {",
        "    const sent: string[] = [];",
        "    const queue = [];",
        "    sent.push(message);",
        "    queue.push(message);",
        "    this.push(message);",
        "  }",
        "}",
      ].join("\n"),
      "src/app.ts": "export function use(list) { list.push(1); }",
      "src/sse.ts": [
        'import { EventStream } from "./stream";',
        "export function send(stream: EventStream, other) { stream.push('a'); other.push('b'); }",
      ].join("\n"),
    }, { path: "src/stream.ts", name: "push", line: 2 });
    // `push` is Array's too: a receiver of no evident type is the target's only in a file naming
    // its type (sse.ts), as for a name other types of the files declare.
    assertEquals(lines, ["src/sse.ts:2", "src/stream.ts:2", "src/stream.ts:7"]);
  },
);

nameCase(
  "name resolution: an object type wrapped in Readonly or Partial is its alias's type",
  async () => {
    const { target, lines } = await referencesIn({
      "src/seal.ts": [
        "export type SealOptions = Readonly<{ encryption: string; ttl: number }>;",
        "export function seal(opts: SealOptions) { return opts.encryption; }",
      ].join("\n"),
      "src/other.ts": [
        "type Other = { encryption: boolean };",
        "export const read = (value: Other) => value.encryption;",
      ].join("\n"),
    }, { path: "src/seal.ts", name: "encryption", line: 1, shared: true });
    assertEquals(target?.container, "SealOptions");
    assertEquals(lines, ["src/seal.ts:1", "src/seal.ts:2"]);
  },
);

nameCase(
  "name resolution: a variable set from a property of a value of evident type, or destructured from it, is of that property's annotated type",
  async () => {
    const { target, lines } = await referencesIn({
      "src/plugins.ts": [
        "export type PatchesPlugin = { getPath: (state: string) => string[] };",
        "export type ArrayPlugin = { getPath: () => number };",
        "export interface Scope { patchPlugin_?: PatchesPlugin; arrayPlugin_?: ArrayPlugin }",
      ].join("\n"),
      "src/finalize.ts": [
        'import type { Scope } from "./plugins";',
        "export function run(scope: Scope) {",
        "  const { patchPlugin_ } = scope;",
        '  patchPlugin_!.getPath("a");',
        "  const plugin = scope.patchPlugin_!;",
        '  plugin?.getPath("b");',
        "  const array = scope.arrayPlugin_;",
        "  array.getPath();",
        "  const { arrayPlugin_: renamed } = scope;",
        "  renamed.getPath();",
        "}",
      ].join("\n"),
    }, { path: "src/plugins.ts", name: "getPath", line: 1, shared: true });
    assertEquals(target?.container, "PatchesPlugin");
    // finalize.ts names neither plugin type: its receivers are typed through `Scope`'s
    // properties, the array plugin's (lines 8 and 10) another type's.
    assertEquals(lines, ["src/finalize.ts:4", "src/finalize.ts:6", "src/plugins.ts:1"]);
  },
);

nameCase(
  "name resolution: a member of a value of a union type is the member of every arm declaring it",
  async () => {
    const files = {
      "src/state.ts": [
        "export interface ObjectState { type_: 0; copy_: object | null }",
        "export interface MapState { type_: 1; copy_: Map<string, number> | undefined }",
        "export type AnyState = ObjectState | MapState;",
        "export interface Other { copy_: string }",
      ].join("\n"),
      "src/use.ts": [
        'import type { AnyState, MapState, Other } from "./state";',
        "export const latest = (state: AnyState) => state.copy_;",
        "export const other = (o: Other) => o.copy_;",
        "export const map = (m: MapState) => m.copy_;",
      ].join("\n"),
    };
    const at = { path: "src/state.ts", name: "copy_", shared: true };
    const map = await referencesIn(files, { ...at, line: 2 });
    assertEquals(map.target?.container, "MapState");
    assertEquals(map.lines, ["src/state.ts:2", "src/use.ts:2", "src/use.ts:4"]);
    const object = await referencesIn(files, { ...at, line: 1 });
    assertEquals(object.lines, ["src/state.ts:1", "src/use.ts:2"]);
  },
);

nameCase(
  "name resolution: `this` in an object literal's method is that literal",
  async () => {
    const files = {
      "src/counter.ts": [
        "export const counter = {",
        "  count: 0,",
        "  inc() { this.count++; },",
        "  get double() { return this.count * 2; },",
        "};",
        "export class Other { count = 1; read() { return this.count; } }",
      ].join("\n"),
      "src/other.ts":
        "export const plain = { count: 5, show: function () { return this.count; } };",
    };
    const { lines } = await referencesIn(files, { path: "src/counter.ts", name: "count", line: 2 });
    // Not the class's own `this`, nor another literal's.
    assertEquals(lines, ["src/counter.ts:2", "src/counter.ts:3", "src/counter.ts:4"]);
    const resolver = resolverOver(sharedParser(), files);
    const column = files["src/counter.ts"].split("\n")[2].indexOf("count");
    const found = await definitionAt(resolver, {
      path: "src/counter.ts",
      name: "count",
      line: 3,
      column,
    });
    assertEquals(found && { path: found.path, line: found.line }, {
      path: "src/counter.ts",
      line: 2,
    });
  },
);

nameCase(
  "name resolution: the value type of a mapped type indexed by its keys is its alias's",
  async () => {
    const { target, lines } = await referencesIn({
      "src/hookable.ts": [
        "type SpyEvent<HT> = {",
        "  [key in keyof HT]: { name: key; args: unknown[] };",
        "}[keyof HT];",
        "export class Hookable<HT> {",
        "  beforeEach(fn: (event: SpyEvent<HT>) => void): void {}",
        "}",
      ].join("\n"),
      "src/debugger.ts": [
        'import type { Hookable } from "./hookable";',
        "export function debug(hooks: Hookable<any>, other: { name: string }) {",
        "  hooks.beforeEach((event) => console.log(event.name));",
        "  return other.name;",
        "}",
      ].join("\n"),
    }, { path: "src/hookable.ts", name: "name", line: 2, shared: true });
    assertEquals(target?.container, "SpyEvent");
    assertEquals(lines, ["src/debugger.ts:3", "src/hookable.ts:2"]);
  },
);

nameCase(
  "name resolution: a file too large to parse holds no references of a resolved declaration",
  async () => {
    const files: Record<string, string | null> = {
      "src/state.ts":
        "export interface RootState { todos: string[] }\nexport const read = (s: RootState) => s.todos;",
      // A bundled release past the parse limit: its whole-word lines cannot be resolved.
      ".yarn/releases/yarn.cjs": null,
    };
    const text = (path: string) => Promise.resolve(files[path] ?? null);
    const resolver = new NameResolver(sharedParser(), {
      text,
      exists: (path) => Promise.resolve(path in files),
    });
    const target = await resolveAt(resolver, {
      path: "src/state.ts",
      name: "todos",
      line: 1,
      column: 29,
    });
    assertEquals(target?.container, "RootState");
    const matches = [
      {
        path: "src/state.ts",
        matchCount: 2,
        lines: (files["src/state.ts"] ?? "").split("\n").map((t, i) => ({
          number: i + 1,
          text: t,
        })),
      },
      {
        path: ".yarn/releases/yarn.cjs",
        matchCount: 1,
        lines: [{ number: 9, text: "e.todos=[]" }],
      },
    ];
    const page = await referencesOf(sharedParser(), matches, {
      name: "todos",
      includeDeclaration: true,
      text,
      resolved: { resolver, target: target! },
    });
    assertEquals(page.files.map((file) => [file.path, file.parse, file.lines.length]), [
      ["src/state.ts", "parsed", 2],
      [".yarn/releases/yarn.cjs", "large", 0],
    ]);
  },
);

nameCase(
  "name resolution: a value annotated with another file's type of the target's type name, whose members are not evident, is not of the target's type",
  async () => {
    const { lines } = await referencesIn({
      "docs/basic.ts": [
        "export interface RootState {",
        "  todos: { id: number }[]",
        "}",
        "const select = createSelector([(state: RootState) => state.todos], (todos) => todos);",
      ].join("\n"),
      // Another `RootState`, inferred from a reducer: its members are not written.
      "test/testUtils.ts": [
        "const rootReducer = () => ({ todos: [] });",
        "export type RootState = ReturnType<typeof rootReducer>;",
      ].join("\n"),
      "test/bench/select.bench.ts": [
        'import type { RootState } from "../testUtils";',
        "const select = createSelector([(state: RootState) => state.todos], (todos) => todos);",
        "const read = (state: RootState) => state.todos;",
      ].join("\n"),
      "docs/use.ts": [
        'import type { RootState } from "./basic";',
        "const read = (state: RootState) => state.todos;",
      ].join("\n"),
    }, { path: "docs/basic.ts", name: "todos", line: 2, shared: true });
    assertEquals(lines, ["docs/basic.ts:2", "docs/basic.ts:4", "docs/use.ts:2"]);
  },
);

nameCase(
  "name resolution: a parameter's anonymous type in a function without a name is that function's alone",
  async () => {
    const { lines } = await referencesIn({
      "type-tests/limits.test-d.ts": [
        "test('limits', () => {",
        "  const selector = createSelector(",
        "    (state: { testString: string }) => state.testString,",
        "    (state: { testNumber: number }) => state.testNumber,",
        "    (state: { testString: string }) =>",
        "      state.testString,",
        "  );",
        "  const other = items.map(function (state: { testString: string }) { return state.testString; });",
        "});",
      ].join("\n"),
    }, { path: "type-tests/limits.test-d.ts", name: "testString", line: 5 });
    assertEquals(lines, ["type-tests/limits.test-d.ts:5", "type-tests/limits.test-d.ts:6"]);
    // Its callee may give the type to another function's parameters, of no evident type.
    const family = await referencesIn({
      "test/family.test.ts": [
        "const family = atomFamily(",
        "  (num: { index: number }) => atom(num.index),",
        "  (l, r) => l.index === r.index,",
        ");",
      ].join("\n"),
    }, { path: "test/family.test.ts", name: "index", line: 2 });
    assertEquals(family.lines, ["test/family.test.ts:2", "test/family.test.ts:3"]);
  },
);

nameCase(
  "name resolution: a parameter of a function passed to a package's function is of no type the files declare",
  async () => {
    const { lines } = await referencesIn({
      "website/links.tsx": [
        'import { memo } from "react";',
        'import { wrap } from "./wrap";',
        "interface Props {",
        "  readonly text?: string",
        "}",
        "export const Links = {",
        "  WeakMap: memo(({ text = 'WeakMap' }) => <code>{text}</code>),",
        "  Other: memo((props) => <code>{props.text}</code>),",
        "  Own: wrap((props) => <code>{props.text}</code>),",
        "};",
      ].join("\n"),
      "website/wrap.ts": "export function wrap(make: (props: any) => unknown) { return make; }",
    }, { path: "website/links.tsx", name: "text", line: 4 });
    // Not the parameters of `react`'s `memo` (not a file of the tree); still a function of the
    // files whose parameter's type is not evident.
    assertEquals(lines, ["website/links.tsx:4", "website/links.tsx:9"]);
  },
);

Deno.test("name resolution: one parser, case by case", (t) => runCases(t));

nameCase(
  "name resolution: a base type the files do not declare says nothing of a receiver",
  async () => {
    const { target, lines } = await referencesIn({
      "src/http_exception.ts": [
        'import type { Transport } from "@sdk/transport";',
        "export class HTTPException extends Error implements Transport {",
        "  readonly status: number = 500;",
        "  start(): void {}",
        "}",
      ].join("\n"),
      "src/app.ts": [
        "export const fail = () => { throw new Error('x'); };",
        "export const send = (res: Response, transport: Transport) => res.status;",
      ].join("\n"),
      "src/handler.ts": [
        'import { HTTPException } from "./http_exception";',
        "export const made = (e: HTTPException) => e.status;",
        "export const other = (res) => res.status;",
      ].join("\n"),
    }, { path: "src/http_exception.ts", name: "status", line: 3, shared: true });
    // Neither the global `Error` nor the package's `Transport` is declared in the files: a file
    // naming them (app.ts) is no evidence; a value of the class itself, or of no evident type in
    // a file naming the class, is.
    assertEquals(target?.heritage, []);
    assertEquals(lines, ["src/handler.ts:2", "src/handler.ts:3", "src/http_exception.ts:3"]);
  },
);

nameCase(
  "name resolution: an import through the root configuration's path mapping leads to the mapped file",
  async () => {
    const { target, lines } = await referencesIn({
      "tsconfig.json": [
        "{",
        "  // Workspace aliases.",
        '  "compilerOptions": { "paths": { "@app/core/*": ["./core/*"], "@app/log": ["core/log.ts"], }, },',
        "}",
      ].join("\n"),
      "core/state/paged.ts": "export class PagedState { pages(): number { return 1; } }",
      "core/log.ts": "export function log(message: string): void {}",
      "web/screen.ts": [
        'import { PagedState } from "@app/core/state/paged.js";',
        'import { log } from "@app/log";',
        "export const state = new PagedState();",
        "log(String(state.pages()));",
      ].join("\n"),
      "web/other.ts": [
        'import { PagedState } from "@other/state";',
        "export const other = new PagedState();",
      ].join("\n"),
    }, { path: "core/state/paged.ts", name: "PagedState", line: 1 });
    assertEquals(target?.path, "core/state/paged.ts");
    // Not the class of the same name from a module the mapping does not name.
    assertEquals(lines, ["core/state/paged.ts:1", "web/screen.ts:1", "web/screen.ts:3"]);
    const logged = await referencesIn({
      "tsconfig.json": '{ "compilerOptions": { "paths": { "@app/log": ["core/log.ts"] } } }',
      "core/log.ts": "export function log(message: string): void {}",
      "web/screen.ts": 'import { log } from "@app/log";\nlog("x");',
    }, { path: "core/log.ts", name: "log", line: 1 });
    assertEquals(logged.lines, ["core/log.ts:1", "web/screen.ts:1", "web/screen.ts:2"]);
  },
);

nameCase(
  "name resolution: another anonymous object type and a global's member are not an anonymous type's member",
  async () => {
    const { lines } = await referencesIn({
      "src/rows.ts": [
        "export function a() { const rows: { id: string; body: string }[] = []; return rows; }",
        "export function b() { const rows: { id: string; body: string }[] = []; return rows; }",
        "export function c(): string | undefined { return process.env.body ?? window.body; }",
        "export function d(row) { return row.body; }",
      ].join("\n"),
    }, { path: "src/rows.ts", name: "body", line: 1, shared: true });
    // Line 4's receiver is of no evident type: in the type's own file it may be the target's.
    assertEquals(lines, ["src/rows.ts:1", "src/rows.ts:4"]);
  },
);

nameCase("name resolution: a member of a global is of no type the files declare", async () => {
  const { lines } = await referencesIn({
    "src/config.ts": "export interface Config { env: Record<string, string> }",
    "src/load.ts": [
      'import type { Config } from "./config";',
      "export const load = (config: Config) => config.env;",
      "export const home = () => process.env.HOME;",
      "export const other = (value) => value.env;",
    ].join("\n"),
  }, { path: "src/config.ts", name: "env", line: 1, shared: true });
  assertEquals(lines, ["src/config.ts:1", "src/load.ts:2", "src/load.ts:4"]);
});

nameCase(
  "name resolution: objects passed to the same callee the files do not declare share its parameter's members",
  async () => {
    const { lines } = await referencesIn({
      "src/a.ts":
        "export const a = new ReadableStream({ start(controller) { controller.close(); } });",
      "src/b.ts": [
        "export const b = new ReadableStream({ async start(controller) {} });",
        "export const c = new WritableStream({ start() {} });",
        "export const d = { start() {} };",
      ].join("\n"),
    }, { path: "src/a.ts", name: "start", line: 1, shared: true });
    assertEquals(lines, ["src/a.ts:1", "src/b.ts:1"]);
  },
);

nameCase(
  "name resolution: classes implementing the interface that declares a method share it",
  async () => {
    const { target, lines } = await referencesIn({
      "src/router.ts": "export interface Router { add(path: string): void }",
      "src/smart.ts": [
        'import type { Router } from "./router";',
        "export class SmartRouter implements Router {",
        "  add(path: string): void {}",
        "}",
      ].join("\n"),
      "src/pattern.ts": [
        'import type { Router } from "./router";',
        "export class PatternRouter implements Router {",
        "  add(path: string): void { this.add(path + '/'); }",
        "}",
        "export class Bag { add(item: string): void { this.add(item); } }",
      ].join("\n"),
      "src/pattern.test.ts": [
        'import { PatternRouter, Bag } from "./pattern";',
        "const router = new PatternRouter();",
        "router.add('/book');",
        "const bag = new Bag();",
        "bag.add('book');",
      ].join("\n"),
    }, { path: "src/smart.ts", name: "add", line: 3, shared: true });
    assertEquals(target?.bases, ["Router"]);
    // A value of another class implementing `Router` calls the same member; `Bag`'s is another.
    assertEquals(lines, [
      "src/pattern.test.ts:3",
      "src/pattern.ts:3",
      "src/router.ts:1",
      "src/smart.ts:3",
    ]);
  },
);

nameCase(
  "name resolution: `from '..'` is the parent folder's index file; an intrinsic JSX element is no value",
  async () => {
    const { lines } = await referencesIn({
      "src/jsx/index.ts": "export const html = (text: string) => text;",
      "src/jsx/dom/page.test.tsx": [
        "import { html } from '..';",
        "export const page = () => <html><body>{html('x')}</body></html>;",
        "export const other = () => <html />;",
      ].join("\n"),
    }, { path: "src/jsx/index.ts", name: "html", line: 1 });
    assertEquals(lines, [
      "src/jsx/dom/page.test.tsx:1",
      "src/jsx/dom/page.test.tsx:2",
      "src/jsx/index.ts:1",
    ]);
  },
);

nameCase(
  "name resolution: a declaration inside `declare module` merges into that module's own declaration",
  async () => {
    const files = {
      "src/context.ts": [
        "export interface ContextVariableMap {}",
        "export type Get = <Key extends keyof ContextVariableMap>(key: Key) => void;",
      ].join("\n"),
      "src/context.test.ts": [
        "declare module './context' {",
        "  interface ContextVariableMap { user: string }",
        "}",
      ].join("\n"),
      "src/index.ts": "export type { ContextVariableMap } from './context';",
      "src/middleware/timing/index.ts": [
        "declare module '../..' {",
        "  interface ContextVariableMap extends TimingVariables {}",
        "}",
      ].join("\n"),
      "src/middleware/jwt/index.ts": [
        "declare module '../..' {",
        "  interface ContextVariableMap extends JwtVariables {}",
        "}",
      ].join("\n"),
      "src/middleware/plugin/index.ts": [
        "declare module 'other-package' {",
        "  interface ContextVariableMap { user: string }",
        "}",
      ].join("\n"),
    };
    const { target, lines } = await referencesIn(files, {
      path: "src/context.test.ts",
      name: "ContextVariableMap",
      line: 2,
    });
    assertEquals(target && `${target.path}:${target.line}`, "src/context.ts:1");
    assertEquals(lines, [
      "src/context.test.ts:2",
      "src/context.ts:1",
      "src/context.ts:2",
      "src/index.ts:1",
    ]);
    // `../..` only re-exports the name: its augmentations are one declaration, the compiler's
    // references do not reach the re-exported one.
    const augmented = await referencesIn(files, {
      path: "src/middleware/timing/index.ts",
      name: "ContextVariableMap",
      line: 2,
    });
    assertEquals(augmented.target?.path, "src/middleware/timing/index.ts");
    assertEquals(augmented.lines, [
      "src/middleware/jwt/index.ts:2",
      "src/middleware/timing/index.ts:2",
    ]);
    // The augmentation of a package the files do not hold is its own declaration.
    const own = await referencesIn(files, {
      path: "src/middleware/plugin/index.ts",
      name: "ContextVariableMap",
      line: 2,
    });
    assertEquals(own.lines, ["src/middleware/plugin/index.ts:2"]);
  },
);

nameCase(
  "name resolution: a type a file imports under another name is not the file's own type of that name",
  async () => {
    const { target, lines } = await referencesIn({
      "src/middleware/serve.ts": "export type ServeOptions = { root?: string; manifest?: string };",
      "src/adapter/serve.ts": [
        "import type { ServeOptions as BaseServeOptions } from '../middleware/serve';",
        "export type ServeOptions = BaseServeOptions & { manifest?: object };",
        "export const serve = (options: ServeOptions = {}) => options.manifest;",
      ].join("\n"),
      "src/adapter/serve.test.ts": [
        "import { serve } from './serve';",
        "const manifest = {};",
        "serve({ root: './assets', manifest });",
        "serve({ manifest: manifest });",
      ].join("\n"),
    }, { path: "src/adapter/serve.ts", name: "manifest", line: 2, shared: true });
    assertEquals(target?.container, "ServeOptions");
    // The objects passed to `serve` are of the adapter's `ServeOptions` (line 2), not of the
    // middleware's it imports as `BaseServeOptions`.
    assertEquals(lines, [
      "src/adapter/serve.test.ts:3",
      "src/adapter/serve.test.ts:4",
      "src/adapter/serve.ts:2",
      "src/adapter/serve.ts:3",
    ]);
  },
);

nameCase(
  "name resolution: an anonymous object type written in a function body is not another function's",
  async () => {
    const { lines } = await referencesIn({
      "src/fetch.test.ts": [
        "it('tracks', () => {",
        "  const bodies: Array<{ id: string; body: string }> = [];",
        "  track((id, body) => bodies.push({ id, body }));",
        "  expect(bodies[0].body).toBe('x');",
        "});",
        "it('tracks again', () => {",
        "  const bodies: Array<{ id: string; body: string }> = [];",
        "  track((id, body) => bodies.push({ id, body }));",
        "  expect(bodies[0].body).toBe('y');",
        "});",
      ].join("\n"),
    }, { path: "src/fetch.test.ts", name: "body", line: 2, shared: true });
    assertEquals(lines, ["src/fetch.test.ts:2", "src/fetch.test.ts:3", "src/fetch.test.ts:4"]);
  },
);

nameCase(
  "name resolution: the definition of a name destructured from a typed parameter is the type's property",
  async () => {
    const files: Record<string, string> = {
      "src/replay.tsx": [
        "export interface ReplayProps { onReplay: () => void; label?: string }",
        "export function Replay({ onReplay, label }: ReplayProps) {",
        "  return <button onClick={onReplay}>{label}</button>;",
        "}",
        "export function Other({ onReplay }) { return onReplay; }",
      ].join("\n"),
    };
    const resolver = resolverOver(sharedParser(), files);
    const at = (line: number) => {
      const column = files["src/replay.tsx"].split("\n")[line - 1].indexOf("onReplay");
      return { path: "src/replay.tsx", name: "onReplay", line, column };
    };
    const typed = await definitionAt(resolver, at(2));
    assertEquals(typed && [typed.line, typed.container], [1, "ReplayProps"]);
    // Its references are still the parameter's (line 3 uses it), and an untyped pattern declares
    // its own name.
    const local = await resolveAt(resolver, at(2));
    assertEquals(local && [local.line, local.kind], [2, "parameter"]);
    const untyped = await definitionAt(resolver, at(5));
    assertEquals(untyped && [untyped.line, untyped.kind], [5, "parameter"]);
    // A typed object literal's property: the type's.
    files["src/routes.ts"] = [
      "export type Route = { path: string };",
      "export const routes: Route[] = [{ path: '/' }];",
      "export const loose = [{ path: '/' }];",
    ].join("\n");
    const path = async (line: number) => {
      const column = files["src/routes.ts"].split("\n")[line - 1].indexOf("path");
      return await definitionAt(resolver, { path: "src/routes.ts", name: "path", line, column });
    };
    assertEquals((await path(2))?.line, 1);
    assertEquals((await path(3))?.line, 3);
  },
);

nameCase(
  "name resolution: an object passed to a function called through a namespace import is of its parameter's type",
  async () => {
    const { lines } = await referencesIn({
      "src/jwt.ts": [
        "export type VerifyOptions = { aud?: string };",
        "export const verify = (token: string, options: VerifyOptions) => options.aud;",
        "export const sign = (token: string, options: { aud?: string }) => token;",
      ].join("\n"),
      "src/jwt.test.ts": [
        "import * as JWT from './jwt';",
        "JWT.verify('t', { aud: 'x' });",
        "JWT.sign('t', { aud: 'y' });",
        "other.verify('t', { aud: 'z' });",
      ].join("\n"),
    }, { path: "src/jwt.ts", name: "aud", line: 1, shared: true });
    assertEquals(lines, ["src/jwt.test.ts:2", "src/jwt.ts:1", "src/jwt.ts:2"]);
  },
);

nameCase(
  "name resolution: a JSX attribute is a property of the anonymous type of its component's parameter",
  async () => {
    const { lines } = await referencesIn({
      "src/list.test.tsx": [
        "it('renders', async () => {",
        "  const Item = ({ id }: { id: number }) => <li>{id}</li>;",
        "  const Other = ({ id }: { id: number }) => <b>{id}</b>;",
        "  render(<ul><Item id={1} /><Other id={2} /></ul>);",
        "  render(<Item",
        "    id={3} />);",
        "});",
      ].join("\n"),
    }, { path: "src/list.test.tsx", name: "id", line: 2, nth: 1, shared: true });
    assertEquals(lines, ["src/list.test.tsx:2", "src/list.test.tsx:4", "src/list.test.tsx:6"]);
  },
);

nameCase(
  "name resolution: an element of an array of a named type, iterated here or imported, is of that type",
  async () => {
    const { lines } = await referencesIn({
      "src/tool.ts": [
        "export type Route = { path: string };",
        "export const routes: Route[] = [];",
        "export const names: Array<{ path: string }> = [];",
        "for (const route of routes) route.path;",
      ].join("\n"),
      "src/bench.ts": [
        "import { routes, names } from './tool';",
        "for (const route of routes) console.log(route.path);",
        "for (const name of names) console.log(name.path);",
        "for (const other of others) console.log(other.path);",
      ].join("\n"),
    }, { path: "src/tool.ts", name: "path", line: 1, shared: true });
    // Not the anonymous element type's `path` (line 3), nor an array the files do not type.
    assertEquals(lines, ["src/bench.ts:2", "src/tool.ts:1", "src/tool.ts:4"]);
  },
);

nameCase(
  "name resolution: an annotated parameter's default object is of the parameter's type",
  async () => {
    const files = {
      "src/handle.ts": [
        "export type HandleOptions = { fetch?: typeof fetch };",
        "export const handle = (opts: HandleOptions = {",
        "  fetch: globalThis.fetch,",
        "}) => opts.fetch;",
        "export const other = (opts = { fetch: globalThis.fetch }) => opts;",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/handle.ts",
      name: "fetch",
      line: 1,
      shared: true,
    });
    // The untyped default (line 5) is an object of its own.
    assertEquals(lines, ["src/handle.ts:1", "src/handle.ts:3", "src/handle.ts:4"]);
    const resolver = resolverOver(sharedParser(), files);
    const at = { path: "src/handle.ts", name: "fetch", line: 3, column: 2 };
    assertEquals((await definitionAt(resolver, at))?.line, 1);
  },
);

nameCase(
  "name resolution: a name destructured from a parameter of an anonymous type is that type's property",
  async () => {
    const files = {
      "src/server.test.ts": [
        "const createServer = ({",
        "  port = 1,",
        "}: {",
        "  port?: number",
        "} = {}) => {",
        "  return { port };",
        "};",
        "const other = ({ port }: { port: number }) => port;",
        "const { port } = createServer();",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/server.test.ts",
      name: "port",
      line: 4,
      shared: true,
    });
    // Not the returned object's own property (6), another parameter's type (8), nor a value
    // destructured from the returned object (9).
    assertEquals(lines, ["src/server.test.ts:2", "src/server.test.ts:4"]);
    // Its definition is the type's property, as for a named type.
    const resolver = resolverOver(sharedParser(), files);
    const at = { path: "src/server.test.ts", name: "port", line: 2, column: 2 };
    assertEquals((await definitionAt(resolver, at))?.line, 4);
  },
);

nameCase(
  "name resolution: an indexed access type or a quoted index names its type's member",
  async () => {
    const files = {
      "src/types.ts": [
        "export type Input = { in?: {}; out?: {} };",
        "export type Other = { in?: {} };",
        "export type Extract<I extends Input | Input['in']> = I extends Input",
        "  ? I['in']",
        "  : Other['in'];",
        "const input: Input = {};",
        "const value = input['in'];",
        "const word = 'in';",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "in",
      line: 1,
      shared: true,
    });
    // Not another type's member (5) nor a string that indexes nothing (8); a type parameter's
    // (4) is its constraint's.
    assertEquals(lines, ["src/types.ts:1", "src/types.ts:3", "src/types.ts:4", "src/types.ts:7"]);
    const constrained = await referencesIn({
      "src/types.ts": "export type Env = { Bindings?: object };",
      "src/lambda.ts": [
        "type Env = { Bindings: { event: string } };",
        "export type E = Env['Bindings'];",
      ].join("\n"),
      "src/context.ts": [
        "import type { Env } from './types';",
        "export type Get<E extends Env> = (env: E['Bindings']) => string;",
        "export type Any<T> = (env: T['Bindings']) => string;",
      ].join("\n"),
    }, { path: "src/lambda.ts", name: "Bindings", line: 1, shared: false });
    // `E extends Env` is the other `Env`; an unconstrained `T` is of no evident type (which
    // counts where no other type declares the member).
    assertEquals(constrained.lines, ["src/context.ts:3", "src/lambda.ts:1", "src/lambda.ts:2"]);
    const resolver = resolverOver(sharedParser(), files);
    const at = { path: "src/types.ts", name: "in", line: 3, column: 45 }; // inside the quotes
    assertEquals((await definitionAt(resolver, at))?.line, 1);
  },
);

nameCase(
  "name resolution: Partial, Omit and the other utility types keeping members are of their type's members",
  async () => {
    const { lines } = await referencesIn({
      "src/filepath.ts": [
        "type FilePathOptions = { filename: string; root?: string };",
        "export const withRoot = (options: Omit<FilePathOptions, 'filename'>) => options.root;",
        "export const partial = (options: Partial<FilePathOptions>) => options;",
      ].join("\n"),
      "src/filepath.test.ts": [
        "import { partial, withRoot } from './filepath';",
        "withRoot({ root: 'bar' });",
        "partial({ root: 'bar' });",
        "other({ root: 'bar' });",
        "function other(options: Omit<Other, 'x'>) {}",
        "type Other = { root: string; x: number };",
      ].join("\n"),
    }, { path: "src/filepath.ts", name: "root", line: 1, shared: true });
    // Not the object passed as `Omit<Other, 'x'>` (4), nor `Other`'s own member (6).
    assertEquals(lines, [
      "src/filepath.test.ts:2",
      "src/filepath.test.ts:3",
      "src/filepath.ts:1",
      "src/filepath.ts:2",
    ]);
  },
);

nameCase(
  "name resolution: a file naming another type of the member's type name is no sign of the member",
  async () => {
    const { lines } = await referencesIn({
      "src/utils/accept.ts": [
        "export interface Accept { type: string; q: number }",
        "export const parse = (header: string) => [] as Accept[];",
      ].join("\n"),
      "src/helper/accepts.ts": [
        "export interface Accept { type: string; q: number }",
        "export const best = (accepts: Accept[]) => accepts.sort((a, b) => b.q - a.q);",
      ].join("\n"),
      "src/middleware/language.ts": [
        "import type { Accept } from '../utils/accept';",
        "export const first = (accepts: Accept[]) => accepts.find((a) => a.q > 0);",
      ].join("\n"),
    }, { path: "src/utils/accept.ts", name: "q", line: 1, shared: true });
    // accepts.ts names its own `Accept`: its `a.q` is not utils' member.
    assertEquals(lines, ["src/middleware/language.ts:2", "src/utils/accept.ts:1"]);
  },
);

nameCase(
  "name resolution: an object passed to a union-typed parameter is of the union's type declaring the member, through an alias's parts",
  async () => {
    const files = {
      "src/jwt.ts": [
        "export type VerifyOptions = { iss?: string; aud?: string };",
        "export type WithAlg = { alg: string } & VerifyOptions;",
        "export const verify = (token: string, algOrOptions: Algorithm | WithAlg) => token;",
        "export const sign = (token: string, options: Algorithm | Other) => token;",
        "type Other = { aud?: string };",
      ].join("\n"),
      "src/jwt.test.ts": [
        "import * as JWT from './jwt';",
        "JWT.verify('t', { alg: 'HS256', aud: 'a' });",
        "JWT.sign('t', { aud: 'a' });",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/jwt.ts",
      name: "aud",
      line: 1,
      shared: true,
    });
    // Not the object passed to `sign`, of the other type (3), nor that type's own member (5).
    assertEquals(lines, ["src/jwt.test.ts:2", "src/jwt.ts:1"]);
    const resolver = resolverOver(sharedParser(), files);
    const at = { path: "src/jwt.test.ts", name: "aud", line: 2, column: 32 };
    assertEquals((await definitionAt(resolver, at))?.line, 1);
  },
);

nameCase(
  "name resolution: an object passed to `new` is of the class constructor's parameter type",
  async () => {
    const files = {
      "src/ws.ts": [
        "export interface WSInit { readyState: number }",
        "export class WSContext<T> {",
        "  constructor(init: WSInit, raw?: T) {}",
        "}",
        "export class Plain {}",
        "export type Other = { readyState: number };",
      ].join("\n"),
      "src/adapter.ts": [
        "import { WSContext, Plain } from './ws';",
        "export const ctx = new WSContext<string>({",
        "  readyState: 1,",
        "});",
        "export const plain = new Plain({ readyState: 2 });",
        "export const other: Other = { readyState: 3 };",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/ws.ts",
      name: "readyState",
      line: 1,
      shared: true,
    });
    // Not an object passed to a class without that constructor (5), nor one of another type (6).
    assertEquals(lines, ["src/adapter.ts:3", "src/ws.ts:1"]);
    const resolver = resolverOver(sharedParser(), files);
    const at = { path: "src/adapter.ts", name: "readyState", line: 3, column: 2 };
    const found = await definitionAt(resolver, at);
    assertEquals(found && [found.path, found.line], ["src/ws.ts", 1]);
  },
);

nameCase(
  "name resolution: a value tested with `instanceof` is of that class where the test holds",
  async () => {
    const files = {
      "src/errors.ts": [
        "export class HTTPException extends Error { readonly status: number = 500; }",
        "export class Other { readonly status: number = 200; }",
      ].join("\n"),
      "src/handler.ts": [
        'import { HTTPException, Other } from "./errors";',
        "export const a = (err: Error) => err instanceof HTTPException && err.status === 401;",
        "export const b = (err: Error) => {",
        "  if (err instanceof HTTPException) {",
        "    return err.status;",
        "  }",
        "  return err instanceof Other ? err.status : 0;",
        "};",
        "export const c = (e: Other) => e.status;",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/errors.ts",
      name: "status",
      line: 1,
      shared: true,
    });
    // Not where the value was tested for the other class (7), nor a value of that class (9).
    assertEquals(lines, ["src/errors.ts:1", "src/handler.ts:2", "src/handler.ts:5"]);
    const resolver = resolverOver(sharedParser(), files);
    const column = files["src/handler.ts"].split("\n")[6].lastIndexOf("status");
    const at = { path: "src/handler.ts", name: "status", line: 7, column };
    assertEquals((await definitionAt(resolver, at))?.line, 2);
  },
);

nameCase(
  "name resolution: a member of a value constructed in place is its class's",
  async () => {
    const files = {
      "src/hono.ts": [
        "export class Hono { get(path: string): Hono { return this; } }",
        "export class Router { get(path: string): void {} }",
      ].join("\n"),
      "src/app.ts": [
        'import { Hono, Router } from "./hono";',
        "export const app = new Hono().get('/');",
        "export const router = new Router().get('/');",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/hono.ts",
      name: "get",
      line: 1,
      shared: true,
    });
    assertEquals(lines, ["src/app.ts:2", "src/hono.ts:1"]);
  },
);

nameCase(
  "name resolution: an object literal's property of a named type refers to the type's member",
  async () => {
    const { target, lines } = await referencesIn({
      "src/types.ts": [
        "export interface FetchEvent { respondWith(r: Response): void }",
        "export interface Other { respondWith(r: Response): void }",
      ].join("\n"),
      "src/handler.test.ts": [
        "import type { FetchEvent, Other } from './types';",
        "handler({ respondWith(res) {} } as FetchEvent);",
        "export const run = (event: FetchEvent) => event.respondWith(r);",
        "handler({ respondWith(res) {} } as Other);",
      ].join("\n"),
    }, { path: "src/handler.test.ts", name: "respondWith", line: 2, shared: true });
    assertEquals(target && [target.path, target.line], ["src/types.ts", 1]);
    assertEquals(lines, ["src/handler.test.ts:2", "src/handler.test.ts:3", "src/types.ts:1"]);
  },
);

nameCase(
  "name resolution: a value returned by a function with a named return type is of that type",
  async () => {
    const files = {
      "src/pool.ts": [
        "export interface Pool { run<T>(fn: () => T): Promise<T> }",
        "export interface Queue { run(): void }",
        "export const createPool = (): Pool => ({ run: (fn) => Promise.resolve(fn()) });",
        "export async function openQueue(): Promise<Queue> { return { run() {} }; }",
      ].join("\n"),
      "src/ssg.ts": [
        "import { createPool, openQueue } from './pool';",
        "const pool = createPool();",
        "pool.run(() => 1);",
        "const queue = await openQueue();",
        "queue.run();",
        "createPool().run(() => 2);",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/pool.ts",
      name: "run",
      line: 1,
      shared: true,
    });
    // Not the other interface's member, run through the queue (5).
    assertEquals(lines, ["src/pool.ts:1", "src/pool.ts:3", "src/ssg.ts:3", "src/ssg.ts:6"]);
    const resolver = resolverOver(sharedParser(), files);
    const found = await definitionAt(resolver, {
      path: "src/ssg.ts",
      name: "run",
      line: 5,
      column: 6,
    });
    assertEquals(found && [found.path, found.line], ["src/pool.ts", 2]);
  },
);

nameCase(
  "name resolution: a JSX attribute is of the component its element's name is bound to in scope",
  async () => {
    const files = {
      "src/list.test.tsx": [
        "describe('one', () => {",
        "  const Item = ({ id }: { id: number }) => <li>{id}</li>;",
        "  it('renders', () => render(<Item id={1} />));",
        "});",
        "describe('two', () => {",
        "  const Item = async ({ id }: { id: number }) => <b>{id}</b>;",
        "  it('renders', () => render(<Item id={2} />));",
        "});",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/list.test.tsx",
      name: "id",
      line: 6,
      nth: 1,
      shared: true,
    });
    assertEquals(lines, ["src/list.test.tsx:6", "src/list.test.tsx:7"]);
  },
);

nameCase(
  "name resolution: a file naming a class only to import, construct or test it holds no other values of it",
  async () => {
    const { lines } = await referencesIn({
      "src/http_exception.ts": "export class HTTPException extends Error { status = 500; }",
      "src/hono.test.ts": [
        'import { HTTPException } from "./http_exception";',
        "app.get('/', () => { throw new HTTPException(401); });",
        "const res = await app.request('/');",
        "expect(res.status).toBe(401);",
        "app.onError((err) => err instanceof HTTPException && err.status === 401);",
      ].join("\n"),
      "src/typed.ts": [
        'import type { HTTPException } from "./http_exception";',
        "export const wrap = (e: HTTPException, other) => [e.status, other.status];",
      ].join("\n"),
    }, { path: "src/http_exception.ts", name: "status", line: 1, shared: true });
    // A file naming the class as a type (typed.ts) may hold values of it of no evident type.
    assertEquals(lines, ["src/hono.test.ts:5", "src/http_exception.ts:1", "src/typed.ts:2"]);
  },
);

nameCase(
  "name resolution: a JSX attribute of a component whose props are an anonymous object type is that type's property",
  async () => {
    const files = {
      "src/app.tsx": [
        "const Other = ({ count }: { count: number }) => <i>{count}</i>;",
        "const Counter = ({ count }: {",
        "  count: number;",
        "}) => <b>{count}</b>;",
        "export const app = <Counter count={1} />;",
      ].join("\n"),
    };
    const resolver = resolverOver(sharedParser(), files);
    const column = files["src/app.tsx"].split("\n")[4].indexOf("count");
    const found = await definitionAt(resolver, {
      path: "src/app.tsx",
      name: "count",
      line: 5,
      column,
    });
    assertEquals(found && [found.line, found.column], [3, 2]);
    // A component declared in a block: the one in scope.
    const blocks = [
      "export function first() {",
      "  const Counter = ({ count }: {",
      "    count: number;",
      "  }) => <i>{count}</i>;",
      "  return <Counter count={1} />;",
      "}",
      "export function second() {",
      "  const Counter = ({ count }: {",
      "    count: number;",
      "  }) => <b>{count}</b>;",
      "  return <Counter count={2} />;",
      "}",
    ].join("\n");
    const inner = blocks.split("\n")[10].indexOf("count");
    const scoped = { path: "src/blocks.tsx", name: "count", line: 11, column: inner };
    const second = await definitionAt(
      resolverOver(sharedParser(), { "src/blocks.tsx": blocks }),
      scoped,
    );
    assertEquals(second && [second.line, second.column], [9, 4]);
  },
);

// A client made by a factory whose return type is a callable object type: its call signature and
// its function-typed properties say what objects passed to them and what their calls return are.
const CLIENT_FILES = {
  "src/types.ts": [
    "export type Options = { retries?: number; json?: unknown };",
    "export type Reply = { json: () => Promise<unknown>; text: () => Promise<string> };",
    "export type Client = {",
    "  (url: string, options?: Options): Reply;",
    "  get: (url: string, options?: Options) => Reply;",
    "};",
  ].join("\n"),
  "src/index.ts": [
    'import type { Client, Options } from "./types";',
    "const createInstance = (defaults?: Options): Client => defaults as unknown as Client;",
    "const client = createInstance();",
    "export default client;",
  ].join("\n"),
  "test/a.ts": [
    'import client from "../src/index";',
    'await client("x", { retries: 1 }).json();',
    'await client.get("x", { retries: 2 }).text();',
    "const other = { retries: 3 };",
    "other.retries = other.json;",
  ].join("\n"),
};

nameCase(
  "name resolution: an object passed to an imported value's call signature is of its parameter's type",
  async () => {
    const { target, lines } = await referencesIn(CLIENT_FILES, {
      path: "src/types.ts",
      name: "retries",
      line: 1,
      shared: true,
    });
    assertEquals(target?.container, "Options");
    // Not the untyped literal of line 4, nor its use.
    assertEquals(lines, ["src/types.ts:1", "test/a.ts:2", "test/a.ts:3"]);
  },
);

nameCase(
  "name resolution: a member of an imported value is of the type its declaration gives it",
  async () => {
    const { target, lines } = await referencesIn(CLIENT_FILES, {
      path: "src/types.ts",
      name: "get",
      line: 5,
      shared: true,
    });
    assertEquals(target?.container, "Client");
    assertEquals(lines, ["src/types.ts:5", "test/a.ts:3"]);
  },
);

nameCase(
  "name resolution: a member of what a value's call signature or function-typed property returns",
  async () => {
    const json = await referencesIn(CLIENT_FILES, {
      path: "src/types.ts",
      name: "json",
      line: 2,
      shared: true,
    });
    assertEquals(json.target?.container, "Reply");
    // Not `Options.json` of line 1, nor the untyped `other.json`.
    assertEquals(json.lines, ["src/types.ts:2", "test/a.ts:2"]);
    const text = await referencesIn(CLIENT_FILES, {
      path: "src/types.ts",
      name: "text",
      line: 2,
      shared: true,
    });
    assertEquals(text.lines, ["src/types.ts:2", "test/a.ts:3"]);
  },
);

nameCase(
  "name resolution: an object that is a typed literal's property's value is of that property's type",
  async () => {
    const { target, lines } = await referencesIn({
      "src/types.ts": [
        "export type RetryOptions = { limit?: number };",
        "export type Options = { retry?: RetryOptions | number; other?: { limit: number } };",
        "export function request(url: string, options?: Options) { return url; }",
      ].join("\n"),
      "src/other.ts": "export type Paging = { limit: number };",
      "test/a.ts": [
        'import { request } from "../src/types";',
        'request("x", { retry: { limit: 2 } });',
        'request("x", { other: { limit: 3 } });',
        "const loose = { retry: { limit: 4 } };",
      ].join("\n"),
    }, { path: "src/types.ts", name: "limit", line: 1, shared: true });
    assertEquals(target?.container, "RetryOptions");
    // Not the anonymous type's `limit`, nor an untyped literal's, nor `Paging`'s.
    assertEquals(lines, ["src/types.ts:1", "test/a.ts:2"]);
  },
);

nameCase(
  "name resolution: a member of a member of evident type is of that member's annotated type",
  async () => {
    const { target, lines } = await referencesIn({
      "src/options.ts": [
        "export type Hooks = { beforeRetry: unknown[] };",
        "export type Options = { hooks: Hooks };",
      ].join("\n"),
      "src/other.ts": "export type Events = { beforeRetry: string };",
      "src/client.ts": [
        'import type { Options } from "./options";',
        "export class Client {",
        "  #options: Options;",
        "  run(events: Record<string, unknown>) {",
        "    return [this.#options.hooks.beforeRetry, events.beforeRetry];",
        "  }",
        "}",
      ].join("\n"),
    }, { path: "src/options.ts", name: "beforeRetry", line: 1, shared: true });
    assertEquals(target?.container, "Hooks");
    assertEquals(lines, ["src/client.ts:5", "src/options.ts:1"]);
  },
);

nameCase(
  "name resolution: a property of a literal nested in a typed literal refers to its type's member",
  async () => {
    const { target, lines } = await referencesIn({
      "src/types.ts": [
        "export type RetryOptions = { shouldRetry?: () => boolean };",
        "export type Options = { retry?: RetryOptions | number };",
        "export function request(url: string, options?: Options) { return url; }",
        "export const check = (retry: RetryOptions) => retry.shouldRetry?.();",
      ].join("\n"),
      "test/a.ts": [
        'import { request } from "../src/types";',
        'request("x", { retry: { shouldRetry() { return true; } } });',
        'request("y", { retry: { shouldRetry: () => false } });',
      ].join("\n"),
    }, { path: "test/a.ts", name: "shouldRetry", line: 2, shared: true });
    assertEquals(target?.path, "src/types.ts");
    assertEquals(target?.container, "RetryOptions");
    assertEquals(lines, ["src/types.ts:1", "src/types.ts:4", "test/a.ts:2", "test/a.ts:3"]);
  },
);

nameCase(
  "name resolution: a parameter of a function in a typed literal's property is of its function type's parameter",
  async () => {
    const { target, lines } = await referencesIn({
      "src/types.ts": [
        "export type State = { request: Request; retryCount: number };",
        "export type Hook = (state: State) => void;",
        "export type Hooks = { beforeRetry?: Hook[]; afterAll?: Hook };",
        "export type Options = { hooks?: Hooks };",
        "export function request(url: string, options?: Options) { return url; }",
      ].join("\n"),
      "src/errors.ts": "export class NetworkError extends Error { request: Request; }",
      "test/a.ts": [
        'import { request } from "../src/types";',
        'import { NetworkError } from "../src/errors";',
        "const failed = (error: NetworkError) => error.request;",
        'request("x", { hooks: { beforeRetry: [({ request }) => request] } });',
        'request("y", { hooks: { afterAll: (state) => state.request } });',
        "const loose = { hooks: { beforeRetry: [({ request }) => request] } };",
      ].join("\n"),
    }, { path: "src/types.ts", name: "request", line: 1, shared: true });
    assertEquals(target?.container, "State");
    // Not `NetworkError.request`, nor an untyped literal's callback.
    assertEquals(lines, ["src/types.ts:1", "test/a.ts:4", "test/a.ts:5"]);
  },
);

nameCase(
  "name resolution: a call signature's type parameter does not type the objects passed to it",
  async () => {
    const { lines } = await referencesIn({
      "src/family.ts": [
        "export type Family<Param> = { (param: Param): number; remove(param: Param): void };",
        "export function family<Param>(make: (param: Param) => number): Family<Param> {",
        "  return make as unknown as Family<Param>;",
        "}",
      ].join("\n"),
      "test/a.ts": [
        'import { family } from "../src/family";',
        "const byIndex = family((num: { index: number }) => num.index);",
        "byIndex({ index: 0 });",
      ].join("\n"),
    }, { path: "test/a.ts", name: "index", line: 2 });
    assertEquals(lines, ["test/a.ts:2", "test/a.ts:3"]);
  },
);

nameCase(
  "name resolution: a member of a class implementing the target's interface is the target's",
  async () => {
    const { target, lines } = await referencesIn({
      "src/store.ts": [
        "export interface Store { get(key: string): string | null }",
        "export class MemoryStore implements Store { get(key: string) { return key; } }",
        "export class Cache { get(key: string) { return key; } }",
      ].join("\n"),
      "test/a.ts": [
        'import { MemoryStore, Cache } from "../src/store";',
        "type Harness = { store: MemoryStore; cache: Cache };",
        "export const read = (h: Harness) => [h.store.get('a'), h.cache.get('b')];",
      ].join("\n"),
    }, { path: "src/store.ts", name: "get", line: 1, shared: true });
    assertEquals(target?.container, "Store");
    // Not `Cache.get`, another class's own member.
    assertEquals(lines, ["src/store.ts:1", "src/store.ts:2", "test/a.ts:3"]);
  },
);

// A client whose call gives a `Reply`, itself a promise of a `Body`: both declare `text`.
const AWAITED_REPLY = {
  "src/types.ts": [
    "export type Body = { text: () => Promise<string> };",
    "export type Reply = { text: () => Promise<string> } & Promise<Body>;",
    "export type Client = { get: (url: string) => Reply };",
    "export declare const client: Client;",
  ].join("\n"),
  "test/a.ts": [
    'import { client } from "../src/types";',
    'const body = await client.get("x").text();',
    'const response = await client.get("y");',
    "await response.text();",
  ].join("\n"),
};

nameCase(
  "name resolution: awaiting a call's result of a type that is a promise gives the promise's value type, not the type's own members",
  async () => {
    const of = (line: number) =>
      referencesIn(AWAITED_REPLY, { path: "src/types.ts", name: "text", line, shared: true });
    // `response` is the awaited `Body`, not a `Reply`; `client.get("x").text()` is the `Reply`'s.
    assertEquals((await of(2)).lines, ["src/types.ts:2", "test/a.ts:2"]);
    assertEquals((await of(1)).lines, ["src/types.ts:1", "test/a.ts:4"]);
  },
);

nameCase(
  "name resolution: a value a call makes is of a type that call names (a store of another state is not)",
  async () => {
    const { lines } = await referencesIn({
      "src/counter.test.ts": [
        "type CounterState = { count: number; inc: () => void }",
        "const useA = create<CounterState>()((set) => ({ count: 0, inc: () => {} }))",
        "useA.getState().count",
        "useA((s) => s.count)",
        "const useB = create(combine({ count: 1 }, (set) => ({ inc: () => {} })))",
        "useB.getState().count",
        "useB((s) => s.count)",
        "useB().count",
        "const useC = create<OtherState>()(() => ({ count: 2 }))",
        "useC.getState().count",
        "const api = makeApi()",
        "api.count",
      ].join("\n"),
    }, { path: "src/counter.test.ts", name: "count", line: 1, shared: true });
    // Not `useC`'s members: that call names another type; nor `useB`'s, inferred from the
    // literal it passes. A call naming none and passing none may return the type through its
    // callee or arguments (`api`): a receiver of no evident type.
    assertEquals(lines, [
      "src/counter.test.ts:1",
      "src/counter.test.ts:2",
      "src/counter.test.ts:3",
      "src/counter.test.ts:4",
      "src/counter.test.ts:12",
    ]);
  },
);

nameCase(
  "name resolution: a value cast with `as` is of the type it is cast to (`as any`: of none the files declare)",
  async () => {
    const { lines } = await referencesIn({
      "src/errors.ts": "export class RetryError extends Error { code = 'retry' }",
      "test/a.ts": [
        'import { RetryError } from "../src/errors";',
        "interface OtherError { code: string }",
        "const known: RetryError = make();",
        "known.code;",
        "export function check(err) {",
        "  (err as OtherError).code;",
        "  (err as any).code;",
        "  (err as RetryError).code;",
        "  err.code;",
        "}",
      ].join("\n"),
    }, { path: "src/errors.ts", name: "code", line: 1, shared: true });
    // Line 9: a receiver of no evident type in a file naming the class.
    assertEquals(lines, ["src/errors.ts:1", "test/a.ts:4", "test/a.ts:8", "test/a.ts:9"]);
  },
);

nameCase(
  "name resolution: the definition of a name destructured from a callback's parameter is its type's member",
  async () => {
    const files = {
      "src/types.ts": [
        "export type State = { request: Request; retryCount: number };",
        "export type Hook = (state: State) => void;",
        "export type Hooks = { beforeRetry?: Hook[] };",
        "export type Options = { hooks?: Hooks };",
        "export function request(url: string, options?: Options) { return url; }",
        "export function each(run: (state: State) => void) {}",
      ].join("\n"),
      "test/a.ts": [
        'import { each, request } from "../src/types";',
        'request("x", { hooks: { beforeRetry: [({ retryCount }) => retryCount] } });',
        "each(({ retryCount }) => retryCount);",
        "[1].map(({ retryCount }) => retryCount);",
      ].join("\n"),
    };
    const resolver = resolverOver(sharedParser(), files);
    const at = async (line: number) => {
      const column = files["test/a.ts"].split("\n")[line - 1].indexOf("retryCount");
      const found = await definitionAt(resolver, {
        path: "test/a.ts",
        name: "retryCount",
        line,
        column,
      });
      return found && `${found.path}:${found.line}`;
    };
    assertEquals(await at(2), "src/types.ts:1");
    assertEquals(await at(3), "src/types.ts:1");
    // A callee the files do not declare: the parameter itself.
    assertEquals(await at(4), "test/a.ts:4");
  },
);

nameCase(
  "name resolution: an object passed to a callee that is not evident is not of a parameter's anonymous type",
  async () => {
    const { lines } = await referencesIn({
      "src/redux.test.ts": [
        "const reducer = ({ count }, { type }: { type: 'INC' } | { type: 'DEC' }) => count;",
        "(store as any).dispatch({ type: 'INC' });",
        "subscriber({ type: 'ACTION' });",
        "function reduce(state: number, { type }: { type: 'INC' | 'DEC' }) { return state; }",
        "reduce(1, { type: 'INC' });",
      ].join("\n"),
    }, { path: "src/redux.test.ts", name: "type", line: 1, nth: 1, shared: true });
    // Not the objects passed to `dispatch` and `subscriber`, which may take any type.
    assertEquals(lines, ["src/redux.test.ts:1"]);
    const { lines: passed } = await referencesIn({
      "src/redux.test.ts": [
        "function reduce(state: number, { type }: { type: 'INC' | 'DEC' }) { return state; }",
        "reduce(1, { type: 'INC' });",
        "subscriber({ type: 'ACTION' });",
      ].join("\n"),
    }, { path: "src/redux.test.ts", name: "type", line: 1, nth: 1, shared: true });
    // An object passed to the function itself is of its parameter's type.
    assertEquals(passed, ["src/redux.test.ts:1", "src/redux.test.ts:2"]);
  },
);

nameCase(
  "name resolution: an object literal typed `any` (returned as `any`, cast to it) has no other references",
  async () => {
    const { lines } = await referencesIn({
      "test/hooks.ts": [
        "const like = (request: Request): any => ({",
        "  clone() { return like(request.clone()); },",
        "});",
        "const other = (response: Response): any => ({ clone() { return 1; } });",
        "export function run(response) { return response.clone(); }",
        "const cast = { clone: 1 } as any;",
        "const kept = { clone: 2 };",
      ].join("\n"),
    }, { path: "test/hooks.ts", name: "clone", line: 2 });
    assertEquals(lines, ["test/hooks.ts:2"]);
    // An untyped literal's member is still used in its file.
    const { lines: untyped } = await referencesIn({
      "test/a.ts": ["const kept = { clone: 2 };", "kept.clone;"].join("\n"),
    }, { path: "test/a.ts", name: "clone", line: 1 });
    assertEquals(untyped, ["test/a.ts:1", "test/a.ts:2"]);
  },
);

nameCase(
  "name resolution: a variable set from an object literal is of the literal's own type",
  async () => {
    const { lines } = await referencesIn({
      "src/cache.test.ts": [
        "class MockCache { async put(key: string) {} }",
        "const cache = new MockCache();",
        "cache.put('a');",
        "const mockCache = { put: vi.fn(), match: vi.fn() };",
        "mockCache.put;",
        "const merged = { ...cache };",
        "merged.put('b');",
        "const unread = {",
        "  match: vi.fn(),",
        "  ...cache,",
        "};",
        "unread.put('c');",
      ].join("\n"),
    }, { path: "src/cache.test.ts", name: "put", line: 1, shared: true });
    // Not `mockCache.put`; a literal spreading another value may have that value's members, and
    // one left out of the parse (it does not spell the name) may spread one.
    assertEquals(lines, [
      "src/cache.test.ts:1",
      "src/cache.test.ts:3",
      "src/cache.test.ts:7",
      "src/cache.test.ts:12",
    ]);
  },
);

nameCase(
  "name resolution: a generic alias made of its type parameter has its argument's members",
  async () => {
    const { target, lines } = await referencesIn({
      "src/common.ts":
        "export type Required<T, K extends keyof T = keyof T> = T & { [P in K]-?: T[P] };",
      "src/types.ts": [
        'import type { Required } from "./common";',
        "export interface Options { parseJson?: (text: string) => unknown; timeout?: number }",
        'export type Internal = Required<Omit<Options, "timeout">, "parseJson"> & { retry: number };',
        "export type Other = Required<Omit<{ parseJson: string }, 'x'>>;",
      ].join("\n"),
      "src/ky.ts": [
        'import type { Internal, Other } from "./types";',
        "export class Ky {",
        "  readonly #options: Internal;",
        "  readonly #other: Other;",
        "  constructor(options: Internal, other: Other) { this.#options = options; this.#other = other; }",
        "  parse(text: string) { return this.#options.parseJson(text); }",
        "  other() { return this.#other.parseJson; }",
        "}",
      ].join("\n"),
    }, { path: "src/types.ts", name: "parseJson", line: 2, shared: true });
    assertEquals(target?.container, "Options");
    // Not the anonymous type's `parseJson` made Required by `Other`.
    assertEquals(lines, ["src/ky.ts:6", "src/types.ts:2"]);
  },
);

nameCase(
  "name resolution: an object type mapping the keys of a type has that type's members",
  async () => {
    const { target, lines } = await referencesIn({
      "src/types.ts": [
        "export interface Options { parseJson?: (text: string) => unknown; timeout?: number }",
        "export type Registry = { [K in keyof Options]-?: true };",
        "export type Loose = { [key: string]: true };",
      ].join("\n"),
      "src/constants.ts": [
        'import type { Loose, Registry } from "./types";',
        "export const keys: Registry = {",
        "  parseJson: true,",
        "  timeout: true,",
        "};",
        "export const loose: Loose = { parseJson: true };",
      ].join("\n"),
    }, { path: "src/types.ts", name: "parseJson", line: 1, shared: true });
    assertEquals(target?.container, "Options");
    assertEquals(lines, ["src/constants.ts:3", "src/types.ts:1"]);
  },
);

nameCase(
  "name resolution: a parameter of a typed literal's method or function-typed property is of its own parameter type",
  async () => {
    const { lines } = await referencesIn({
      "src/tool.ts": [
        "export type Route = { method: string; path: string };",
        "export interface Router { name: string; match: (route: Route) => unknown; add(route: Route): void }",
      ].join("\n"),
      "src/hono.ts": [
        'import type { Router } from "./tool";',
        "export const create = (name: string): Router => {",
        "  return {",
        "    name,",
        "    match: (route) => route.path,",
        "    add(route) { return route.path; },",
        "  };",
        "};",
        "export const loose = { match: (route) => route.path };",
      ].join("\n"),
    }, { path: "src/tool.ts", name: "path", line: 1, shared: true });
    // Not the untyped literal's parameter.
    assertEquals(lines, ["src/hono.ts:5", "src/hono.ts:6", "src/tool.ts:1"]);
  },
);

nameCase(
  "name resolution: a function annotated with a generic type written with a type argument returns objects of it",
  async () => {
    const { lines } = await referencesIn({
      "src/vanilla.ts": [
        "export type StateCreator<T, U = T> = (set: (partial: Partial<T>) => void) => U;",
      ].join("\n"),
      "test/a.ts": [
        'import type { StateCreator } from "../src/vanilla";',
        "interface BearSlice { bears: number; addBear: () => void }",
        "interface FishSlice { fishes: number }",
        "const createBearSlice: StateCreator<BearSlice & FishSlice> = (set) => ({",
        "  bears: 0,",
        "  addBear: () => set({}),",
        "});",
        "const loose: (a: number) => object = () => ({ bears: 1 });",
      ].join("\n"),
    }, { path: "test/a.ts", name: "bears", line: 2, shared: true });
    // Not the literal returned by a function of no generic type.
    assertEquals(lines, ["test/a.ts:2", "test/a.ts:5"]);
  },
);

nameCase(
  "name resolution: an object passed to a call written with a type argument declaring its key is of that type",
  async () => {
    const { lines } = await referencesIn({
      "src/atom.ts": [
        "export function atom<Value>(read: (get: unknown) => Value): Value;",
        "export function atom<Value>(initialValue: Value): Value;",
        "export function atom<Value>(value: Value) { return value; }",
      ].join("\n"),
      "test/a.ts": [
        'import { atom } from "../src/atom";',
        "type Item = { text: string; checked: boolean };",
        "const one = atom<Item>({ text: 'a', checked: false });",
        "const all = atom<Item[]>([{ text: 'b', checked: true }]);",
        "const other = atom<{ text: string }>({ text: 'c' });",
        "const loose = atom({ text: 'd' });",
      ].join("\n"),
    }, { path: "test/a.ts", name: "text", line: 2, shared: true });
    // Not the objects of another type argument or of none.
    assertEquals(lines, ["test/a.ts:2", "test/a.ts:3", "test/a.ts:4"]);
  },
);

nameCase(
  "name resolution: a member annotated with the type of a function takes that function's arguments",
  async () => {
    const { lines } = await referencesIn({
      "src/constants.ts": [
        "export type RetryOptions = { code?: string; delay?: number };",
        "export const retry = (options?: RetryOptions) => options;",
      ].join("\n"),
      "src/types.ts": [
        'import type { retry } from "./constants";',
        "export type Instance = { readonly retry: typeof retry; other: (o: object) => void };",
        "export declare const ky: Instance;",
      ].join("\n"),
      "test/a.ts": [
        'import { ky } from "../src/types";',
        "ky.retry({ code: 'RATE_LIMIT' });",
        "ky.other({ code: 'x' });",
      ].join("\n"),
    }, { path: "src/constants.ts", name: "code", line: 1, shared: true });
    assertEquals(lines, ["src/constants.ts:1", "test/a.ts:2"]);
  },
);

nameCase(
  "name resolution: an object passed to a parameter of a function typed by a type argument is of that type",
  async () => {
    const { lines } = await referencesIn({
      "src/vanilla.ts": [
        "export type StateCreator<T> = (set: (partial: Partial<T>) => void) => T;",
        "export declare function create<T>(init: StateCreator<T>): T;",
      ].join("\n"),
      "test/a.ts": [
        'import { create, type StateCreator } from "../src/vanilla";',
        "type State = { num: number; inc: (v: number) => void };",
        "const store = create<State>((set) => ({",
        "  num: 1,",
        "  inc: (v) => { set({ num: v }); },",
        "}));",
        "const slice: StateCreator<State> = (set) => ({ num: 2, inc: (v) => set({ num: v }) });",
        "const other = (set: (o: object) => void) => set({ num: 3 });",
      ].join("\n"),
    }, { path: "test/a.ts", name: "num", line: 2, shared: true });
    // Not the object passed to another function's parameter.
    assertEquals(lines, ["test/a.ts:2", "test/a.ts:4", "test/a.ts:5", "test/a.ts:7"]);
  },
);

nameCase(
  "name resolution: an object returned as a type that may be undefined, or from either arm of a condition, is of that type",
  async () => {
    const { lines } = await referencesIn({
      "src/types.ts": "export type RetryOptions = { limit?: number; delay?: number };",
      "src/timing.ts": [
        'import type { RetryOptions } from "./types";',
        "type Internal = Required<RetryOptions>;",
        "const defaults: Internal = { limit: 2, delay: 0 };",
        "export const pick = (ok: boolean): RetryOptions | undefined => {",
        "  return ok ? { limit: 1 } : undefined;",
        "};",
        "export const choose = (ok: boolean): RetryOptions => ok ? { limit: 3 } : { delay: 1 };",
        "export const loose = (ok: boolean) => ok ? { limit: 4 } : {};",
      ].join("\n"),
    }, { path: "src/types.ts", name: "limit", line: 1, shared: true });
    // Not the object returned by a function of no return type.
    assertEquals(lines, [
      "src/timing.ts:3",
      "src/timing.ts:5",
      "src/timing.ts:7",
      "src/types.ts:1",
    ]);
  },
);

nameCase(
  "name resolution: a private member of a class is referred to inside its class only",
  async () => {
    const files = {
      "src/hookable.ts": [
        "export class Hookable {",
        "  private _hooks: Record<string, number> = {};",
        "  protected _seen = 0;",
        "  hook() { return this._hooks[this._seen]; }",
        "}",
        "export const peek = (hook: Hookable) => (hook as any)._hooks;",
      ].join("\n"),
      "test/hookable.test.ts": [
        'import { Hookable } from "../src/hookable";',
        "const hook = new Hookable();",
        "expect(hook._hooks).toEqual({});",
        "expect(hook._seen).toBe(0);",
      ].join("\n"),
    };
    const hidden = await referencesIn(files, { path: "src/hookable.ts", name: "_hooks", line: 2 });
    assertEquals(hidden.lines, ["src/hookable.ts:2", "src/hookable.ts:4"]);
    // A protected member is seen from outside (through subclasses and casts) as before.
    const seen = await referencesIn(files, { path: "src/hookable.ts", name: "_seen", line: 3 });
    assertEquals(seen.lines, ["src/hookable.ts:3", "src/hookable.ts:4", "test/hookable.test.ts:4"]);
  },
);

const RETURN_FILES = {
  "src/debugger.ts": [
    "export function createDebugger(hooks: object): {",
    "  close: () => void;",
    "} {",
    "  return { close: () => {} };",
    "}",
    "export function other(): { close: () => void } { return { close() {} }; }",
  ].join("\n"),
  "test/debugger.test.ts": [
    'import { createDebugger, other } from "../src/debugger";',
    "const debug = createDebugger({});",
    "debug.close();",
    "const { close } = createDebugger({});",
    "other().close();",
  ].join("\n"),
};

nameCase(
  "name resolution: a function's anonymous return type is the type of its calls' values and of the objects it returns",
  async () => {
    const { lines } = await referencesIn(RETURN_FILES, {
      path: "src/debugger.ts",
      name: "close",
      line: 2,
      shared: true,
    });
    // Not the other function's return type, nor what it returns.
    assertEquals(lines, [
      "src/debugger.ts:2",
      "src/debugger.ts:4",
      "test/debugger.test.ts:3",
      "test/debugger.test.ts:4",
    ]);
    const resolver = resolverOver(sharedParser(), RETURN_FILES);
    for (const [path, line] of [["test/debugger.test.ts", 3], ["src/debugger.ts", 4]] as const) {
      const column = RETURN_FILES[path].split("\n")[line - 1].indexOf("close");
      const found = await definitionAt(resolver, { path, name: "close", line, column });
      assertEquals(found && `${found.path}:${found.line}`, "src/debugger.ts:2");
    }
  },
);

const MAP_FILES = {
  "src/map.ts": [
    "export interface MapStore<Value> {",
    "  set(value: Value): void;",
    "  rename(keys: Partial<Record<keyof Value, string>>): void;",
    "}",
    "export declare function map<Value>(init?: Value): MapStore<Value>;",
  ].join("\n"),
  "test/map.test.ts": [
    'import { map } from "../src/map";',
    "it('sets', () => {",
    "  let $store = map<{ a: number; b: number }>();",
    "  $store.set({ a: 1, b: 0 });",
    "  let $other = map<{ a: string }>();",
    "  $other.set({ a: 'x' });",
    "  const loose = { a: 2 };",
    "  $store.set({ b: 1 });",
    "  $store.listen((value, old) => value.a + old.a);",
    "  $other.listen((value) => value.a);",
    "  $store.rename({ a: 'x' });",
    "});",
  ].join("\n"),
};

nameCase(
  "name resolution: an object passed to a method of a variable made by a call written with an anonymous type argument, and its callbacks' parameters, are of that type",
  async () => {
    const { lines } = await referencesIn(MAP_FILES, {
      path: "test/map.test.ts",
      name: "a",
      line: 3,
      shared: true,
    });
    // Not the object passed to another store's method, nor one passed to a method taking a type
    // made of the type's keys, nor a literal passed nowhere.
    assertEquals(lines, ["test/map.test.ts:3", "test/map.test.ts:4", "test/map.test.ts:9"]);
    const resolver = resolverOver(sharedParser(), MAP_FILES);
    const path = "test/map.test.ts";
    const column = MAP_FILES[path].split("\n")[3].indexOf("a:");
    const found = await definitionAt(resolver, { path, name: "a", line: 4, column });
    assertEquals(found && `${found.path}:${found.line}`, "test/map.test.ts:3");
    const read = MAP_FILES[path].split("\n")[8].indexOf("a +");
    const value = await definitionAt(resolver, { path, name: "a", line: 9, column: read });
    assertEquals(value && `${value.path}:${value.line}`, "test/map.test.ts:3");
  },
);

nameCase(
  "name resolution: an object passed or returned to a method of a variable made by a call written with a named type argument is of that type",
  async () => {
    const files = {
      "src/vanilla.ts": [
        "export type Api<T> = { setState(p: Partial<T> | ((s: T) => Partial<T>)): void };",
        "export declare function create<T>(): (init: (set: (p: Partial<T>) => void) => T) => Api<T>;",
      ].join("\n"),
      "test/a.ts": [
        'import { create } from "../src/vanilla";',
        "type State = { count: number; inc: () => void };",
        "type Other = { count: string };",
        "const useStore = create<State>()((set) => ({ count: 0, inc: () => set({ count: 1 }) }));",
        "useStore.setState({ count: 5 }, true);",
        "useStore.setState(() => ({ count: 2 }));",
        "const useOther = create<Other>()(() => ({ count: '' }));",
        "useOther.setState({ count: 'a' });",
        "useOther.setState(() => ({ count: 'b' }));",
        "const useNext = create<State>()((set) => ({ count: 0, inc: () => set((s) => s.count) }));",
        "const useLast = create<Other>()((set) => ({ count: '', inc: () => set((s) => s.count) }));",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "test/a.ts",
      name: "count",
      line: 2,
      shared: true,
    });
    // Not the objects given to the store made with another type argument.
    assertEquals(lines, [
      "test/a.ts:2",
      "test/a.ts:4",
      "test/a.ts:5",
      "test/a.ts:6",
      "test/a.ts:10",
    ]);
    const resolver = resolverOver(sharedParser(), files);
    const column = files["test/a.ts"].split("\n")[4].indexOf("count");
    const found = await definitionAt(resolver, {
      path: "test/a.ts",
      name: "count",
      line: 5,
      column,
    });
    assertEquals(found && `${found.path}:${found.line}`, "test/a.ts:2");
  },
);

const ANONYMOUS_STATE_FILES = {
  "src/vanilla.ts": [
    "export type Api<T> = { setState(p: Partial<T> | ((s: T) => Partial<T>)): void };",
    "export declare function create<T>(): (init: (set: (p: Partial<T>) => void) => T) => Api<T>;",
  ].join("\n"),
  "test/a.test.ts": [
    'import { create } from "../src/vanilla";',
    "it('counts', () => {",
    "  const useStore = create<{ count: number; inc: () => void }>()((set) => ({",
    "    count: 0,",
    "    inc: () => set((s) => ({ count: s.count + 1 })),",
    "  }));",
    "  const reset = () => ({ count: 0 });",
    "});",
    "it('other', () => {",
    "  const useOther = create<{ count: string }>()((set) => ({ count: '', inc: () => set({ count: '' }) }));",
    "});",
  ].join("\n"),
};

nameCase(
  "name resolution: the objects a call written with an anonymous type argument is given, returned or set are of that type",
  async () => {
    const resolver = resolverOver(sharedParser(), ANONYMOUS_STATE_FILES);
    const path = "test/a.test.ts";
    const lines = ANONYMOUS_STATE_FILES[path].split("\n");
    for (const [line, name] of [[4, "count"], [5, "inc"], [5, "count"]] as const) {
      const column = lines[line - 1].indexOf(`${name}:`);
      const found = await definitionAt(resolver, { path, name, line, column });
      assertEquals(found && `${found.path}:${found.line}`, `${path}:3`);
    }
    // The setter's callback is given the state.
    const column = lines[4].indexOf("s.count") + 2;
    const read = await definitionAt(resolver, { path, name: "count", line: 5, column });
    assertEquals(read && `${read.path}:${read.line}`, `${path}:3`);
    // Not the object of a function returning no typed value, nor the other store's.
    const other = await referencesIn(ANONYMOUS_STATE_FILES, { path, name: "count", line: 10 });
    assertEquals(other.lines, [`${path}:10`]);
  },
);

nameCase(
  "name resolution: an object passed to a method of an instance of a generic class constructed with a type argument is of that type",
  async () => {
    const files = {
      "src/store.ts": [
        "type Merged<T> = Partial<T> & { at?: number };",
        "export class Store<T> {",
        "  set(value: Partial<T>): void {}",
        "  merge(value: Merged<T>): void {}",
        "  rename(keys: Record<keyof T, string>): void {}",
        "}",
      ].join("\n"),
      "test/s.ts": [
        'import { Store } from "../src/store";',
        "const store = new Store<{ a: number }>();",
        "store.set({ a: 1 });",
        "const other = new Store<{ a: string }>();",
        "other.set({ a: 'x' });",
        "store.rename({ a: 'b' });",
        "store.merge({ a: 2 });",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, { path: "test/s.ts", name: "a", line: 2 });
    // Not the other instance's, nor the keys of the platform's map of the type argument's keys.
    assertEquals(lines, ["test/s.ts:2", "test/s.ts:3", "test/s.ts:7"]);
  },
);

// A class extending the platform's `Map` or `Set`, or an object of a type made of one
// (`Map<K, V> & { epoch: number }`), overrides the platform's member: the compiler's references
// of its `set` are every use of `Map`'s `set` (another `Map`'s, a value of no evident type), not
// those of a `WeakMap`, a global or another type the files declare.
const PLATFORM_FILES = {
  "src/draft.ts": [
    "export class DraftMap extends Map {",
    "  set(key: unknown, value: unknown) { return super.set(key, value); }",
    "}",
    "type Internal<K, V> = Map<K, V> & { epoch: number };",
    "export function proxyMap<K, V>(): Internal<K, V> {",
    "  const object: Internal<K, V> = {",
    "    epoch: 0,",
    "    set(key: K, value: V) { return this; },",
    "  } as Internal<K, V>;",
    "  return object;",
    "}",
  ].join("\n"),
  "src/use.ts": [
    'import { DraftMap, proxyMap } from "./draft";',
    "export class Store { set(value: number) {} }",
    "const seen = new Map<string, number>();",
    "const weak = new WeakMap<object, number>();",
    "export function run(store: Store, items) {",
    "  seen.set('a', 1);",
    "  weak.set({}, 2);",
    "  items.set('b', 3);",
    "  store.set(4);",
    "  new DraftMap().set('c', 5);",
    "  proxyMap().set('d', 6);",
    "  window.set(7);",
    "}",
  ].join("\n"),
};

nameCase(
  "name resolution: a member overriding a platform Map's is referred to wherever a Map's is",
  async () => {
    const { target, lines } = await referencesIn(PLATFORM_FILES, {
      path: "src/draft.ts",
      name: "set",
      line: 2,
      shared: true,
    });
    assertEquals(target?.container, "DraftMap");
    assertEquals(lines, [
      "src/draft.ts:2",
      "src/draft.ts:8",
      "src/use.ts:6",
      "src/use.ts:8",
      "src/use.ts:10",
      "src/use.ts:11",
    ]);
  },
);

nameCase(
  "name resolution: an object's member of a type made of a platform Map is referred to as a Map's",
  async () => {
    const { lines } = await referencesIn(PLATFORM_FILES, {
      path: "src/draft.ts",
      name: "set",
      line: 8,
      shared: true,
    });
    assertEquals(lines, [
      "src/draft.ts:2",
      "src/draft.ts:8",
      "src/use.ts:6",
      "src/use.ts:8",
      "src/use.ts:10",
      "src/use.ts:11",
    ]);
  },
);

// `export const actions = { addTodo() { ... } }`: a module's variable set to an untyped object
// literal; where another module imports it, its members are that literal's (not another module's
// literal of the same keys).
const ACTIONS_FILES = {
  "todo/store.ts": [
    "export const actions = {",
    "  addTodo(name: string) {},",
    "};",
  ].join("\n"),
  "todo/app.tsx": [
    'import { actions } from "./store";',
    "export const add = () => actions.addTodo('x');",
  ].join("\n"),
  "other/store.ts": [
    "export const actions = {",
    "  addTodo(name: string) {},",
    "};",
  ].join("\n"),
  "other/app.tsx": [
    'import { actions } from "./store";',
    "export const add = () => actions.addTodo('y');",
  ].join("\n"),
};

nameCase(
  "name resolution: a member of an imported variable set to an untyped object is that object's",
  async () => {
    const { lines } = await referencesIn(ACTIONS_FILES, {
      path: "todo/store.ts",
      name: "addTodo",
      line: 2,
      shared: true,
    });
    assertEquals(lines, ["todo/app.tsx:2", "todo/store.ts:2"]);
    const resolver = resolverOver(sharedParser(), ACTIONS_FILES);
    const column = ACTIONS_FILES["todo/app.tsx"].split("\n")[1].indexOf("addTodo");
    const found = await definitionAt(resolver, {
      path: "todo/app.tsx",
      name: "addTodo",
      line: 2,
      column,
    });
    assertEquals(found && `${found.path}:${found.line}`, "todo/store.ts:2");
  },
);

nameCase(
  "name resolution: a value of no evident type is a platform Set's where only its call can be",
  async () => {
    const { lines } = await referencesIn({
      "src/draft_set.ts": [
        "export class DraftSet extends Set {",
        "  add(value: unknown) { return super.add(value); }",
        "  delete(value: unknown) { return super.delete(value); }",
        "}",
      ].join("\n"),
      "src/sets.ts": [
        "export function run(items, state) {",
        "  const native = new Set<string>();",
        "  items.delete('a');",
        "  items.add('b');",
        "  return state.add.length;",
        "}",
      ].join("\n"),
      "src/maps.ts": [
        "export function run(items) {",
        "  const native = new Map<string, number>();",
        "  items.delete('a');",
        "  items.add('b');",
        "}",
      ].join("\n"),
    }, { path: "src/draft_set.ts", name: "delete", line: 3, shared: true });
    // `delete` is a Map's too: in a file naming Maps, a value of no evident type may be one.
    assertEquals(lines, ["src/draft_set.ts:3", "src/sets.ts:3"]);
    const added = await referencesIn({
      "src/draft_set.ts": "export class DraftSet extends Set {\n  add(value: unknown) {}\n}",
      "src/sets.ts":
        "export function run(items, state) {\n  items.add('b');\n  return state.add.length;\n}",
    }, { path: "src/draft_set.ts", name: "add", line: 2, shared: true });
    // `add` is a Set's only, where it is called (not a property `add` read).
    assertEquals(added.lines, ["src/draft_set.ts:2", "src/sets.ts:2"]);
  },
);

// `const obj = proxy<{ count?: number }>({ count: 1 })`: a value made by a call written with an
// anonymous object type argument and given an object is of that type (the generic returns its
// argument's type); its members read there are that type's.
const PROXIED_FILES = {
  "src/basic.test.ts": [
    "export function run() {",
    "  const obj = proxy<{ count?: number }>({ count: 1 });",
    "  obj.count = 2;",
    "  const other = proxy({ count: 3 });",
    "  return other.count;",
    "}",
  ].join("\n"),
};

nameCase(
  "name resolution: a value made by a call written with an anonymous type argument and given an object is of that type",
  async () => {
    const { lines } = await referencesIn(PROXIED_FILES, {
      path: "src/basic.test.ts",
      name: "count",
      line: 2,
    });
    assertEquals(lines.includes("src/basic.test.ts:3"), true);
    const resolver = resolverOver(sharedParser(), PROXIED_FILES);
    const column = PROXIED_FILES["src/basic.test.ts"].split("\n")[2].indexOf("count");
    const found = await definitionAt(resolver, {
      path: "src/basic.test.ts",
      name: "count",
      line: 3,
      column,
    });
    assertEquals(found && `${found.path}:${found.line}:${found.column}`, "src/basic.test.ts:2:22");
  },
);

nameCase(
  "name resolution: a class declared in a block is known in that block only, its members too",
  async () => {
    const path = "test/class.test.ts";
    const files = {
      [path]: [
        'it("one", () => {',
        "  class Counter { public count = 0; constructor() { this.count = 1; } }",
        "  const obj = new Counter();",
        "  obj.count++;",
        "});",
        'it("two", () => {',
        "  class Counter { public count = 0; bump() { return this.count + 1; } }",
        "  const obj = new Counter();",
        "  obj.count++;",
        "});",
        "function make() {",
        "  class Made { public count = 0; }",
        "  return new Made();",
        "}",
        "make().count;",
      ].join("\n"),
    };
    const first = await referencesIn(files, { path, name: "count", line: 2 });
    // Not the other test's class of the same name, its `this.count` nor its instance's.
    assertEquals(first.lines, [`${path}:2`, `${path}:4`]);
    const second = await referencesIn(files, { path, name: "count", line: 7 });
    assertEquals(second.lines, [`${path}:7`, `${path}:9`]);
    // A class a function returns an instance of leaves its block with it.
    const made = await referencesIn(files, { path, name: "count", line: 12 });
    assertEquals(made.lines, [`${path}:12`, `${path}:15`]);
  },
);

nameCase(
  "name resolution: two object literals of no evident type are two types, each key its own",
  async () => {
    const path = "test/mutate.test.ts";
    const files = {
      [path]: [
        "const { mutate } = useSWR(key);",
        "mutate(key, data, { optimisticData: 'bar' });",
        "mutate(data, {",
        "  optimisticData(current) { return current; },",
        "});",
        "const options = { optimisticData: 1 };",
        "mutate(data, options);",
      ].join("\n"),
    };
    const method = await referencesIn(files, { path, name: "optimisticData", line: 4 });
    // Not the keys of the literals of lines 2 and 6 (objects passed to one callee at one index
    // are of one type, as a platform's callee's are: not these).
    assertEquals(method.lines, [`${path}:4`]);
    const held = await referencesIn(files, { path, name: "optimisticData", line: 6 });
    assertEquals(held.lines, [`${path}:6`]);
  },
);

nameCase(
  "name resolution: a variable set to an object literal without an annotation holds a value of that literal's own type",
  async () => {
    const path = "test/effect.test.ts";
    const files = {
      [path]: [
        "function setup(): { runs: { current: number } } {",
        "  let runs = { current: 0 };",
        "  runs.current += 1;",
        "  return { runs };",
        "}",
        "setup().runs.current;",
      ].join("\n"),
    };
    const typed = await referencesIn(files, { path, name: "current", line: 1 });
    // Not the reads of `runs`, whose type is its literal's (returned, it is of the return type).
    assertEquals(typed.lines.includes(`${path}:3`), false);
    assertEquals(typed.lines.includes(`${path}:6`), true);
  },
);

nameCase(
  "name resolution: a file naming a base type of the member's type is no evidence unless that base declares the member",
  async () => {
    const files = {
      "src/id.ts": "export interface IdOptions { clientId?: string }",
      "src/types.ts": "export type Factory<O = any, I = any> = (opts: O) => { name: string };",
      "src/a.ts": [
        'import type { IdOptions } from "./id";',
        'import type { Factory } from "./types";',
        "export interface AOptions extends IdOptions { endpoint?: string }",
        "const make: Factory<AOptions, string> = (opts) => ({ name: opts.endpoint });",
      ].join("\n"),
      "src/b.ts": [
        'import type { IdOptions } from "./id";',
        'import type { Factory } from "./types";',
        "export interface BOptions extends IdOptions { endpoint: string }",
        "const make: Factory<BOptions, string> = (opts) => ({ name: opts.endpoint });",
        "const read = (id: IdOptions, value: any) => value.clientId;",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/a.ts",
      name: "endpoint",
      line: 3,
      shared: true,
    });
    // Not `BOptions`'s, though its file names `IdOptions`, which has no `endpoint`.
    assertEquals(lines, ["src/a.ts:3", "src/a.ts:4"]);
    const base = await referencesIn(files, {
      path: "src/id.ts",
      name: "clientId",
      line: 1,
      shared: true,
    });
    // The base's own member: a value of no evident type in a file naming it.
    assertEquals(base.lines, ["src/b.ts:5", "src/id.ts:1"]);
  },
);

nameCase(
  "name resolution: a variable set to a value cast with `as` is of the type cast to",
  async () => {
    const files = {
      "src/types.ts": [
        "export interface Driver { getItem(key: string): unknown }",
        "export interface Storage { getItem(key: string): unknown }",
      ].join("\n"),
      "test/utils.ts": [
        'import type { Driver, Storage } from "../src/types";',
        "interface Context { storage: Storage; driver: Driver }",
        "const ctx = {} as Context;",
        "ctx.storage.getItem('a');",
        "ctx.driver.getItem('b');",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/types.ts",
      name: "getItem",
      line: 1,
      shared: true,
    });
    // Not the storage's, though the file names `Driver`.
    assertEquals(lines, ["src/types.ts:1", "test/utils.ts:5"]);
  },
);
