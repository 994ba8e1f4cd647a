import {
  definitionHit,
  type Location,
  macroAverage,
  scoreReferences,
  share,
} from "../bench/references/scoring.ts";
import { assertEquals } from "../support/assert.ts";

const at = (path: string, line: number, column = 1): Location => ({ path, line, column });

Deno.test("references scoring: precision and recall count distinct lines, columns aside", () => {
  // Truth: 4 lines (two references share line 3 of a.ts); the answer has 5 distinct lines,
  // 3 of them true, one line repeated at another column, one true line missed.
  const truth = [
    at("a.ts", 1, 17),
    at("a.ts", 3, 5),
    at("a.ts", 3, 20),
    at("b.ts", 4),
    at("c.ts", 2),
  ];
  const answer = [
    at("a.ts", 1),
    at("a.ts", 3, 9),
    at("a.ts", 3, 30),
    at("b.ts", 4),
    at("b.ts", 5),
    at("d.ts", 1),
  ];
  assertEquals(scoreReferences(truth, answer), {
    truthLines: 4,
    answerLines: 5,
    hits: 3,
    precision: 0.6,
    recall: 0.75,
  });
});

Deno.test("references scoring: an empty answer scores 0, nothing to find is full recall", () => {
  assertEquals(scoreReferences([at("a.ts", 1)], []).precision, 0);
  assertEquals(scoreReferences([at("a.ts", 1)], []).recall, 0);
  assertEquals(scoreReferences([], [at("a.ts", 1)]).recall, 1);
});

Deno.test("references scoring: the macro average weighs every identifier once", () => {
  const big = scoreReferences(
    Array.from({ length: 10 }, (_, i) => at("a.ts", i + 1)),
    Array.from({ length: 10 }, (_, i) => at("a.ts", i + 1)),
  );
  const small = scoreReferences([at("b.ts", 1)], [at("b.ts", 1), at("b.ts", 2)]);
  // Pooled, precision would be 11/12; per identifier it is (1 + 0.5) / 2.
  assertEquals(macroAverage([big, small]), { precision: 0.75, recall: 1 });
  assertEquals(macroAverage([]), { precision: 0, recall: 0 });
});

Deno.test("references scoring: a definition hits on the declaration's file and line", () => {
  const declarations = [at("a.ts", 3, 14), at("a.ts", 9, 14)];
  assertEquals(definitionHit(declarations, at("a.ts", 9, 1)), true);
  assertEquals(definitionHit(declarations, at("b.ts", 3, 14)), false);
  assertEquals(definitionHit(declarations, null), false);
  assertEquals(share([true, false, true, true]), 0.75);
  assertEquals(share([]), 0);
});
