import { assertEquals } from "../support/assert.ts";
import { jsonShapeProblem } from "../../shared/json_shape.ts";

const LIMITS = { maxDepth: 4, maxValues: 10 };

Deno.test("json shape: depth and values are counted outside strings only", () => {
  assertEquals(jsonShapeProblem('{"a":[[1]]}', LIMITS), null);
  assertEquals(jsonShapeProblem("[[[[1]]]]", LIMITS), null, "depth 4 is allowed");
  assertEquals(jsonShapeProblem("[[[[[1]]]]]", LIMITS), { limit: "depth", max: 4 });
  // Brackets, quotes and backslashes inside strings are not structure.
  assertEquals(jsonShapeProblem('["[[[[[[", "\\"[[[[[", "\\\\", "{{{{{"]', LIMITS), null);
  // Depth counts nesting, not brackets in sequence.
  assertEquals(jsonShapeProblem("[[1],[2],[3]]", LIMITS), null);
  // Values: keys, strings, numbers, literals, arrays and objects each count once.
  assertEquals(jsonShapeProblem('{"a":1,"b":true,"c":null,"d":-1.5e3}', LIMITS), null);
  assertEquals(jsonShapeProblem("[1,2,3,4,5,6,7,8,9]", LIMITS), null, "the array and 9 numbers");
  assertEquals(jsonShapeProblem("[1,2,3,4,5,6,7,8,9,10]", LIMITS), {
    limit: "values",
    max: 10,
  });
  assertEquals(jsonShapeProblem("[ 1 , 2 ]", { maxDepth: 1, maxValues: 3 }), null);
  assertEquals(jsonShapeProblem("[ 1 , 2 ]", { maxDepth: 1, maxValues: 2 }), {
    limit: "values",
    max: 2,
  });
  // An unterminated string ends the walk without a problem (the parser refuses it next).
  assertEquals(jsonShapeProblem('["abc', LIMITS), null);
});

Deno.test("json shape: the attack shapes are refused at their first excess", () => {
  const deep = `{"a":${"[".repeat(1_900_000)}${"]".repeat(1_900_000)}}`;
  assertEquals(jsonShapeProblem(deep, { maxDepth: 64, maxValues: 100_000 }), {
    limit: "depth",
    max: 64,
  });
  const wide = `[${"0,".repeat(200_000)}0]`;
  assertEquals(jsonShapeProblem(wide, { maxDepth: 64, maxValues: 100_000 }), {
    limit: "values",
    max: 100_000,
  });
});
