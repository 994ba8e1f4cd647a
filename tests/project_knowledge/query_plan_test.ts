import { queryPhrase } from "../../project_knowledge/analysis.ts";
import { planQuery } from "../../project_knowledge/query/search.ts";
import { assert, assertEquals } from "../support/assert.ts";

function fakeIndex(frequencies: Record<string, number>, chunkCount = 100) {
  return { chunkCount, documentFrequency: (term: string) => frequencies[term] ?? 0 };
}

Deno.test("query plan: weighted terms are ranked by BM25, zero-weight ones follow, unknown ones drop", () => {
  const plan = planQuery(fakeIndex({ rare: 3, common: 50, everywhere: 99 }), {
    terms: ["rare", "common", "everywhere", "missing"],
  });
  assertEquals(plan.length, 2);
  assertEquals(plan[0].match, '"rare"');
  assert(plan[0].sql.includes("ORDER BY t.rank"));
  // A term in exactly half the chunks has IDF log(50.5/50.5) = 0: zero weight.
  assertEquals(plan[1].match, '("common" OR "everywhere") NOT ("rare")');
  assert(plan[1].sql.includes("ORDER BY t.rowid"));
});

Deno.test("query plan: only zero-weight terms are ranked by BM25 over all of them", () => {
  const plan = planQuery(fakeIndex({ a: 60, b: 90 }), { terms: ["a", "b"] });
  assertEquals(plan.map((e) => e.match), ['"a" OR "b"']);
  assert(plan[0].sql.includes("ORDER BY t.rank"));
});

Deno.test("query plan: no known term, no query; just under half keeps its weight", () => {
  assertEquals(planQuery(fakeIndex({}), { terms: ["x", "y"] }), []);
  const plan = planQuery(fakeIndex({ a: 49 }), { terms: ["a"] });
  assertEquals(plan.map((e) => e.match), ['"a"']);
  assertEquals(planQuery(fakeIndex({ a: 1 }, 1), { terms: ["a"] }).length, 1);
});

Deno.test("query plan: the words as a phrase first, then everything else without those chunks", () => {
  const index = fakeIndex({ parse: 40, http: 5, request: 60, httprequest: 2 });
  const plan = planQuery(index, {
    terms: ["http", "request", "httprequest"],
    phrase: queryPhrase("HttpRequest"),
  });
  assertEquals(plan.map((e) => e.match), [
    '"http request"',
    '("http" OR "httprequest") NOT "http request"',
    '(("request") NOT ("http" OR "httprequest")) NOT "http request"',
  ]);
  assert(plan[0].sql.includes("ORDER BY t.rank"));
  // A phrase with a term no chunk has cannot match: it is not asked.
  assertEquals(
    planQuery(index, { terms: ["http", "missing"], phrase: ["http", "missing"] })[0].match,
    '"http"',
  );
  // One word is no phrase.
  assertEquals(planQuery(index, { terms: ["http"], phrase: ["http"] }).length, 1);
  assertEquals(queryPhrase("parse_http request"), ["parse", "http", "request"]);
  assertEquals(queryPhrase("项目知识"), ["项目", "目知", "知识"]);
});
