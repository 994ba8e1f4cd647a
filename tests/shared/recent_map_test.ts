import { assertEquals, assertThrows } from "../support/assert.ts";
import { RecentMap } from "../../shared/recent_map.ts";

Deno.test("recent map: past its limit it forgets the least recently used entry, a read or a write making an entry the most recent", () => {
  const kept = new RecentMap<string, number>(3);
  kept.set("a", 1).set("b", 2).set("c", 3);
  assertEquals(kept.get("a"), 1); // a is now the most recent: b is the oldest
  kept.set("d", 4);
  assertEquals([...kept.keys()], ["c", "a", "d"]);
  kept.set("c", 30); // rewritten: the most recent, with its new value
  kept.set("e", 5);
  assertEquals([...kept.keys()], ["d", "c", "e"]);
  assertEquals([kept.get("c"), kept.get("b"), kept.size], [30, undefined, 3]);
});

Deno.test("recent map: peek reads without making the entry recent; delete and clear forget", () => {
  const kept = new RecentMap<string, number>(2);
  kept.set("a", 1).set("b", 2);
  assertEquals(kept.peek("a"), 1);
  kept.set("c", 3); // a was only peeked at: it is forgotten first
  assertEquals([...kept.keys()], ["b", "c"]);
  assertEquals([kept.delete("b"), kept.delete("b"), kept.size], [true, false, 1]);
  kept.clear();
  assertEquals([kept.size, kept.get("c")], [0, undefined]);
});

Deno.test("recent map: a million writes of distinct keys hold no more than its limit", () => {
  const kept = new RecentMap<number, number>(1_000);
  for (let i = 0; i < 1_000_000; i++) kept.set(i, i);
  assertEquals([kept.size, kept.get(999_000), kept.get(998_999)], [1_000, 999_000, undefined]);
});

Deno.test("recent map: a limit under one or not a whole number is refused", () => {
  for (const limit of [0, -1, 1.5, Number.NaN]) {
    const error = assertThrows(() => new RecentMap(limit), RangeError);
    assertEquals(error.message, `a RecentMap holds at least one entry, not ${limit}`);
  }
});

Deno.test("recent map: what it forgets to make room is handed to `forgotten`, once, least recent first", () => {
  const forgotten: [string, number][] = [];
  const map = new RecentMap<string, number>(2, {
    forgotten: (key, value) => forgotten.push([key, value]),
  });
  map.set("a", 1).set("b", 2);
  map.get("a");
  map.set("c", 3);
  map.set("c", 30); // replacing a kept entry forgets nothing
  map.set("d", 4);
  map.delete("d"); // deleting is not forgetting to make room
  assertEquals(forgotten, [["b", 2], ["a", 1]]);
  assertEquals([...map.keys()], ["c"]);
});
