/**
 * Compiled searches kept for reuse: the same request (its time budget aside)
 * compiles once and answers as a fresh compilation does, with its own
 * budget; a different request compiles anew; only the most recently used
 * `KEPT_COMPILATIONS` are kept; a bad pattern throws every time.
 */

import {
  CompiledSearches,
  KEPT_COMPILATIONS,
} from "../../../sourcegraph/search/compiled_searches.ts";
import { compileSearch, SEARCH_MAX_MS } from "../../../sourcegraph/search/query/compiled_search.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import { assert, assertEquals, assertThrows } from "../../support/assert.ts";

// What a compiled search decides, comparable across compilations.
function decisions(search: ReturnType<typeof compileSearch>): unknown {
  return {
    key: search.key,
    trigrams: search.trigrams,
    literals: search.literals,
    pathTrigrams: search.pathTrigrams,
    maxMs: search.maxMs,
    keep: ["src/a.ts", "docs/b.md", "src"].map(search.keep),
    matches: ["parseRequest(x)", "parse(x)"].map((line) => search.regex.test(line)),
  };
}

Deno.test("compiled searches: one compilation per request, answering as a fresh one with its own budget", () => {
  const searches = new CompiledSearches();
  const request = { pattern: "parse(Request|Response)", paths: ["src"], maxMs: 5_000 };
  const first = searches.compile(request);
  const again = searches.compile({ ...request, maxMs: 70_000 });
  assert(again.regex === first.regex, "the same request compiled twice");
  assertEquals(decisions(first), decisions(compileSearch(request)));
  assertEquals(again.maxMs, SEARCH_MAX_MS);
  assertEquals(decisions(again), decisions(compileSearch({ ...request, maxMs: 70_000 })));
  assertEquals(again.request.maxMs, 70_000);
  assertEquals(searches.compile({ ...request, maxMs: -1 }).maxMs, 0);
  // Any other field compiles anew.
  for (const other of [{ paths: ["docs"] }, { ignoreCase: true }, { output: "files" as const }]) {
    const compiled = searches.compile({ ...request, ...other });
    assert(compiled.regex !== first.regex, JSON.stringify(other));
    assertEquals(decisions(compiled), decisions(compileSearch({ ...request, ...other })));
  }
});

Deno.test("compiled searches: the most recently used are kept, bad patterns never", () => {
  const searches = new CompiledSearches();
  const first = searches.compile({ pattern: "p0" });
  const second = searches.compile({ pattern: "p1" });
  for (let n = 2; n < KEPT_COMPILATIONS; n++) searches.compile({ pattern: `p${n}` });
  searches.compile({ pattern: "p0" }); // used again: now the most recent
  searches.compile({ pattern: `p${KEPT_COMPILATIONS}` }); // one too many: p1 goes
  assert(searches.compile({ pattern: "p0" }).regex === first.regex, "p0 kept");
  assert(searches.compile({ pattern: "p1" }).regex !== second.regex, "p1 compiled anew");
  for (let n = 0; n < 2; n++) {
    assertThrows(() => searches.compile({ pattern: "(" }), SourcegraphError);
  }
});
