/** The headers of a raw file: text or a download, a sandbox, and a file name that stays data. */

import { assertEquals } from "../../support/assert.ts";
import { rawHeaders } from "../../../sourcegraph/web/raw_response.ts";

Deno.test("raw headers: UTF-8 text is text; NUL, invalid UTF-8 and hostile names download safely", () => {
  const text = rawHeaders("src/a.ts", new TextEncoder().encode("const a = 'ü';\n"));
  assertEquals(text["Content-Type"], "text/plain; charset=utf-8");
  assertEquals(text["Content-Disposition"], undefined);
  assertEquals(text["X-Content-Type-Options"], "nosniff");
  for (const bytes of [new Uint8Array([0x61, 0]), new Uint8Array([0xff, 0xfe])]) {
    assertEquals(rawHeaders("x.bin", bytes)["Content-Type"], "application/octet-stream");
  }
  const hostile = rawHeaders('dir/we"ird\\ \r\nüñ%.bin', new Uint8Array([0]));
  assertEquals(
    hostile["Content-Disposition"],
    `attachment; filename="we_ird_ _____.bin"; filename*=UTF-8''we%22ird%5C%20%0D%0A%C3%BC%C3%B1%25.bin`,
  );
  assertEquals(
    hostile["Content-Security-Policy"],
    "default-src 'none'; sandbox; frame-ancestors 'none'",
  );
});

Deno.test("raw headers: filename* percent-encodes every byte that is not an RFC 8187 attr-char", () => {
  const name = "it's (a) *star* !~-_.`^|#$&+1.bin";
  const header = rawHeaders(`dir/${name}`, new Uint8Array([0]))["Content-Disposition"];
  const ext = header.slice(header.indexOf("filename*=UTF-8''") + "filename*=UTF-8''".length);
  assertEquals(ext, "it%27s%20%28a%29%20%2Astar%2A%20!~-_.%60%5E%7C%23%24%26%2B1.bin");
  // attr-char = ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
  assertEquals(/^(?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-F]{2})*$/.test(ext), true);
  assertEquals(decodeURIComponent(ext), name);
});
