import { RE2JS } from "re2js";
import { shapePrefilter } from "../../../../sourcegraph/search/query/pattern_shape.ts";
import { linesToVerify } from "../../../../sourcegraph/search/query/line_candidates.ts";
import { assert, assertEquals } from "../../../support/assert.ts";
import { prng } from "../../../support/bench_stats.ts";

// The prefilter's source with code points written back as characters, for reading.
function shape(pattern: string, ignoreCase = false): string | null {
  const source = shapePrefilter(pattern, { ignoreCase })?.source ?? null;
  return source?.replace(
    /\\u\{([0-9a-f]+)\}/g,
    (_, hex) => String.fromCodePoint(parseInt(hex, 16)),
  ) ??
    null;
}

Deno.test("pattern shape: the longest run of single characters, per alternative", () => {
  const cases: [string, string | null][] = [
    ["[A-Z]{2}_[0-9]{2}\\b", "[A-Z][A-Z]_[0-9][0-9]"],
    ["\\w+_id|(get|set)\\d+", "\\w_id|\\d"],
    ["^\\s*#\\s*define\\s+[A-Z]", "define[^\\S\\n]"],
    ["x{1000}y", `${"x".repeat(16)}y`],
    ["a{2,5}b", "aab"],
    ["(?:ab)c", "abc"],
    ["(ab)+c", "c"],
    ["[^a-z]\\.[[:alpha:]]q", "[^\\na-z].[^\\n]q"],
    ["\\pL+\\d", "[^\\n]\\d"],
    ["\\Qa.b\\E", "a.b"],
    ["\\x{1F600}z", "😀z"],
    ["[\\d\\-x]y", "[\\d-x]y"],
    // No run, or a construct the reader does not take: no prefilter (every line checked).
    ["a|.*", null],
    [".+", null],
    ["(?i)abc", null],
    ["\\1", null],
  ];
  for (const [pattern, expected] of cases) assertEquals(shape(pattern), expected, pattern);
});

Deno.test("pattern shape: catastrophic patterns give runs without repetition", () => {
  const line = "a".repeat(256 * 1024);
  for (
    const pattern of ["(a+)+b", "(a|a)*b", "a*a*a*a*a*a*b", "(a|aa)+$", "(\\w+\\s?)+!", "(.*a){20}"]
  ) {
    const prefilter = shapePrefilter(pattern, { ignoreCase: false });
    if (prefilter === null) continue;
    assert(!/[*+?{]/.test(prefilter.source.replace(/\\u\{[0-9a-f]+\}/g, "")), prefilter.source);
    prefilter.lastIndex = 0;
    prefilter.test(line);
  }
});

const ATOMS = [
  "a",
  "b",
  "_",
  "1",
  "A",
  "\\.",
  "-",
  " ",
  "é",
  "😀",
  ".",
  "\\d",
  "\\w",
  "\\s",
  "\\D",
  "\\W",
  "\\S",
  "[a-c]",
  "[^a]",
  "[^\\d ]",
  "[[:alpha:]]",
  "\\pL",
  "\\b",
  "\\B",
  "^",
  "$",
  "\\x41",
  "\\Qa.\\E",
  "[\\w-]",
  "(?:ab)",
  "(a|b1)",
  "(x)",
];
const REPEATS = ["", "", "", "*", "+", "?", "{2}", "{1,3}", "{2,}", "*?", "+?"];
const ALPHABET = ["a", "b", "_", "1", "A", ".", "-", " ", "\t", "é", "😀", "x", "K", "k", "\u212a"];

function randomPattern(random: () => number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const branch = () =>
    Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(ATOMS) + pick(REPEATS)).join(
      "",
    );
  return random() < 0.2 ? `${branch()}|${branch()}` : branch();
}

Deno.test("pattern shape: every line RE2 matches, the prefilter finds (random patterns, both cases)", () => {
  const random = prng(7);
  let checked = 0;
  let filtered = 0;
  for (let p = 0; p < 3_000; p++) {
    const pattern = randomPattern(random);
    const ignoreCase = random() < 0.3;
    let re2: RE2JS;
    try {
      re2 = RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    } catch {
      continue;
    }
    const prefilter = shapePrefilter(pattern, { ignoreCase });
    if (prefilter === null) continue;
    filtered++;
    const lines = Array.from(
      { length: 40 },
      () =>
        Array.from(
          { length: Math.floor(random() * 10) },
          () => ALPHABET[Math.floor(random() * ALPHABET.length)],
        ).join(""),
    );
    const found = new Set(
      [...linesToVerify(lines.join("\n"), { pattern: prefilter })].map(([number]) => number),
    );
    lines.forEach((line, i) => {
      if (!re2.test(line)) return;
      checked++;
      assert(
        found.has(i + 1),
        `${pattern} (ignore case ${ignoreCase}) missed ${JSON.stringify(line)}`,
      );
    });
  }
  assert(filtered > 1_000, `${filtered} patterns had a prefilter`);
  assert(checked > 5_000, `${checked} matching lines checked`);
});
