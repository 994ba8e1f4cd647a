/**
 * The chunk texts searches read last are kept across indexes, bounded in
 * bytes: a kept text is not read again, the least recently used goes first,
 * indexes never see each other's texts, and a closed index's texts go.
 */

import { RecentChunks } from "../../../../sourcegraph/search/index/recent_chunks.ts";
import { assert, assertEquals } from "../../../support/assert.ts";

// A reader of an index whose chunk `id` is `prefix` repeated `size` times; it records what it read.
function reader(prefix: string, size: number, gone: number[] = []) {
  const asked: number[][] = [];
  const read = (ids: number[]) => {
    asked.push(ids);
    return new Map(
      ids.filter((id) => !gone.includes(id)).map((id) => [id, `${prefix}${id}`.repeat(size)]),
    );
  };
  return { asked, read };
}

Deno.test("recent chunks: a kept text is given without reading it again, and equals what was read", () => {
  const recent = new RecentChunks({ bytes: 1 << 20 });
  const index = {};
  const { asked, read } = reader("a", 10, [7]);
  const first = recent.texts(index, [1, 2, 7], read);
  assertEquals([...first], [[1, "a1".repeat(10)], [2, "a2".repeat(10)]]);
  const second = recent.texts(index, [2, 3, 1, 7], read);
  assertEquals(second.get(1), "a1".repeat(10));
  assertEquals(second.get(3), "a3".repeat(10));
  assert(!second.has(7), "a chunk that is gone stays absent");
  // Only what was not kept was read: 3, and 7 again (a gone chunk is not kept).
  assertEquals(asked, [[1, 2, 7], [3, 7]]);
});

Deno.test("recent chunks: past its bytes the least recently used text goes first; a read makes a text recent", () => {
  // Each text: 100 ASCII characters and the entry's own 64 bytes.
  const recent = new RecentChunks({ bytes: 3 * 164 });
  const index = {};
  const { asked, read } = reader("x", 50);
  recent.texts(index, [1, 2, 3], read);
  assertEquals(recent.size, 3);
  recent.texts(index, [1], read); // 1 is now the most recent
  recent.texts(index, [4], read); // forgets 2, the least recent
  assertEquals(recent.size, 3);
  assert(recent.bytes <= 3 * 164, `${recent.bytes}`);
  asked.length = 0;
  recent.texts(index, [1, 3, 4, 2], read);
  assertEquals(asked, [[2]]);
});

Deno.test("recent chunks: a text of characters beyond ASCII counts two bytes each; one larger than the bound is never kept", () => {
  const recent = new RecentChunks({ bytes: 1000 });
  const index = {};
  recent.texts(index, [1], () => new Map([[1, "é".repeat(100)]]));
  assertEquals(recent.bytes, 64 + 200);
  recent.texts(index, [2], () => new Map([[2, "b".repeat(2000)]]));
  assertEquals(recent.size, 1);
  assertEquals(recent.bytes, 64 + 200);
});

Deno.test("recent chunks: indexes never see each other's texts, and a closed index's texts go", () => {
  const recent = new RecentChunks({ bytes: 1 << 20 });
  const [one, two] = [{}, {}];
  const first = reader("one", 5);
  const second = reader("two", 5);
  assertEquals(recent.texts(one, [1, 2], first.read).get(1), "one1".repeat(5));
  assertEquals(recent.texts(two, [1, 2], second.read).get(1), "two1".repeat(5));
  assertEquals(recent.texts(one, [1], first.read).get(1), "one1".repeat(5));
  assertEquals(recent.size, 4);
  recent.forget(one);
  assertEquals(recent.size, 2);
  assertEquals(recent.bytes, 2 * (64 + 20));
  first.asked.length = 0;
  recent.texts(one, [1, 2], first.read);
  assertEquals(first.asked, [[1, 2]]);
});

Deno.test("recent chunks: a million reads of distinct chunks hold no more than the bound", () => {
  const bound = 64 * 1024;
  const recent = new RecentChunks({ bytes: bound });
  const index = {};
  const read = (ids: number[]) => new Map(ids.map((id) => [id, `${id}`.padEnd(40, ".")]));
  for (let start = 0; start < 1_000_000; start += 1000) {
    recent.texts(index, Array.from({ length: 1000 }, (_, i) => start + i), read);
    assert(recent.bytes <= bound, `${recent.bytes}`);
  }
  assertEquals(recent.size, Math.floor(bound / 104));
});
