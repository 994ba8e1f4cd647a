import { searchableText } from "../../../sourcegraph/search/searchable_text.ts";
import { assertEquals } from "../../support/assert.ts";

Deno.test("searchable text: binary and non-UTF-8 blobs are skipped; a leading BOM is not searched", () => {
  const bytes = (...values: number[]) => new Uint8Array(values);
  assertEquals(searchableText(new TextEncoder().encode("a\nb\n")), "a\nb\n");
  assertEquals(searchableText(bytes(0x61, 0x00, 0x62)), null);
  assertEquals(searchableText(bytes(0xe9, 0x0a)), null);
  assertEquals(searchableText(bytes(0xef, 0xbb, 0xbf, 0x78)), "x");
  assertEquals(searchableText(bytes(0x78, 0xef, 0xbb, 0xbf)), "x\ufeff");
  assertEquals(searchableText(new Uint8Array(0)), "");
});
