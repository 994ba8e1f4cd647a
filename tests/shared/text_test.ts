import { assertEquals } from "../support/assert.ts";
import {
  countLines,
  countUtf8Lines,
  decodeUtf8Strict,
  isBinary,
  splitLines,
  utf8Length,
  utf8LinesBetween,
} from "../../shared/text.ts";

const bytes = (...values: number[]) => new Uint8Array(values);

Deno.test("decodeUtf8Strict accepts valid UTF-8 and keeps a BOM", () => {
  assertEquals(decodeUtf8Strict(new TextEncoder().encode("项目知识 ✓ 🚀")), "项目知识 ✓ 🚀");
  assertEquals(decodeUtf8Strict(bytes(0xef, 0xbb, 0xbf, 0x61)), "\uFEFFa");
  assertEquals(decodeUtf8Strict(bytes()), "");
  // A view into a larger buffer is read from its own offset.
  assertEquals(decodeUtf8Strict(bytes(0xff, 0x61, 0xc3, 0xa9, 0xff).subarray(1, 4)), "aé");
});

Deno.test("decodeUtf8Strict rejects invalid UTF-8 of every kind", () => {
  const invalid = [
    bytes(0xff),
    bytes(0xc3), // truncated sequence
    bytes(0xc0, 0xaf), // overlong
    bytes(0xed, 0xa0, 0x80), // UTF-16 surrogate
    bytes(0xf4, 0x90, 0x80, 0x80), // past U+10FFFF
    bytes(0x61, 0x80, 0x62), // stray continuation byte
  ];
  for (const input of invalid) assertEquals(decodeUtf8Strict(input), null);
});

Deno.test("isBinary is true exactly when a NUL byte is present", () => {
  assertEquals(isBinary(bytes(0x61, 0x62)), false);
  assertEquals(isBinary(bytes()), false);
  assertEquals(isBinary(bytes(0x61, 0x00)), true);
  assertEquals(isBinary(bytes(0x00)), true);
  assertEquals(isBinary(bytes(0xff, 0xfe)), false);
});

Deno.test("splitLines keeps exact 1-based lines and preserves CR", () => {
  assertEquals(splitLines(""), []);
  assertEquals(splitLines("\n"), [""]);
  assertEquals(splitLines("a"), ["a"]);
  assertEquals(splitLines("a\n"), ["a"]);
  assertEquals(splitLines("a\nb"), ["a", "b"]);
  assertEquals(splitLines("a\n\nb\n"), ["a", "", "b"]);
  assertEquals(splitLines("a\r\nb\r\n"), ["a\r", "b\r"]);
  assertEquals(splitLines("old\rmac\nx"), ["old\rmac", "x"]);
  assertEquals(splitLines("a\n\n"), ["a", ""]);
});

Deno.test("countLines agrees with splitLines", () => {
  for (
    const text of ["", "\n", "a", "a\n", "a\nb", "a\n\nb\n", "a\r\nb\r\n", "\n\n\n", "x\ny\nz"]
  ) {
    assertEquals(countLines(text), splitLines(text).length, JSON.stringify(text));
  }
});

Deno.test("utf8Length matches the encoder, including lone surrogates", () => {
  for (const text of ["", "abc", "é", "项目", "🚀x", "\uD800", "a\uDC00b", "\uD83D"]) {
    assertEquals(utf8Length(text), new TextEncoder().encode(text).length, JSON.stringify(text));
  }
});

Deno.test("utf8LinesBetween and countUtf8Lines give the decoded text's lines and count from its bytes", () => {
  const texts = [
    "",
    "a",
    "a\n",
    "\n",
    "\n\n",
    "a\r\n\r\nb\n\n",
    "x\ny\nz",
    "\uFEFFbom\nb",
    "é\n项目\r\n🚀x\n",
    "\u2028a\u2029\nb",
  ];
  for (const text of texts) {
    const bytes = new TextEncoder().encode(text);
    assertEquals(countUtf8Lines(bytes), countLines(text), JSON.stringify(text));
    const count = countLines(text);
    const lines = splitLines(text);
    for (let start = 1; start <= count + 2; start++) {
      for (let end = start - 1; end <= count + 2; end++) {
        assertEquals(
          utf8LinesBetween(bytes, start, end),
          lines.slice(start - 1, Math.max(start - 1, end)),
          `${JSON.stringify(text)} ${start}-${end}`,
        );
      }
    }
  }
});
