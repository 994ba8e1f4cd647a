import { RE2JS } from "re2js";
import {
  decodePostings,
  encodePostings,
  intersect,
  union,
} from "../../../../sourcegraph/search/index/postings.ts";
import {
  lookups,
  MAX_QUERY_TRIGRAMS,
  trigramQuery,
} from "../../../../sourcegraph/search/query/trigram_query.ts";
import {
  literalTrigrams,
  symbolOf,
  TrigramCollector,
} from "../../../../sourcegraph/search/index/trigrams.ts";
import { assert, assertEquals } from "../../../support/assert.ts";

const tri = (text: string) => literalTrigrams(text, { ignoreCase: false })!;
const query = (pattern: string, ignoreCase = false, fixedStrings = false) =>
  trigramQuery(pattern, { fixedStrings, ignoreCase });

Deno.test("trigrams: case folds, the two non-ASCII folds to ASCII, every file trigram of a literal", () => {
  assertEquals(symbolOf("A".charCodeAt(0)), symbolOf("a".charCodeAt(0)));
  assertEquals(symbolOf(0x212a), symbolOf("k".charCodeAt(0)));
  assertEquals(symbolOf(0x017f), symbolOf("s".charCodeAt(0)));
  const collector = new TrigramCollector();
  for (
    const [text, literal] of [["say Hello World", "hello"], ["\u212Aelvin", "kel"], [
      "日本語のテキスト",
      "本語の",
    ]]
  ) {
    const inText = new Set(collector.collect(text));
    for (const trigram of tri(literal)) assert(inText.has(trigram), `${literal} in ${text}`);
  }
  assertEquals(literalTrigrams("ab", { ignoreCase: false }), null);
  // Case-insensitive: non-ASCII letters are unknown (their variants may fall elsewhere).
  assertEquals(literalTrigrams("éé€", { ignoreCase: true }), null);
  assertEquals(literalTrigrams("éé€", { ignoreCase: false })!.length, 1);
  const again = collector.collect("aaaa");
  assertEquals([...again], [symbolOf(97) * 65793]);
});

Deno.test("trigram collector: each text's distinct trigrams, in first-seen order, nothing carried over", () => {
  const naive = (text: string) => {
    const found: number[] = [];
    for (let i = 2; i < text.length; i++) {
      const trigram = (symbolOf(text.charCodeAt(i - 2)) << 16) |
        (symbolOf(text.charCodeAt(i - 1)) << 8) | symbolOf(text.charCodeAt(i));
      if (!found.includes(trigram)) found.push(trigram);
    }
    return found;
  };
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  // Longer than the first output buffer (4,096), over all 256 symbols, with repeats.
  const long = Array.from({ length: 9000 }, () => String.fromCharCode(random() * 600)).join("");
  const collector = new TrigramCollector();
  for (const text of ["abcabcabd", "abcabcabd", "", "ab", "ABCabc", long, long, "abcabcabd"]) {
    assertEquals([...collector.collect(text)], naive(text), text.slice(0, 12));
  }
  // ASCII given as bytes: the same trigrams, in the same order, between texts given either way.
  const ascii = Array.from({ length: 9000 }, () => String.fromCharCode(random() * 128)).join("");
  for (const text of ["ABCabcabd", ascii, "", "ab", ascii, "Hello, World"]) {
    const bytes = new TextEncoder().encode(text);
    assertEquals([...collector.collectAscii(bytes)], naive(text), text.slice(0, 12));
    assertEquals([...collector.collect(text)], naive(text), text.slice(0, 12));
  }
});

Deno.test("trigram query: literals AND, alternations OR, nothing usable means all, bounded", () => {
  assertEquals(query("[a-z]+\\d").op, "all");
  assertEquals(query("ab|cd").op, "all", "short literals give no trigram");
  assertEquals(query("(?i)hello").op, "all", "an inline fold hides the literal");
  const alternation = query("foobar|bazqux");
  assertEquals(alternation.op, "or");
  const concat = query("hello\\s+world");
  assertEquals(concat.op, "and");
  assertEquals(lookups(concat), 6);
  assertEquals(lookups(query("a.b(", false, true)), 2);
  assertEquals(lookups(query("HELLO", true)), 3);
  // re2js factors common prefixes: the shared prefix is what every match needs.
  assertEquals(lookups(query(Array.from({ length: 1500 }, (_, i) => `word${i}`).join("|"))), 2);
  const letters = (n: number) =>
    n.toString(26).split("").map((d) => "jklmnopqrstuvwxyzabcdefghi"[parseInt(d, 26)]).join("");
  const distinct = Array.from({ length: 900 }, (_, i) => `${letters(i * 7919 + 17576)}x`).join("|");
  assertEquals(query(distinct).op, "all", "an OR past the lookup bound matches everything");
  assert(
    lookups(query("x".repeat(200) + "abcdefghij".repeat(50), false, true)) <= MAX_QUERY_TRIGRAMS,
  );
  // The prefilter is read from re2js's compiled program: its shape must not move.
  const prefilter = (RE2JS.compile("foo(bar|baz)").re2() as unknown as {
    prefilter: { type: number; subs: unknown[] };
  }).prefilter;
  assertEquals(prefilter.type, 2);
  assertEquals(prefilter.subs.length, 2);
});

Deno.test("postings: varint gaps round-trip; intersections and unions of sorted lists", () => {
  const ids = [1, 2, 130, 20_000, 2 ** 31 + 5];
  assertEquals([...decodePostings(encodePostings(ids), ids.length)], ids);
  const a = new Uint32Array([1, 3, 5, 7, 9, 1000]);
  const b = new Uint32Array([2, 3, 4, 9, 1000, 1001]);
  assertEquals([...intersect(a, b)], [3, 9, 1000]);
  assertEquals([...union(a, b)], [1, 2, 3, 4, 5, 7, 9, 1000, 1001]);
  assertEquals([...intersect(a, new Uint32Array(0))], []);
});
