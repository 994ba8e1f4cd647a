/**
 * Separators before the lines that start a call signature: where they are
 * written (and where not), and that the extractor keeps them only when they
 * fix the parse: an interface of overloaded call signatures parted by
 * newlines alone keeps what follows it, and `(` on a new line that
 * continues a call stays a call.
 */

import { assertEquals } from "../../support/assert.ts";
import { separateSignatureLines } from "../../../sourcegraph/symbols/typescript_separators.ts";
import { SymbolExtractor } from "../../../sourcegraph/symbols/symbol_extractor.ts";

// Both shapes of hono's overloads: a signature after `]` (a tuple type) and after `>` (the
// last line of a type's arguments), a comment between them, and a last `(…)` signature.
const OVERLOADS = [
  "export interface Handlers<E extends Env> {",
  "  <I extends Input = {}>(handler1: H<E, I>): [H<E, I>]",
  "",
  "  // two handlers",
  "  <",
  "    I extends Input = {},",
  "  >(handler1: H<E, I>, handler2: H<E, I>): [H<E, I>, H<E, I>]",
  "}",
  "",
  "export interface Routes<E extends Env> {",
  "  <P extends string>(",
  "    path: P,",
  "  ): Base<",
  "    E,",
  "    P",
  "  >",
  "",
  "  /** with a handler */",
  "  <",
  "    P extends string,",
  "  >(path: P, handler: H<E, P>): Base<E, P>",
  "  (path: string): void",
  "}",
  "",
  "export class Factory<E extends Env> {",
  "  createHandlers(): void {}",
  "}",
  "",
  "export const createMiddleware = (handler: Handler): Handler => handler",
  "export const wrapped = createMiddleware(noop)",
  "",
].join("\n");

Deno.test("a separator replaces the blank before each signature that starts a line", () => {
  const separated = separateSignatureLines(OVERLOADS);
  assertEquals(separated.length, OVERLOADS.length);
  const changed = separated.split("\n").flatMap((line, index) =>
    line === OVERLOADS.split("\n")[index] ? [] : [`${index + 1}: ${line}`]
  );
  assertEquals(changed, ["5:  ;<", "19:  ;<", "22:  ;(path: string): void"]);
});

Deno.test("no separator after an open expression or on a line without indentation", () => {
  const text = [
    "const sum = first +",
    "  (second)",
    "call(a,",
    "  (b))",
    "const f = () =>",
    "  (value)",
    "const g = h",
    "(i)",
    "",
  ].join("\n");
  assertEquals(separateSignatureLines(text), text);
});

Deno.test("the symbols after overloaded call signatures are found", async () => {
  const extractor = await SymbolExtractor.create();
  for (const path of ["factory.ts", "factory.tsx"]) {
    const found = await extractor.extract(path, OVERLOADS);
    assertEquals(found.outcome, "parsed");
    assertEquals(
      found.symbols.map((symbol) => `${symbol.kind} ${symbol.name} ${symbol.endLine}`),
      [
        "interface Handlers 8",
        "interface Routes 23",
        "class Factory 27",
        "method createHandlers 26",
        "function createMiddleware 29",
        "variable wrapped 30",
      ],
    );
  }
});

Deno.test("a name after overloaded call signatures is found with its role", async () => {
  const extractor = await SymbolExtractor.create();
  const found = await extractor.occurrences("factory.ts", OVERLOADS, "createMiddleware");
  assertEquals(found.occurrences, [
    { line: 29, column: 13, role: "definition" },
    { line: 30, column: 23, role: "call" },
  ]);
});

Deno.test("a parenthesis on a new line that continues a call stays a call", async () => {
  const extractor = await SymbolExtractor.create();
  const call = "const handler = wrap\n  (function inner() { return 1 })\n";
  // With a parse error elsewhere the separated text is parsed too, and parses no better.
  for (const text of [call, `${call}let broken = ;\n`]) {
    const found = await extractor.occurrences("call.ts", text, "wrap");
    assertEquals(found.occurrences, [{ line: 1, column: 16, role: "call" }]);
    const symbols = await extractor.extract("call.ts", text);
    assertEquals(symbols.symbols.slice(0, 2).map((symbol) => `${symbol.kind} ${symbol.name}`), [
      "variable handler",
      "function inner",
    ]);
  }
});
