/**
 * Large blobs' bytes kept across `references` calls: a large blob is read
 * once while kept, a small one (or one not read) each time, and what is kept
 * stays within its bytes, the least recently asked dropped first.
 */

import { assert, assertEquals } from "../../support/assert.ts";
import { KEPT_BLOBS, KeptBlobs } from "../../../sourcegraph/service/kept_blobs.ts";

// Blobs of `size` bytes (an id "small" 10 bytes, "gone" none), and the ids read, in order.
function reader(size: number) {
  const reads: string[] = [];
  const read = (oid: string) => () => {
    reads.push(oid);
    if (oid === "gone") return Promise.resolve(null);
    return Promise.resolve(new Uint8Array(oid === "small" ? 10 : size).fill(oid.charCodeAt(0)));
  };
  return { reads, read };
}

Deno.test("kept blobs: a large blob is read once while kept; a small one, or none, each time", async () => {
  const { reads, read } = reader(1000);
  const blobs = new KeptBlobs({ maxBytes: 10_000, minBytes: 100 });
  const first = await blobs.bytes("a", read("a"));
  assertEquals(first?.length, 1000);
  assertEquals(await blobs.bytes("a", read("a")), first);
  assertEquals((await blobs.bytes("small", read("small")))?.length, 10);
  assertEquals((await blobs.bytes("small", read("small")))?.length, 10);
  assertEquals(await blobs.bytes("gone", read("gone")), null);
  assertEquals(await blobs.bytes("gone", read("gone")), null);
  assertEquals(reads, ["a", "small", "small", "gone", "gone"]);
  assertEquals(blobs.size, 1000);
  assert(KEPT_BLOBS.minBytes <= 1024 * 1024 && KEPT_BLOBS.maxBytes >= 8 * 1024 * 1024);
});

Deno.test("kept blobs: what is kept stays within its bytes, the least recently asked dropped first", async () => {
  const { reads, read } = reader(1000);
  // Room for two blobs of 1,000 bytes, not three.
  const blobs = new KeptBlobs({ maxBytes: 2500, minBytes: 100 });
  await blobs.bytes("a", read("a"));
  await blobs.bytes("b", read("b"));
  await blobs.bytes("a", read("a")); // a is now the most recently asked
  await blobs.bytes("c", read("c")); // b is dropped
  assertEquals(blobs.size, 2000);
  await blobs.bytes("a", read("a"));
  await blobs.bytes("c", read("c"));
  await blobs.bytes("b", read("b"));
  assertEquals(reads, ["a", "b", "c", "b"]);
  assert(blobs.size <= 2500, `${blobs.size} bytes kept`);
  // A blob larger than the whole bound is answered, and not kept.
  const big = reader(5000);
  assertEquals((await blobs.bytes("d", big.read("d")))?.length, 5000);
  await blobs.bytes("d", big.read("d"));
  assertEquals(big.reads, ["d", "d"]);
});
