import { assertEquals } from "../../support/assert.ts";
import { definitionAt } from "../../../sourcegraph/service/name_resolution.ts";
import { resolverOver } from "../../support/resolved_references.ts";
import { nameCases } from "../../support/name_cases.ts";

// One parser for every case of the file (see `nameCases`).
const { nameCase, referencesIn, runCases, sharedParser } = nameCases();

nameCase(
  "name resolution: objects passed to a package's function the files do not hold are each of their own type",
  async () => {
    const files = {
      "src/a.ts": [
        'import { computed } from "vue";',
        "export const a = computed({ get() { return 1; }, set(value: number) {} });",
        "export const s = new ReadableStream({ start(controller) { controller.close(); } });",
      ].join("\n"),
      "src/b.ts": [
        'import { computed } from "vue";',
        "export const b = computed({",
        "  get() { return 2; },",
        "});",
        "export const t = new ReadableStream({ async start(controller) {} });",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, { path: "src/a.ts", name: "get", line: 2 });
    // The package's parameter type is not a file of the tree: nothing relates the two keys.
    assertEquals(lines, ["src/a.ts:2"]);
    // A platform's callee types its objects' keys alike, wherever it is called.
    const platform = await referencesIn(files, { path: "src/a.ts", name: "start", line: 3 });
    assertEquals(platform.lines, ["src/a.ts:3", "src/b.ts:5"]);
  },
);

nameCase(
  "name resolution: a parameter of a method of an object passed to a generic parameter is of the type its constraint's member gives it",
  async () => {
    const files = {
      "src/peer.ts": "export class Peer {\n  send(data: string) {}\n}",
      "src/hooks.ts": [
        'import type { Peer } from "./peer.ts";',
        "export interface Hooks { open: (peer: Peer) => void; message: (peer: Peer, text: string) => void }",
        "export function defineHooks<T extends Partial<Hooks> = Partial<Hooks>>(hooks: T): T {",
        "  return hooks;",
        "}",
      ].join("\n"),
      "src/index.ts": 'export { defineHooks } from "./hooks.ts";',
      "test/shared.ts": [
        'import { defineHooks } from "../src/index.ts";',
        "export const hooks = defineHooks({",
        "  open(peer) {",
        '    peer.send("hello");',
        "  },",
        "  message: (peer, text) => {",
        "    peer.send(text);",
        "  },",
        "});",
      ].join("\n"),
    };
    const { lines } = await referencesIn(files, {
      path: "src/peer.ts",
      name: "send",
      line: 2,
      shared: true,
    });
    assertEquals(lines, ["src/peer.ts:2", "test/shared.ts:4", "test/shared.ts:7"]);
    // The object's keys are its own (T is inferred from it), not the constraint's members.
    const key = await referencesIn(files, { path: "src/hooks.ts", name: "open", line: 2 });
    assertEquals(key.lines, ["src/hooks.ts:2"]);
    // Its definition is the constraint's member, as the compiler's is.
    const resolver = resolverOver(sharedParser(), files);
    const column = files["test/shared.ts"].split("\n")[2].indexOf("open");
    const found = await definitionAt(resolver, {
      path: "test/shared.ts",
      name: "open",
      line: 3,
      column,
    });
    assertEquals(found === null ? null : `${found.path}:${found.line}`, "src/hooks.ts:2");
  },
);

Deno.test("name resolution precision: one parser, case by case", (t) => runCases(t));
