/**
 * Compiled searches kept for reuse: a search across repositories asks each
 * repository the same request, and compiling it (the RE2 program above
 * all) cost about 14% of the processor time of a rare literal's search
 * across sixty repositories when it was done for every one. Requests that
 * differ only in their time budget share one compilation; the few most
 * recently used are kept, so memory stays bounded.
 *
 * @module
 */

import {
  type CompiledSearch,
  compileSearch,
  SEARCH_MAX_MS,
  type SearchRequest,
} from "./query/compiled_search.ts";
import { RecentMap } from "../../shared/recent_map.ts";

/** Compilations kept (each is one RE2 program and a few closures). */
export const KEPT_COMPILATIONS = 32;

/** A small most-recently-used cache of `compileSearch`. */
export class CompiledSearches {
  #kept = new RecentMap<string, CompiledSearch>(KEPT_COMPILATIONS);

  /**
   * `compileSearch(request)`, from a kept compilation of the same request
   * (its time budget aside) when there is one; errors are thrown as
   * `compileSearch` throws them, and never kept.
   */
  compile(request: SearchRequest): CompiledSearch {
    const key = requestKey(request);
    const kept = this.#kept.get(key);
    if (kept === undefined) {
      const compiled = compileSearch(request);
      this.#kept.set(key, compiled);
      return compiled;
    }
    // The budget as compileSearch bounds it.
    const maxMs = Math.max(0, Math.min(request.maxMs ?? SEARCH_MAX_MS, SEARCH_MAX_MS));
    return { ...kept, maxMs, request };
  }
}

// Every field of the request but its time budget, in a fixed order.
function requestKey(request: SearchRequest): string {
  return JSON.stringify([
    request.pattern,
    request.fixedStrings ?? null,
    request.ignoreCase ?? null,
    request.glob ?? null,
    request.paths ?? null,
    request.groups ?? null,
    request.output ?? null,
    request.maxLinesPerFile ?? null,
    request.lineBytes ?? null,
    request.maxFiles ?? null,
    request.matchRanges ?? null,
    request.after ?? null,
    request.testsLast ?? null,
  ]);
}
