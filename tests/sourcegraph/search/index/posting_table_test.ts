/**
 * The build's posting table (an external sort in runs) gives every trigram
 * the list of ids it was added with, ascending, in trigram order, whatever
 * the size of its runs.
 */

import { decodePostings, PostingTable } from "../../../../sourcegraph/search/index/postings.ts";
import { prng } from "../../../support/bench_stats.ts";
import { assert, assertEquals } from "../../../support/assert.ts";

// Random postings: ids ascend; each id holds a few trigrams (some wide, near 2^24).
function randomPostings(seed: number, ids: number): [number, number][] {
  const random = prng(seed);
  const out: [number, number][] = [];
  let id = 0;
  for (let i = 0; i < ids; i++) {
    // Gaps up to 2^20 so varints take up to three bytes.
    id += 1 + Math.floor(random() ** 8 * (1 << 20));
    const trigrams = new Set<number>();
    const count = 1 + Math.floor(random() * 12);
    for (let t = 0; t < count; t++) {
      trigrams.add(random() < 0.5 ? Math.floor(random() * 40) : Math.floor(random() * (1 << 24)));
    }
    for (const trigram of trigrams) out.push([trigram, id]);
  }
  return out;
}

Deno.test("posting table: each trigram's ids, ascending, in trigram order, for any run size", () => {
  // Lists are views of shared blocks: small blocks put lists on both sides of their edges (and
  // some lists are longer than a block); every list read stays as it was read.
  const cases = [
    { seed: 1, pending: 7, listBlockBytes: 5 },
    { seed: 2, pending: 64, listBlockBytes: 64 },
    { seed: 3, pending: 1000, listBlockBytes: 1 << 20 },
    { seed: 4, pending: 1 << 16, listBlockBytes: 100 },
  ];
  for (const { seed, pending, listBlockBytes } of cases) {
    const postings = randomPostings(seed, 3000);
    const expected = new Map<number, number[]>();
    for (const [trigram, id] of postings) {
      expected.set(trigram, [...(expected.get(trigram) ?? []), id]);
    }
    const table = new PostingTable({ pending, listBlockBytes });
    // An id's trigrams arrive together (a run may end inside them).
    const byId = Map.groupBy(postings, ([, id]) => id);
    for (const [id, pairs] of byId) table.add(Uint32Array.from(pairs, ([t]) => t), id);
    const lists = [...table.lists()].map((list) => ({
      trigram: list.trigram,
      count: list.count,
      ids: [...decodePostings(list.bytes, list.count)],
    }));
    assertEquals(
      lists.map((list) => list.trigram),
      [...expected.keys()].sort((a, b) => a - b),
      `seed ${seed}`,
    );
    for (const list of lists) {
      assertEquals(list.ids, expected.get(list.trigram), `trigram ${list.trigram}`);
      assertEquals(list.count, list.ids.length);
    }
    // The bytes a list takes are its varints: within a few bytes a list of the table's count.
    const exact = lists.reduce((sum, list) => sum + encodedLength(list.ids), 0);
    assert(table.byteLength >= exact && table.byteLength <= exact + 3 * lists.length);
    // Cleared, it starts over.
    table.clear();
    table.add(Uint32Array.of(5), 9);
    assertEquals(
      [...table.lists()].map((list) => [list.trigram, [...decodePostings(list.bytes, list.count)]]),
      [
        [5, [9]],
      ],
    );
  }
});

function encodedLength(ids: number[]): number {
  let bytes = 0;
  let last = 0;
  for (const id of ids) {
    let gap = id - last;
    last = id;
    do {
      bytes++;
      gap >>>= 7;
    } while (gap > 0);
  }
  return bytes;
}
