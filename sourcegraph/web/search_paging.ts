/**
 * One page of a search as the Search tab shows it: the rows the MCP
 * `search` tool would print (`pageRows`), cut after the last match that
 * fits the page's budget, and the cursor of the next page (after that
 * match, at the same commit), so a page stays small however much matches.
 * Also each file's rows in line order, matches and context merged, with a
 * separator between lines that do not touch.
 *
 * @module
 */

import { pageRows } from "../render/search_text.ts";
import { encodeSearchCursor } from "../render/search_cursor.ts";
import type { SearchPosition } from "../search/query/compiled_search.ts";
import type { FileMatches } from "../search/code_search.ts";
import type { ContextLine } from "../search/match_context.ts";
import type { SearchResult } from "../service/repository_reads.ts";
import { utf8Length } from "../../shared/text.ts";

/** Most bytes of result text a page shows (as the MCP tool's default `max_bytes`). */
export const SEARCH_PAGE_BYTES = 32 * 1024;
/** Most rows (file names, matches, context, separators) a page shows. */
export const SEARCH_PAGE_ROWS = 240;

/** A page of a search: the result cut to it, and the cursor of the next (null: none). */
export interface SearchPage {
  result: SearchResult;
  next: string | null;
}

/**
 * The first page of `found` within `limits` (the page's defaults unless
 * given): at least one match, then whole rows while they fit.
 */
export function searchPage(
  found: SearchResult,
  limits: { bytes: number; rows: number } = { bytes: SEARCH_PAGE_BYTES, rows: SEARCH_PAGE_ROWS },
): SearchPage {
  const rows = pageRows(found, "content");
  let bytes = 0;
  let place: SearchPosition | null = null;
  let cut = false;
  for (let i = 0; i < rows.length; i++) {
    bytes += utf8Length(rows[i].text) + 1;
    if (place !== null && (bytes > limits.bytes || i >= limits.rows)) {
      cut = true;
      break;
    }
    place = rows[i].place ?? place;
  }
  const more = (cut || found.outcome.truncated) && place !== null;
  return {
    result: cut && place !== null ? upTo(found, place) : found,
    next: more ? encodeSearchCursor({ commit: found.commit, ...place! }) : null,
  };
}

// The result up to and including `place` (the files before it, and its own
// file's lines up to its line).
function upTo(found: SearchResult, place: SearchPosition): SearchResult {
  const { files } = found.outcome;
  const last = files.findIndex((file) => file.path === place.path);
  const kept = files.slice(0, last + 1);
  if (place.line === null) return { ...found, outcome: { ...found.outcome, files: kept } };
  const line = place.line;
  const lastFile = kept[last];
  kept[last] = { ...lastFile, lines: lastFile.lines.filter((shown) => shown.number <= line) };
  const context = found.context && new Map(found.context);
  const around = context?.get(place.path);
  if (context && around) context.set(place.path, around.filter((row) => row.number <= line));
  return {
    ...found,
    outcome: { ...found.outcome, files: kept },
    ...(context ? { context } : {}),
  };
}

/** One row of a file's results: a line (a match or context) or a separator. */
export type ResultRow =
  | { kind: "line"; number: number; text: string; match: boolean; ranges?: [number, number][] }
  | { kind: "gap" };

/**
 * A file's shown lines in order, its matches and their context merged, a
 * gap between lines that do not touch (as code hosts and `rg -C` show them).
 */
export function resultRows(file: FileMatches, context: readonly ContextLine[] = []): ResultRow[] {
  const lines = [
    ...file.lines.map((line) => ({ kind: "line" as const, ...line, match: true })),
    ...context.map((line) => ({ kind: "line" as const, ...line, match: false })),
  ].sort((a, b) => a.number - b.number);
  const rows: ResultRow[] = [];
  let previous: number | null = null;
  for (const line of lines) {
    if (previous !== null && line.number > previous + 1) rows.push({ kind: "gap" });
    rows.push(line);
    previous = line.number;
  }
  return rows;
}
