/**
 * Tool results as the Runner accepts them: one text content item plus an
 * object `structuredContent`, serialized to at most 16 KiB. Known errors are
 * completed results with `isError: true` and `{error: {code, message}}`.
 *
 * @module
 */

import { utf8Length } from "../../shared/text.ts";
import type { KnowledgeError } from "../errors.ts";
import { MAX_RESULT_BYTES } from "../limits.ts";

/** A `tools/call` result. */
export interface ToolResult {
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

/** Builds a successful result. */
export function toolResult(summary: string, structured: object): ToolResult {
  return {
    content: [{ type: "text", text: summary }],
    structuredContent: structured as Record<string, unknown>,
    isError: false,
  };
}

/**
 * Builds the completed error result of a known failure; a `hint` (how to
 * recover, e.g. the tool's arguments) follows the message on a line of its
 * own and in `structuredContent.error.hint`.
 */
export function errorResult(error: KnowledgeError, options: { hint?: string } = {}): ToolResult {
  const { hint } = options;
  const text = `${error.code}: ${error.message}`;
  return {
    content: [{ type: "text", text: hint === undefined ? text : `${text}\n${hint}` }],
    structuredContent: {
      error: { code: error.code, message: error.message, ...(hint === undefined ? {} : { hint }) },
    },
    isError: true,
  };
}

/** The serialized size of a result in UTF-8 bytes. */
export function resultBytes(result: ToolResult): number {
  return utf8Length(JSON.stringify(result));
}

/** Whether a result is within the 16 KiB bound. */
export function withinResultBound(result: ToolResult): boolean {
  return resultBytes(result) <= MAX_RESULT_BYTES;
}
