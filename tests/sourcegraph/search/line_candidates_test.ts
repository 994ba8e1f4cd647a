import {
  byteLinesWith,
  lineFinder,
  linesToVerify,
} from "../../../sourcegraph/search/line_candidates.ts";
import { splitLines } from "../../../shared/text.ts";
import { assertEquals } from "../../support/assert.ts";

Deno.test("line candidates: the byte and string searches visit exactly the lines holding the literal", () => {
  const texts = [
    "needle first\nnothing\nαβγ needle needle\n\n日本 needle",
    "needle",
    "no match here\n",
    "x\nneedle\n",
    "\n\nneedle\n\nneedleneedle\nend",
  ];
  for (const text of texts) {
    const expected = splitLines(text).map((line, i): [number, string] => [i + 1, line])
      .filter(([, line]) => line.includes("needle"));
    const bytes = new TextEncoder().encode(text);
    assertEquals([...byteLinesWith(bytes, new TextEncoder().encode("needle"))], expected, text);
    assertEquals([...linesToVerify(text, lineFinder("needle", { ignoreCase: false }))], expected);
    const caseless = [
      ...linesToVerify(text.toUpperCase(), lineFinder("needle", { ignoreCase: true })),
    ];
    assertEquals(caseless.map(([number]) => number), expected.map(([number]) => number));
  }
  assertEquals(lineFinder("ünïcode", { ignoreCase: true }), null, "non-ASCII caseless: every line");
  assertEquals([...linesToVerify("a\nb\n", null)], [[1, "a"], [2, "b"]]);
});
