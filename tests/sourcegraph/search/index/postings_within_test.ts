/**
 * `decodePostingsWithin` keeps exactly the ids of a list that a visible set
 * holds: on random lists (gaps of every varint length, ids up to 2^32 - 1)
 * and random visible sets, its answer is `decodePostings` then a filter,
 * also for empty sets, sets before the first id or past the last, the whole
 * list, a prefix of the list, and a list read from inside a larger buffer.
 */

import {
  decodePostings,
  decodePostingsWithin,
  encodePostings,
} from "../../../../sourcegraph/search/index/postings.ts";
import { prng } from "../../../support/bench_stats.ts";
import { assert, assertEquals } from "../../../support/assert.ts";

const MAX_ID = 2 ** 32 - 1;

// Ascending distinct ids from `start`: mostly small gaps, some of every varint length (1-5 bytes).
function randomList(random: () => number, length: number, start: number): number[] {
  const ids: number[] = [];
  let id = start;
  for (let i = 0; i < length && id <= MAX_ID; i++) {
    ids.push(id);
    const kind = random();
    const gap = kind < 0.6
      ? 1 + Math.floor(random() * 4)
      : kind < 0.9
      ? 1 + Math.floor(random() * 300)
      : 1 + Math.floor(random() ** 4 * 2 ** 30);
    id += gap;
  }
  return ids;
}

// A visible set: some of the list's ids (each kept with `keep`) and ids it does not hold.
function randomWithin(
  random: () => number,
  list: readonly number[],
  options: { keep: number; others: number; top: number },
): Uint32Array {
  const set = new Set<number>();
  for (const id of list) if (random() < options.keep) set.add(id);
  for (let i = 0; i < options.others; i++) set.add(Math.floor(random() * (options.top + 1)));
  return Uint32Array.from([...set].sort((a, b) => a - b));
}

// What `decodePostingsWithin` must answer: the whole decode, filtered.
function expected(bytes: Uint8Array, count: number, within: Uint32Array): number[] {
  const visible = new Set(within);
  return [...decodePostings(bytes, count)].filter((id) => visible.has(id));
}

// Asserts the answer equals the reference and is no larger than either input allows.
function check(bytes: Uint8Array, count: number, within: Uint32Array, what: string): void {
  const got = decodePostingsWithin(bytes, { count, within });
  assertEquals([...got], expected(bytes, count, within), what);
  assert(got.length <= Math.min(count, within.length), `${what}: answer longer than its inputs`);
}

Deno.test("decodePostingsWithin equals decodePostings then a filter, on random lists and visible sets", () => {
  const random = prng(20261203);
  for (let round = 0; round < 400; round++) {
    const length = [0, 1, 2, 3, 17, 200, 2000][round % 7];
    // Some lists start at 0, some far up (ids near 2^32 take five-byte gaps from 0).
    const start = round % 5 === 0
      ? 0
      : Math.floor(random() ** 2 * (round % 3 === 0 ? MAX_ID : 5000));
    const list = randomList(random, length, start);
    const bytes = encodePostings(list);
    const last = list.length > 0 ? list[list.length - 1] : start;
    const keep = [0, 0.01, 0.1, 0.5, 0.9, 1][round % 6];
    const others = Math.floor(random() * [0, 5, 50, 3000][round % 4]);
    const within = randomWithin(random, list, { keep, others, top: Math.min(MAX_ID, last + 10) });
    check(
      bytes,
      list.length,
      within,
      `round ${round} (${list.length} ids, ${within.length} visible)`,
    );
  }
});

Deno.test("decodePostingsWithin at the edges: empty sets and lists, sets outside the list, the whole list", () => {
  const random = prng(7);
  const list = randomList(random, 500, 3);
  const bytes = encodePostings(list);
  const first = list[0];
  const last = list[list.length - 1];
  const cases: [string, number[]][] = [
    ["no visible id", []],
    ["one id past the last", [last + 1]],
    ["ids all past the last", [last + 1, last + 2, last + 1000, MAX_ID]],
    ["ids all before the first", [0, 1, first - 1]],
    ["ids before and past, none in the list", [0, first - 1, last + 1, MAX_ID]],
    ["the first id only", [first]],
    ["the last id only", [last]],
    ["the last id and ids past it", [last, last + 1, MAX_ID]],
    ["the first and the last", [first, last]],
    ["the whole list", list],
    ["the whole list and more around it", [0, ...list, last + 1, MAX_ID]],
    [
      "the ids between the list's",
      list.slice(0, -1).map((id) => id + 1).filter((id) => !list.includes(id)),
    ],
  ];
  for (const [what, ids] of cases) {
    check(bytes, list.length, Uint32Array.from(ids), what);
  }
  // Named outcomes, beside the reference: nothing of what is not in the list.
  assertEquals(
    [...decodePostingsWithin(bytes, { count: list.length, within: new Uint32Array(0) })],
    [],
  );
  assertEquals(
    [...decodePostingsWithin(bytes, {
      count: list.length,
      within: Uint32Array.of(last + 1, MAX_ID),
    })],
    [],
  );
  assertEquals([
    ...decodePostingsWithin(bytes, { count: list.length, within: Uint32Array.from(list) }),
  ], list);
  // A dense list within every id from 0 to past its last.
  const dense = Array.from({ length: 400 }, (_, i) => 2 * i + (i % 3));
  const everyId = Array.from({ length: dense[dense.length - 1] + 10 }, (_, i) => i);
  check(encodePostings(dense), dense.length, Uint32Array.from(everyId), "every id from 0 on");
  // An empty list keeps nothing, whatever is visible.
  check(new Uint8Array(0), 0, Uint32Array.of(0, 1, 2), "an empty list");
  // A list holding 0 and the largest id.
  const extremes = [0, 1, MAX_ID - 1, MAX_ID];
  for (const ids of [[0], [MAX_ID], [0, MAX_ID], [1, MAX_ID - 1], extremes]) {
    check(
      encodePostings(extremes),
      extremes.length,
      Uint32Array.from(ids),
      `extremes within ${ids}`,
    );
  }
});

Deno.test("decodePostingsWithin reads only `count` ids: a prefix of a list, a list inside a larger buffer", () => {
  const random = prng(99);
  const list = randomList(random, 300, 0);
  assert(list.length > 100, `${list.length} ids`);
  const bytes = encodePostings(list);
  const within = randomWithin(random, list, {
    keep: 0.3,
    others: 200,
    top: list[list.length - 1] + 5,
  });
  // The first `count` ids only, and nothing past them, though the visible set goes on.
  for (const count of [0, 1, 2, list.length >> 1, list.length - 1]) {
    const got = [...decodePostingsWithin(bytes, { count, within })];
    assertEquals(got, expected(bytes, count, within), `count ${count}`);
    const end = count === 0 ? -1 : list[count - 1];
    assert(got.every((id) => id <= end), `count ${count}: an id past the prefix`);
  }
  // Lists are views of shared blocks: bytes after the list (more lists' gaps) are never read.
  const block = new Uint8Array(7 + bytes.length + 64);
  block.fill(0xff);
  block.set(bytes, 7);
  for (let i = 7 + bytes.length; i < block.length; i++) block[i] = 1 + (i % 3);
  const view = block.subarray(7, 7 + bytes.length + 64);
  // Every id one more gap would reach is visible, so a read past the list would show.
  const last = list[list.length - 1];
  const wider = Uint32Array.from(new Set([...within, last + 1, last + 2, last + 3])).sort();
  assertEquals(
    [...decodePostingsWithin(view, { count: list.length, within: wider })],
    expected(bytes, list.length, wider),
  );
});
