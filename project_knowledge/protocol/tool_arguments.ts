/**
 * Checks tool arguments again inside the provider (the Runner validates them
 * against the schema first): exact keys, types and the numeric ranges the
 * schema profile cannot express.
 *
 * @module
 */

import { KnowledgeError } from "../errors.ts";
import {
  MAX_PATH_CHARS,
  MAX_QUERY_CHARS,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
} from "../limits.ts";

/** Arguments of index. */
export interface IndexArguments {
  mode: "rebuild" | "refresh";
}

/** Arguments of search. */
export interface SearchArguments {
  query: string;
  limit: number;
}

/** Arguments of read. */
export interface ReadArguments {
  path: string;
  sourceHash: string;
  startLine?: number;
  endLine?: number;
}

function invalid(message: string): KnowledgeError {
  return new KnowledgeError("invalid_arguments", message);
}

function asObject(value: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid("arguments must be an object");
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalid(`unknown argument: ${key.slice(0, 64)}`);
  }
  return value as Record<string, unknown>;
}

function optionalInteger(record: Record<string, unknown>, key: string): number | undefined {
  const value = record[key];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw invalid(`${key} must be an integer`);
  }
  return value;
}

function requiredString(record: Record<string, unknown>, key: string, max: number): string {
  const value = record[key];
  if (typeof value !== "string" || value.length === 0) {
    throw invalid(`${key} must be a non-empty string`);
  }
  if ([...value].length > max) throw invalid(`${key} is too long`);
  return value;
}

/** Parses index arguments: `{}` or `{mode}`. */
export function parseIndexArguments(value: unknown): IndexArguments {
  const record = asObject(value, ["mode"]);
  const mode = record.mode ?? "rebuild";
  if (mode !== "rebuild" && mode !== "refresh") {
    throw invalid('mode must be "rebuild" or "refresh"');
  }
  return { mode };
}

/** Parses status arguments: `{}` only. */
export function parseStatusArguments(value: unknown): void {
  asObject(value, []);
}

/** Parses search arguments. */
export function parseSearchArguments(value: unknown): SearchArguments {
  const record = asObject(value, ["query", "limit"]);
  const query = requiredString(record, "query", MAX_QUERY_CHARS);
  const limit = optionalInteger(record, "limit") ?? SEARCH_DEFAULT_LIMIT;
  if (limit < 1 || limit > SEARCH_MAX_LIMIT) {
    throw invalid(`limit must be between 1 and ${SEARCH_MAX_LIMIT}`);
  }
  return { query, limit };
}

/** Parses read arguments. */
export function parseReadArguments(value: unknown): ReadArguments {
  const record = asObject(value, ["path", "source_hash", "start_line", "end_line"]);
  const path = requiredString(record, "path", MAX_PATH_CHARS);
  const sourceHash = requiredString(record, "source_hash", 64);
  if (!/^[0-9a-f]{64}$/.test(sourceHash)) {
    throw invalid("source_hash must be 64 lower-case hex digits");
  }
  return {
    path,
    sourceHash,
    startLine: optionalInteger(record, "start_line"),
    endLine: optionalInteger(record, "end_line"),
  };
}
