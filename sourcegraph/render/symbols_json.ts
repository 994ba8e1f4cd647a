/**
 * The `symbols` answer: compact JSON (facts about a repository, like
 * `list`), each definition with its lines and the SHA-pinned page that
 * shows them; the continuation is an opaque cursor of the pinned commit
 * and the next position.
 *
 * @module
 */

import { SourcegraphError } from "../errors.ts";
import type { PartialSymbols, SymbolDefinition } from "../search/index/commit_symbols.ts";
import type { SymbolsPage } from "../service/repository_symbols.ts";
import { blobUrl } from "./page_urls.ts";
import { decodeToken, encodeToken, pinsJson, pinsOf } from "./search_cursor.ts";
import type { FanoutSymbolsPage } from "../service/symbol_fanout.ts";
import type { RepositoryPin } from "../service/repository_pins.ts";

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

/**
 * What an answer says of a commit whose symbols are only some of its files'
 * (one line), or null when they are all there.
 */
export function partialSymbolsNote(partial: PartialSymbols | null): string | null {
  return partial === null
    ? null
    : `symbols at this commit are partial: ${partial.skippedFiles} of ` +
      `${partial.files} files were not searched for definitions (the index build's symbol ` +
      "extraction ran out of time); `search` still finds their text";
}

/**
 * A page of definitions; `next_cursor` continues after its last one;
 * `symbols_partial` says when the commit's symbols are only some of its files'.
 */
export function symbolsJson(page: SymbolsPage): Json {
  const partial = partialSymbolsNote(page.partial);
  return {
    repo: page.repo,
    commit: page.commit,
    ...(partial === null ? {} : { symbols_partial: partial }),
    symbols: page.symbols.map((symbol) => symbolJson(page.repo, page.commit, symbol)),
    total: page.total,
    ...(page.truncated ? { truncated: true } : {}),
    has_more: page.nextOffset !== null,
    ...(page.nextOffset !== null
      ? { next_cursor: encodeSymbolCursor({ commit: page.commit, offset: page.nextOffset }) }
      : {}),
  };
}

/**
 * A page of definitions across repositories: each with its repository and
 * pinned page (`url`), the commit of every covered repository once, and
 * the repositories skipped (with why) or not reached.
 */
export function fanoutSymbolsJson(page: FanoutSymbolsPage): Json {
  return {
    repos: Object.fromEntries(page.pins.map((pin) => [pin.repo, pin.commit])),
    symbols: page.symbols.map(({ repo, commit, symbol }) => ({
      repo,
      ...symbolJson(repo, commit, symbol),
    })),
    total: page.total,
    ...(page.truncated ? { truncated: true } : {}),
    ...(page.partial.length > 0 ? { symbols_partial: page.partial } : {}),
    ...(page.skipped.length > 0 ? { skipped: page.skipped } : {}),
    ...(page.unsearched.length > 0 ? { not_searched_yet: page.unsearched } : {}),
    has_more: page.nextOffset !== null,
    ...(page.nextOffset !== null
      ? {
        next_cursor: encodeFanoutSymbolCursor({ pins: page.pins, offset: page.nextOffset }),
      }
      : {}),
  };
}

/** The token that continues a lookup across repositories at `offset` of the list `pins` give. */
export function encodeFanoutSymbolCursor(
  cursor: { pins: readonly RepositoryPin[]; offset: number },
): string {
  return encodeToken(["symbols-repos", pinsJson(cursor.pins), cursor.offset]);
}

/** The position a token of a lookup across repositories holds (INVALID_CURSOR when none). */
export function decodeFanoutSymbolCursor(
  token: string,
): { pins: RepositoryPin[]; offset: number } {
  const value = decodeToken(token);
  if (Array.isArray(value) && value.length === 3 && value[0] === "symbols-repos") {
    const pins = pinsOf(value[1]);
    if (pins !== null && Number.isSafeInteger(value[2]) && value[2] >= 1) {
      return { pins, offset: value[2] };
    }
  }
  throw invalidCursor();
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
  throw invalidCursor();
}

function invalidCursor(): SourcegraphError {
  return new SourcegraphError("INVALID_CURSOR", "the cursor is not one `symbols` returned", {
    hint: "Pass next_cursor exactly as the previous page gave it, or look up again without after.",
  });
}
