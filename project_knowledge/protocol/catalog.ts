/**
 * The frozen tool catalog returned by `tools/list`: four project-bound tools
 * whose input schemas stay inside the Runner's schema profile v1 and refuse
 * unknown arguments (so `root`, `cache` or `command` never reach us).
 *
 * Each tool also declares an `outputSchema` (the same profile), which the
 * Runner checks every `structuredContent` against, errors included: so the
 * root requires nothing and leaves further fields open (an error result is
 * `{error}` alone), and fields that may be null (`revision`,
 * `index_revision`, `observed_revision`) are not typed, since the profile
 * has no union of types.
 *
 * @module
 */

import { MAX_PATH_CHARS, MAX_QUERY_CHARS } from "../limits.ts";

/** One tool definition as the Runner sees it. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  projectBound: true;
}

function objectSchema(
  properties: Record<string, unknown>,
  required: string[] = [],
): Record<string, unknown> {
  return { type: "object", properties, required, additionalProperties: false };
}

// The root of an output schema: the tool's fields and the error's, none required, others open.
function outputSchema(properties: Record<string, unknown>): Record<string, unknown> {
  return { type: "object", properties: { ...properties, error: ERROR_SCHEMA } };
}

const INTEGER = { type: "integer" };
const STRING = { type: "string" };
const BOOLEAN = { type: "boolean" };

const ERROR_SCHEMA = {
  type: "object",
  description: "a known failure (isError: true), the only field then",
  properties: { code: STRING, message: STRING, hint: STRING },
  required: ["code", "message"],
};

// What index and status return: whether there is an index, its format and the coverage.
const COVERAGE_SCHEMA = outputSchema({
  indexed: BOOLEAN,
  format: { type: "integer", description: "index format (1, 2 or 3)" },
  indexed_at_unix: INTEGER,
  eligible_files: INTEGER,
  indexed_files: INTEGER,
  indexed_bytes: INTEGER,
  chunks: INTEGER,
  excluded_entries: INTEGER,
  skipped_files: INTEGER,
  oversized_lines_omitted: INTEGER,
  unprocessed_files: INTEGER,
  stop_reason: { type: "string", enum: ["complete", "time_budget", "file_limit", "corpus_limit"] },
  mode: { type: "string", enum: ["rebuild", "refresh"] },
  reused_files: INTEGER,
  updated_files: INTEGER,
  deleted_files: INTEGER,
  remaining_files: INTEGER,
});

const SEARCH_SCHEMA = outputSchema({
  hits: {
    type: "array",
    items: {
      type: "object",
      properties: {
        path: STRING,
        start_line: INTEGER,
        end_line: INTEGER,
        text: STRING,
        source_hash: STRING,
      },
      required: ["path", "start_line", "end_line", "text", "source_hash"],
    },
  },
  stale_candidates_omitted: INTEGER,
  results_truncated: BOOLEAN,
});

const READ_SCHEMA = outputSchema({
  path: STRING,
  source_hash: STRING,
  start_line: INTEGER,
  end_line: INTEGER,
  total_lines: INTEGER,
  text: STRING,
  truncated: BOOLEAN,
});

const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** The catalog, sorted by name. */
export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "index",
    title: "Index project sources",
    description:
      'Builds the private local index of Git-tracked text sources. mode "rebuild" (default) starts anew; "refresh" re-hashes current bytes, reuses unchanged rows and continues unfinished work. Writes only the provider\'s private cache.',
    inputSchema: objectSchema({
      mode: {
        type: "string",
        enum: ["rebuild", "refresh"],
        description: "rebuild (default) or refresh",
      },
    }),
    outputSchema: COVERAGE_SCHEMA,
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    projectBound: true,
  },
  {
    name: "read",
    title: "Read project source lines",
    description:
      "Returns current lines of a tracked source when its SHA-256 still equals source_hash from search. Lines are one-based and inclusive; default 48 lines, at most 200, trimmed to whole lines within 16 KiB.",
    inputSchema: objectSchema({
      path: {
        type: "string",
        minLength: 1,
        maxLength: MAX_PATH_CHARS,
        description: "repository-relative path from a search hit",
      },
      source_hash: {
        type: "string",
        minLength: 64,
        maxLength: 64,
        description: "SHA-256 (hex) of the source, from a search hit",
      },
      start_line: { type: "integer", description: "first line, one-based (default 1)" },
      end_line: { type: "integer", description: "last line, inclusive (default start_line + 47)" },
    }, ["path", "source_hash"]),
    outputSchema: READ_SCHEMA,
    annotations: READ_ONLY,
    projectBound: true,
  },
  {
    name: "search",
    title: "Search project sources",
    description:
      "Ranks indexed chunks with BM25 over identifier terms and CJK bigrams, then re-reads and hash-verifies each hit's current source. Zero matches is not proof of absence. limit: 1 to 20, default 5.",
    inputSchema: objectSchema({
      query: {
        type: "string",
        minLength: 1,
        maxLength: MAX_QUERY_CHARS,
        description: "words, identifiers or Chinese text",
      },
      limit: { type: "integer", description: "most hits, 1 to 20 (default 5)" },
    }, ["query"]),
    outputSchema: SEARCH_SCHEMA,
    annotations: READ_ONLY,
    projectBound: true,
  },
  {
    name: "status",
    title: "Index status",
    description:
      "Reports the saved coverage of the last indexing run, or indexed=false. Never scans or rebuilds.",
    inputSchema: objectSchema({}),
    outputSchema: COVERAGE_SCHEMA,
    annotations: READ_ONLY,
    projectBound: true,
  },
];
