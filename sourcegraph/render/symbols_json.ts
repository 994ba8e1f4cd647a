/**
 * The `symbols` answer: compact JSON (facts about a repository, like
 * `list`), each definition with its lines and the SHA-pinned page that
 * shows them; the continuation is an opaque cursor of the pinned commit
 * and the next position.
 *
 * @module
 */

import { SourcegraphError } from "../errors.ts";
import type { SymbolDefinition } from "../search/index/commit_symbols.ts";
import type { SymbolsPage } from "../service/repository_symbols.ts";
import { blobUrl } from "../web/page_urls.ts";
import { decodeToken, encodeToken } from "./search_cursor.ts";

type Json = Record<string, unknown>;

/** One definition (`url`: its lines on the web pages, pinned to the commit). */
export function symbolJson(repo: string, commit: string, symbol: SymbolDefinition): Json {
  return {
    name: symbol.name,
    kind: symbol.kind,
    ...(symbol.container !== null ? { container: symbol.container } : {}),
    language: symbol.language,
    path: symbol.path,
    start_line: symbol.startLine,
    end_line: symbol.endLine,
    url: blobUrl(repo, {
      rev: commit,
      path: symbol.path,
      start: symbol.startLine,
      end: symbol.endLine,
    }),
  };
}

/** A page of definitions; `next_cursor` continues after its last one. */
export function symbolsJson(page: SymbolsPage): Json {
  return {
    repo: page.repo,
    commit: page.commit,
    symbols: page.symbols.map((symbol) => symbolJson(page.repo, page.commit, symbol)),
    total: page.total,
    ...(page.truncated ? { truncated: true } : {}),
    has_more: page.nextOffset !== null,
    ...(page.nextOffset !== null
      ? { next_cursor: encodeSymbolCursor({ commit: page.commit, offset: page.nextOffset }) }
      : {}),
  };
}

/** The token that continues a lookup at `offset` of its list at `commit`. */
export function encodeSymbolCursor(cursor: { commit: string; offset: number }): string {
  return encodeToken(["symbols", cursor.commit, cursor.offset]);
}

/** The position a token holds (INVALID_CURSOR when it holds none). */
export function decodeSymbolCursor(token: string): { commit: string; offset: number } {
  const value = decodeToken(token);
  if (
    Array.isArray(value) && value.length === 3 && value[0] === "symbols" &&
    typeof value[1] === "string" && /^[0-9a-f]{40}$/.test(value[1]) &&
    Number.isSafeInteger(value[2]) && value[2] >= 1
  ) {
    return { commit: value[1], offset: value[2] };
  }
  throw new SourcegraphError("INVALID_CURSOR", "the cursor is not one `symbols` returned", {
    hint: "Pass next_cursor exactly as the previous page gave it, or look up again without after.",
  });
}
