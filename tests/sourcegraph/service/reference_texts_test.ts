/**
 * The texts one `references` call reads: each file is read once while kept
 * (asked again, or asked while being read, it is not read again), a failed
 * read is not kept, and what is kept stays within its bytes, the least
 * recently asked text dropped first (read again when asked again).
 */

import { assert, assertEquals, assertRejects } from "../../support/assert.ts";
import {
  REFERENCES_SHARED_TEXTS,
  REFERENCES_TEXT_BYTES,
  ReferenceTexts,
} from "../../../sourcegraph/service/reference_texts.ts";

// Texts of `size` characters a path, and the paths read, in order.
function reader(size: number): { read: (path: string) => Promise<string | null>; reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    read: (path) => {
      reads.push(path);
      if (path === "missing") return Promise.resolve(null);
      if (path === "broken") return Promise.reject(new Error("read failed"));
      return Promise.resolve(path.padEnd(size, "x"));
    },
  };
}

Deno.test("reference texts: a file is read once while kept, also when asked while being read", async () => {
  const { read, reads } = reader(100);
  const texts = new ReferenceTexts(read);
  const [a, again] = await Promise.all([texts.text("a.ts"), texts.text("a.ts")]);
  assertEquals(a, again);
  assertEquals(a?.length, 100);
  assertEquals(await texts.text("a.ts"), a);
  assertEquals(await texts.text("missing"), null);
  assertEquals(await texts.text("missing"), null);
  assertEquals(reads, ["a.ts", "missing"]);
  // Two bytes a UTF-16 code unit.
  assertEquals(texts.bytes, 200);
  assert(REFERENCES_TEXT_BYTES >= 8 * 1024 * 1024, "several of the largest files parsed fit");
});

Deno.test("reference texts: a failed read is not kept, a later ask reads again", async () => {
  const { read, reads } = reader(10);
  const texts = new ReferenceTexts(read);
  await assertRejects(() => texts.text("broken"), Error);
  await assertRejects(() => texts.text("broken"), Error);
  assertEquals(reads, ["broken", "broken"]);
  assertEquals(texts.bytes, 0);
});

Deno.test("reference texts: what is kept stays within its bytes, the least recently asked dropped first", async () => {
  const { read, reads } = reader(1000);
  // Room for two texts of 1,000 characters (2,000 bytes each), not three.
  const texts = new ReferenceTexts(read, { maxBytes: 5000 });
  await texts.text("a.ts");
  await texts.text("b.ts");
  await texts.text("a.ts"); // a.ts is now the most recently asked
  await texts.text("c.ts"); // b.ts is dropped
  assertEquals(texts.bytes, 4000);
  await texts.text("a.ts");
  await texts.text("c.ts");
  assertEquals(reads, ["a.ts", "b.ts", "c.ts"]);
  assertEquals(await texts.text("b.ts"), "b.ts".padEnd(1000, "x"));
  assertEquals(reads, ["a.ts", "b.ts", "c.ts", "b.ts"]);
  assert(texts.bytes <= 5000, `${texts.bytes} bytes kept`);
  // A text larger than the whole bound is answered, and not kept.
  const small = new ReferenceTexts(read, { maxBytes: 1000 });
  assertEquals((await small.text("big.ts"))?.length, 1000);
  assertEquals(small.bytes, 0);
  for (let i = 0; i < 50; i++) await texts.text(`f${i}.ts`);
  assert(texts.bytes <= 5000, `${texts.bytes} bytes kept after 50 files`);
});

Deno.test("reference texts: a text is read by the reader its ask gives, and kept for later asks whatever their reader", async () => {
  const given = reader(10);
  const other = reader(20);
  const texts = new ReferenceTexts(given.read);
  // The position's file: its text from bytes already read, then a later ask reads nothing.
  assertEquals(await texts.text("blob-a", () => Promise.resolve("from the read")), "from the read");
  assertEquals(await texts.text("blob-a", other.read), "from the read");
  assertEquals(await texts.text("blob-a"), "from the read");
  assertEquals((await texts.text("blob-b", other.read))?.length, 20);
  assertEquals(await texts.text("blob-c", () => Promise.resolve(null)), null);
  assertEquals(await texts.text("blob-c", other.read), null);
  assertEquals(given.reads, []);
  assertEquals(other.reads, ["blob-b"]);
});

Deno.test("reference texts: what is kept stays within its count of texts too, unread ones counted", async () => {
  const { read, reads } = reader(10);
  const texts = new ReferenceTexts(read, { maxEntries: 3 });
  for (const path of ["missing", "a.ts", "b.ts", "c.ts", "d.ts"]) await texts.text(path);
  assertEquals(texts.size, 3);
  // The oldest ones, the unreadable one first, were dropped; the newest three are kept.
  await texts.text("b.ts");
  await texts.text("d.ts");
  await texts.text("missing");
  assertEquals(reads, ["missing", "a.ts", "b.ts", "c.ts", "d.ts", "missing"]);
  assert(texts.size <= 3, `${texts.size} texts kept`);
  assert(REFERENCES_SHARED_TEXTS.entries >= 1000 && REFERENCES_SHARED_TEXTS.bytes >= 8 << 20);
});
