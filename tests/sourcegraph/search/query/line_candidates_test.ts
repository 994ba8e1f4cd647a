import {
  CandidateLines,
  lineFinder,
  linesToVerify,
} from "../../../../sourcegraph/search/query/line_candidates.ts";
import { splitLines } from "../../../../shared/text.ts";
import { compileSearch } from "../../../../sourcegraph/search/query/compiled_search.ts";
import { assertEquals } from "../../../support/assert.ts";

Deno.test("line candidates: one literal, several and caseless ones visit exactly the lines holding them", () => {
  const texts = [
    "needle first\nnothing\nαβγ needle needle\n\n日本 needle",
    "needle",
    "no match here\n",
    "x\nneedle\n",
    "\n\nneedle\n\nneedleneedle\nend",
    "pin\nneedle pin\nthread\r\n",
  ];
  for (const text of texts) {
    const holding = (...words: string[]) =>
      splitLines(text).map((line, i): [number, string] => [i + 1, line])
        .filter(([, line]) => words.some((word) => line.includes(word)));
    assertEquals(
      [...linesToVerify(text, lineFinder(["needle"], { ignoreCase: false }))],
      holding("needle"),
    );
    assertEquals(
      [...linesToVerify(text, lineFinder(["needle", "thread"], { ignoreCase: false }))],
      holding("needle", "thread"),
      text,
    );
    const caseless = [
      ...linesToVerify(text.toUpperCase(), lineFinder(["needle"], { ignoreCase: true })),
    ];
    assertEquals(caseless.map(([number]) => number), holding("needle").map(([number]) => number));
  }
  // RE2 folds k to KELVIN SIGN: the caseless finder must visit such a line.
  assertEquals([...linesToVerify("a\nma\u212Aer\n", lineFinder(["MAKER"], { ignoreCase: true }))], [
    [2, "ma\u212Aer"],
  ]);
  assertEquals(
    [...linesToVerify("x.y\nxzy\n", lineFinder(["x.y", "a|b"], { ignoreCase: false }))],
    [
      [1, "x.y"],
    ],
  );
  assertEquals(
    lineFinder(["ünïcode"], { ignoreCase: true }),
    null,
    "non-ASCII caseless: every line",
  );
  assertEquals(lineFinder(null, { ignoreCase: false }), null);
  assertEquals([...linesToVerify("a\nb\n", null)], [[1, "a"], [2, "b"]]);
});

Deno.test("line candidates: literals with punctuation are found, caseless too (no escape is a syntax error)", () => {
  const text = "a\nFSMONITOR-NONE here\npath/to.c {x} $y\n(a|b) [c] ^d\\e\n";
  const punctuation = ["fsmonitor-none", "path/to.c", "{x} $y", "(a|b) [c] ^d\\e"];
  for (const ignoreCase of [true, false]) {
    const finder = lineFinder(ignoreCase ? punctuation : [...punctuation, "x"], { ignoreCase });
    const lines = [...linesToVerify(ignoreCase ? text : text.toLowerCase(), finder)];
    assertEquals(lines.map(([number]) => number), [2, 3, 4]);
  }
});

Deno.test("line candidates: a fixed string's finder gives exactly the lines RE2 matches, so they skip it", () => {
  // Case variants RE2 folds (KELVIN SIGN, LONG S) and look-alikes it does not
  // (dotted capital I, sharp s, fullwidth letters, a lone surrogate).
  const text = [
    "task",
    "TASK here",
    "ta\u017Fk",
    "TAS\u212A",
    "tas\u212Aer \uD800",
    "ta\u00DFk",
    "t\u0130sk",
    "\uFF54\uFF41\uFF53\uFF4B",
    "tas",
    "\uD83D\uDE00 task \uDC00",
    "",
  ].join("\n");
  const lines = splitLines(text);
  for (const [pattern, ignoreCase] of [["task", true], ["TASK", true], ["task", false]] as const) {
    const search = compileSearch({ pattern, fixedStrings: true, ignoreCase });
    assertEquals(search.finderMatches, true, pattern);
    const found = [...linesToVerify(text, search.finder)].map(([number]) => number);
    const matching = lines.flatMap((line, i) => search.regex.test(line) ? [i + 1] : []);
    assertEquals(found, matching, `${pattern} ${ignoreCase}`);
  }
  // Both folded letters count: k as KELVIN SIGN, s as LONG S.
  const caseless = compileSearch({ pattern: "TASK", fixedStrings: true, ignoreCase: true });
  assertEquals([...linesToVerify(text, caseless.finder)].map(([number]) => number), [
    1,
    2,
    3,
    4,
    5,
    10,
  ]);
  // Non-ASCII ignoring case, or a pattern: the finder only narrows, RE2 decides.
  assertEquals(
    compileSearch({ pattern: "\u212Aelvin", fixedStrings: true, ignoreCase: true }).finderMatches,
    false,
  );
  assertEquals(compileSearch({ pattern: "ta(sk|il)" }).finderMatches, false);
  assertEquals(compileSearch({ pattern: "t.sk" }).finderMatches, false);
  // A pattern without a metacharacter is its own text: searched as a fixed string.
  for (const ignoreCase of [false, true]) {
    const plain = compileSearch({ pattern: "task", ignoreCase });
    const fixed = compileSearch({ pattern: "task", ignoreCase, fixedStrings: true });
    assertEquals(plain.finderMatches, true);
    assertEquals([plain.finder, plain.trigrams, plain.literals], [
      fixed.finder,
      fixed.trigrams,
      fixed.literals,
    ]);
    assertEquals(
      lines.filter((line) => plain.regex.test(line)),
      lines.filter((line) => fixed.regex.test(line)),
    );
  }
  assertEquals(compileSearch({ pattern: "t-sk_#%é" }).finderMatches, true);
  // A lone surrogate: `indexOf` finds it inside a pair, which RE2 reads as one code point.
  for (const fixedStrings of [true, false]) {
    const lone = compileSearch({ pattern: "\uD83D", fixedStrings });
    assertEquals(lone.finderMatches, false);
    assertEquals(lone.regex.test("x \uD83D\uDE00 y"), false);
    assertEquals(compileSearch({ pattern: "\uD83D\uDE00", fixedStrings }).finderMatches, true);
  }
});

Deno.test("line candidates: a line's number and text are the same whichever earlier lines were read", () => {
  const text = "needle a\nb\n\nc needle\nneedle needle\r\nd\n\nneedle\nlast";
  const finders = [
    lineFinder(["needle"], { ignoreCase: false }),
    lineFinder(["NEEDLE"], { ignoreCase: true }),
    null,
  ];
  for (const finder of finders) {
    const every = [...linesToVerify(text, finder)].map(([number, line]): [number, string] => [
      number + 10,
      line,
    ]);
    // Each line read alone, after earlier lines left unread (every subset of the first five).
    for (let mask = 0; mask < 1 << Math.min(every.length, 5); mask++) {
      const lines = new CandidateLines(text, finder, 10);
      const read: [number, string][] = [];
      for (let i = 0; lines.next(); i++) {
        if (i < 5 && (mask & (1 << i)) === 0) continue;
        // The number first, then the text, or the other way round.
        if (i % 2 === 0) {
          read.push([lines.number, lines.text]);
        } else {
          const line = lines.text;
          read.push([lines.number, line]);
        }
      }
      assertEquals(read, every.filter((_, i) => i >= 5 || (mask & (1 << i)) !== 0), `${mask}`);
    }
  }
  assertEquals([...linesToVerify("", null)], []);
  const none = new CandidateLines("", lineFinder(["x"], { ignoreCase: false }));
  assertEquals(none.next(), false);
});
