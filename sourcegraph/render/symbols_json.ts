/**
 * The `symbols` answer: compact JSON (facts about a repository, like
 * `list`), each definition with its lines and the text of its first line
 * (its signature, repository text), and for a lookup that found nothing the
 * names it may have meant; the continuation is an opaque cursor of the
 * pinned commit and the next position.
 *
 * @module
 */

import { SourcegraphError } from "../errors.ts";
import type { PartialSymbols } from "../search/index/commit_symbols.ts";
import type { SignedDefinition, SymbolMisses } from "../search/symbol_search.ts";
import type { SymbolsPage } from "../service/repository_symbols.ts";
import { decodeToken, encodeToken, pinsJson, pinsOf } from "./search_cursor.ts";
import type { FanoutSymbolsPage } from "../service/symbol_fanout.ts";
import type { RepositoryPin } from "../service/repository_pins.ts";

type Json = Record<string, unknown>;

/** One definition (`signature`: its first line, when the index has its text). */
export function symbolJson(symbol: SignedDefinition): Json {
  return {
    name: symbol.name,
    kind: symbol.kind,
    ...(symbol.container !== null ? { container: symbol.container } : {}),
    language: symbol.language,
    path: symbol.path,
    start_line: symbol.startLine,
    end_line: symbol.endLine,
    ...(symbol.signature !== null ? { signature: symbol.signature } : {}),
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
 * What an answer that found nothing says: the names it may have meant
 * (lists left out when empty) and one hint saying what to try.
 */
export function missesJson(misses: SymbolMisses | null): Json {
  if (misses === null) return {};
  return {
    ...(misses.ignoreCase.length > 0 ? { ignore_case_names: misses.ignoreCase } : {}),
    ...(misses.prefix.length > 0 ? { prefix_names: misses.prefix } : {}),
    ...(misses.nearest.length > 0 ? { nearest_names: misses.nearest } : {}),
    hint: missesHint(misses),
  };
}

/** The hint of a lookup that found nothing: what to try, then `search` for text. */
export function missesHint(misses: SymbolMisses): string {
  return [
    "No definition matches at this commit.",
    ...(misses.filtered
      ? ["The name is defined, but not in these kinds, languages, paths or globs: widen them."]
      : []),
    ...(misses.ignoreCase.length > 0 ? ["ignore_case_names match ignoring case."] : []),
    ...(misses.prefix.length > 0 ? ['prefix_names start with it: try match: "prefix".'] : []),
    ...(misses.nearest.length > 0 ? ["nearest_names are the nearest defined names."] : []),
    "`search` finds text (uses, comments, strings) and names the index has no definition of.",
  ].join(" ");
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
    symbols: page.symbols.map(symbolJson),
    total: page.total,
    ...(page.truncated ? { truncated: true } : {}),
    has_more: page.nextOffset !== null,
    ...(page.nextOffset !== null
      ? { next_cursor: encodeSymbolCursor({ commit: page.commit, offset: page.nextOffset }) }
      : {}),
    ...missesJson(page.misses),
  };
}

/**
 * A page of definitions across repositories: each with its repository, the
 * commit of every covered repository once, and the repositories skipped
 * (with why) or not reached.
 */
export function fanoutSymbolsJson(page: FanoutSymbolsPage): Json {
  return {
    repos: Object.fromEntries(page.pins.map((pin) => [pin.repo, pin.commit])),
    symbols: page.symbols.map(({ repo, symbol }) => ({ repo, ...symbolJson(symbol) })),
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
    ...missesJson(page.misses),
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
