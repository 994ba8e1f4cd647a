/**
 * Where a name occurs as an identifier, each with its role: the definition,
 * imports, calls, type positions and writes of TypeScript, Python, Rust and
 * Go files, never the same word in a comment or a string; a language with
 * no grammar, an oversized file and a parse past the deadline (an injected
 * clock) give no occurrences and say why.
 */

import { assertEquals } from "../../support/assert.ts";
import {
  MAX_PARSED_BYTES,
  type NameOccurrences,
  SymbolExtractor,
} from "../../../sourcegraph/symbols/symbol_extractor.ts";

function rows(found: NameOccurrences): string[] {
  return found.occurrences.map((occurrence) =>
    `${occurrence.line}:${occurrence.column} ${occurrence.role}`
  );
}

Deno.test("each identifier naming the symbol comes with its role; comments and strings hold none", async () => {
  const extractor = await SymbolExtractor.create();
  const cases: { path: string; text: string; want: string[] }[] = [
    {
      path: "a.ts",
      text: [
        'import { parseItem } from "./items";', // 1 import
        "// parseItem in a comment", // 2 none
        'const label = "parseItem";', // 3 none
        "export function parseItem(text: string): Item {", // 4 definition
        "  return parseItem(text);", // 5 call
        "}",
        "let parser: parseItem = other;", // 7 type
        "parseItem = 3;", // 8 write
        "use(parseItem);", // 9 read
        "module.parseItem();", // 10 call
        "const parseItem2 = 1;", // 11 none (another name)
      ].join("\n"),
      want: [
        "1:9 import",
        "4:16 definition",
        "5:9 call",
        "7:12 type",
        "8:0 write",
        "9:4 read",
        "10:7 call",
      ],
    },
    {
      path: "b.py",
      text: [
        "from items import parse_item", // 1 import
        "# parse_item here", // 2 none
        "def parse_item(text):", // 3 definition
        '    """parse_item docs"""', // 4 none
        "    return parse_item(text)", // 5 call
        "x: parse_item = None", // 6 type
        "parse_item += other", // 7 write (a plain module-level assignment is a definition)
        "print(parse_item)", // 8 read
      ].join("\n"),
      want: ["1:18 import", "3:4 definition", "5:11 call", "6:3 type", "7:0 write", "8:6 read"],
    },
    {
      path: "c.rs",
      text: [
        "use crate::items::parse_item;", // 1 import
        "// parse_item", // 2 none
        "fn parse_item(text: &str) -> u32 { 1 }", // 3 definition
        "fn main() {", // 4
        '    let s = "parse_item";', // 5 none
        "    let parse_item = items::parse_item(s);", // 6 write, call
        "    print(parse_item);", // 7 read
        "}",
      ].join("\n"),
      want: ["1:18 import", "3:3 definition", "6:8 write", "6:28 call", "7:10 read"],
    },
    {
      path: "d.go",
      text: [
        "package items",
        "// ParseItem parses",
        "func ParseItem(s string) int { return 1 }", // 3 definition
        "func main() {",
        '\tx := "ParseItem"',
        "\ty := ParseItem(x)", // 6 call
        "\tvar z ParseItem", // 7 type
        "}",
      ].join("\n"),
      want: ["3:5 definition", "6:6 call", "7:7 type"],
    },
  ];
  for (const { path, text, want } of cases) {
    const name = path.endsWith(".go")
      ? "ParseItem"
      : path.endsWith(".ts")
      ? "parseItem"
      : "parse_item";
    const found = await extractor.occurrences(path, text, name);
    assertEquals(found.outcome, "parsed", path);
    assertEquals(rows(found), want, path);
  }
});

Deno.test("a file not parsed gives no occurrences and says why", async () => {
  const extractor = await SymbolExtractor.create();
  assertEquals(await extractor.occurrences("notes.txt", "parseItem here", "parseItem"), {
    language: null,
    outcome: "none",
    occurrences: [],
  });
  const large = "let a = 1;\n".repeat(MAX_PARSED_BYTES / 10);
  assertEquals((await extractor.occurrences("big.ts", large, "a")).outcome, "large");
  let clock = 0;
  const slow = await SymbolExtractor.create({ deadlineMs: 10, now: () => (clock += 100) });
  const late = await slow.occurrences("a.ts", "let a = 1;\n".repeat(10_000), "a");
  assertEquals(late.outcome, "timed_out");
  assertEquals(late.occurrences, []);
});
