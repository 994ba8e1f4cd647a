/**
 * The continuation of a search as one opaque string: the commit it pinned
 * and the last match a page showed (`line` null: the whole file was done),
 * with its ranking tier when the search was ranked.
 * Base64url of a small JSON array; a token that does not decode to that
 * shape is `INVALID_CURSOR`. A history's cursor is made the same way and
 * also names the history it continues (repository, path, lines), so one
 * from another history or another tool is `INVALID_CURSOR` too. A commit
 * search's cursor names the key of its arguments, the repository it
 * continues in, that walk's heads and the position in it.
 *
 * @module
 */

import { SourcegraphError } from "../errors.ts";
import type { SearchPosition } from "../search/query/compiled_search.ts";
import { createHash } from "node:crypto";
import type { CommitsPosition } from "../service/commit_fanout.ts";
import {
  cursorNotIssued,
  FANOUT_MAX_REPOSITORIES,
  type RepositoryPin,
} from "../service/repository_pins.ts";

/** Where the next page of a search starts. */
export interface SearchCursor extends SearchPosition {
  commit: string;
}

/** The pins of a request across repositories as a token's JSON (`[[repo, commit], …]`). */
export function pinsJson(pins: readonly RepositoryPin[]): [string, string][] {
  return pins.map((pin) => [pin.repo, pin.commit]);
}

/**
 * The pins a token's JSON holds, or null when it holds none (`pinsJson`'s
 * shape: 1 to `FANOUT_MAX_REPOSITORIES` pins, no repository twice).
 */
export function pinsOf(value: unknown): RepositoryPin[] | null {
  if (
    !Array.isArray(value) || value.length === 0 || value.length > FANOUT_MAX_REPOSITORIES ||
    !value.every((pin) =>
      Array.isArray(pin) && pin.length === 2 && typeof pin[0] === "string" &&
      pin[0].length > 0 && pin[0].length <= 256 && typeof pin[1] === "string" &&
      /^[0-9a-f]{40}$/.test(pin[1])
    )
  ) return null;
  // A repository appears once: a cursor must not buy the same search many times.
  if (new Set(value.map((pin: [string, string]) => pin[0])).size !== value.length) return null;
  return value.map((pin: [string, string]) => ({ repo: pin[0], commit: pin[1] }));
}

/** A JSON value as an opaque token (base64url, no padding). */
export function encodeToken(value: unknown): string {
  const json = JSON.stringify(value);
  return new TextEncoder().encode(json).toBase64({ alphabet: "base64url", omitPadding: true });
}

/** The JSON value a token holds, or null when it is not one `encodeToken` made. */
export function decodeToken(token: string): unknown {
  try {
    const bytes = Uint8Array.fromBase64(token, { alphabet: "base64url" });
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return null;
  }
}

/** The token of `cursor`. */
export function encodeSearchCursor(cursor: SearchCursor): string {
  return encodeToken(
    cursor.tier === undefined
      ? [cursor.commit, cursor.path, cursor.line]
      : [cursor.commit, cursor.path, cursor.line, cursor.tier],
  );
}

/** The cursor a token holds (INVALID_CURSOR when it holds none). */
export function decodeSearchCursor(token: string): SearchCursor {
  const value = decodeToken(token);
  if (
    Array.isArray(value) && (value.length === 3 || value.length === 4) &&
    typeof value[0] === "string" && /^[0-9a-f]{40}$/.test(value[0]) &&
    typeof value[1] === "string" && value[1].length > 0 &&
    (value[2] === null || (Number.isSafeInteger(value[2]) && value[2] >= 1)) &&
    (value.length === 3 || value[3] === 0 || value[3] === 1 || value[3] === 2)
  ) {
    const cursor: SearchCursor = { commit: value[0], path: value[1], line: value[2] };
    return value.length === 4 ? { ...cursor, tier: value[3] } : cursor;
  }
  throw new SourcegraphError("INVALID_CURSOR", "the cursor is not one a search returned", {
    hint: "Pass NextCursor exactly as the previous page gave it, or search again without after.",
  });
}

/** Where the next page of a history starts, and the history it belongs to. */
export interface HistoryCursor {
  repo: string;
  path: string | null;
  lines: { start: number; end: number } | null;
  commit: string;
  skip: number;
}

/** The token of `cursor`. */
export function encodeHistoryCursor(cursor: HistoryCursor): string {
  const { repo, path, lines, commit, skip } = cursor;
  return encodeToken(["history", repo, path, lines?.start ?? 0, lines?.end ?? 0, commit, skip]);
}

/**
 * The cursor a token holds when it continues the history `request` asks
 * (the same repository, path and lines); INVALID_CURSOR otherwise.
 */
export function decodeHistoryCursor(
  token: string,
  request: Pick<HistoryCursor, "repo" | "path" | "lines">,
): HistoryCursor {
  const value = decodeToken(token);
  const lines = request.lines;
  if (
    Array.isArray(value) && value.length === 7 && value[0] === "history" &&
    value[1] === request.repo && value[2] === request.path &&
    value[3] === (lines?.start ?? 0) && value[4] === (lines?.end ?? 0) &&
    typeof value[5] === "string" && /^[0-9a-f]{40}$/.test(value[5]) &&
    Number.isSafeInteger(value[6]) && value[6] >= 1
  ) {
    return { ...request, commit: value[5], skip: value[6] };
  }
  throw new SourcegraphError(
    "INVALID_CURSOR",
    "the cursor is not one this history returned",
    { hint: "Pass NextCursor exactly as the previous page of the same history gave it." },
  );
}

/**
 * The key of a commit search's arguments (everything but `first` and
 * `after`): a cursor names it, so one from another search is refused.
 */
export function commitsRequestKey(request: Record<string, unknown>): string {
  const { first: _first, after: _after, ...asked } = request;
  const json = JSON.stringify(Object.keys(asked).sort().map((name) => [name, asked[name]]));
  return createHash("sha256").update(json).digest("base64url").slice(0, 22);
}

/** The token of where a commit search continues, for the search of `key`. */
export function encodeCommitsCursor(key: string, position: CommitsPosition): string {
  const { repo, walk } = position;
  return encodeToken(["commits", key, repo, walk?.heads ?? null, walk?.index ?? 0]);
}

/**
 * Where the commit search of `key` continues (INVALID_CURSOR for a token
 * of another search or tool, or one not shaped as this module makes them).
 */
export function decodeCommitsCursor(token: string, key: string): CommitsPosition {
  const value = decodeToken(token);
  if (
    Array.isArray(value) && value.length === 5 && value[0] === "commits" && value[1] === key &&
    typeof value[2] === "string" && value[2].length > 0 && value[2].length <= 256 &&
    (value[3] === null ||
      (Array.isArray(value[3]) && value[3].length > 0 && value[3].length <= 64 &&
        value[3].every((sha) => typeof sha === "string" && /^[0-9a-f]{40}$/.test(sha)) &&
        new Set(value[3]).size === value[3].length)) &&
    Number.isSafeInteger(value[4]) && value[4] >= 0 && (value[3] !== null || value[4] === 0)
  ) {
    return {
      repo: value[2],
      walk: value[3] === null ? null : { heads: value[3], index: value[4] },
    };
  }
  throw cursorNotIssued();
}
