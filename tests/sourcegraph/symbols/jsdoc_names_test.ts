/**
 * The names a documentation comment writes: links and tags' braced types,
 * not prose, keys or quoted names; a hostile comment (a megabyte of
 * unclosed braces after tags) costs its length, not its length squared.
 */

import { jsdocNames } from "../../../sourcegraph/symbols/jsdoc_names.ts";
import { assertEquals } from "../../support/assert.ts";

Deno.test("documentation names: links and tags' types name it; prose, keys and quotes do not", () => {
  const text = [
    "/**",
    " * Options is prose. See {@link Options} and {@linkcode Options}.",
    " * @param {Partial<Options>} options - { Options: 1 }",
    ' * @returns {{ Options: string; value: Options["x"] }} nested',
    " * @type {Map<string, Options>}",
    " * @example {Options}",
    " */",
    "// {@link Options} in a line comment",
    'const s = "/** {@link Options} */";',
  ].join("\n");
  const places = jsdocNames(text, "Options").map(({ index, role }) => {
    const line = text.slice(0, index).split("\n").length;
    return `${line}:${role}`;
  });
  // Line 4: the key `Options:` names nothing, the indexed type `Options["x"]` does.
  assertEquals(places, ["2:read", "2:read", "3:type", "4:type", "5:type"]);
});

Deno.test("documentation names: a megabyte of unclosed braces after tags is read in one pass", () => {
  const hostile = "/**\n" + " * @param {Options ".repeat(60_000) +
    "\n */\nexport type Options = 1;\n";
  // No brace closes, so no type expression: nothing is named, and the scan ends.
  assertEquals(jsdocNames(hostile, "Options"), []);
  const closed = "/**\n" + " * @param {Options} a\n".repeat(60_000) + " */\n";
  const found = jsdocNames(closed, "Options");
  assertEquals([found.length, found.every((place) => place.role === "type")], [60_000, true]);
});
