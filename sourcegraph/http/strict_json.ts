/**
 * JSON request bodies. Every body's shape (nesting depth, number of values)
 * is measured before it is parsed (`checkJsonShape`), on every route. The
 * plain HTTP and admin APIs take strict JSON: valid JSON whose objects have
 * no duplicate keys and no null values (plain `JSON.parse` silently keeps the
 * last of duplicate keys); unknown keys are refused by each endpoint's field
 * list.
 *
 * @module
 */

import type { z } from "zod";
import { type JsonShapeLimits, jsonShapeProblem } from "../../shared/json_shape.ts";
import { SourcegraphError } from "../errors.ts";

/** MCP bodies: JSON-RPC messages (or batches) whose tool arguments nest a few levels. */
export const MCP_JSON_LIMITS: JsonShapeLimits = { maxDepth: 64, maxValues: 100_000 };

/** Plain HTTP and admin API bodies: objects of a few fields and short lists. */
export const API_JSON_LIMITS: JsonShapeLimits = { maxDepth: 32, maxValues: 10_000 };

/**
 * Refuses JSON text that nests deeper or holds more values than `limits`
 * allow, before anything is parsed: REQUEST_TOO_DEEP (400) or
 * REQUEST_TOO_LARGE (413).
 */
export function checkJsonShape(text: string, limits: JsonShapeLimits): void {
  const problem = jsonShapeProblem(text, limits);
  if (problem === null) return;
  if (problem.limit === "depth") {
    throw new SourcegraphError(
      "REQUEST_TOO_DEEP",
      `the request body nests deeper than ${problem.max} levels`,
    );
  }
  throw new SourcegraphError(
    "REQUEST_TOO_LARGE",
    `the request body holds more than ${problem.max} JSON values`,
  );
}

/** Parses a strict JSON body (shape first) or throws INVALID_REQUEST / REQUEST_TOO_DEEP. */
export function parseStrictJson(text: string): unknown {
  checkJsonShape(text, API_JSON_LIMITS);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid("the body is not valid JSON");
  }
  scan(text);
  return value;
}

/** Refuses keys outside `allowed` (and a non-object). */
export function strictFields(value: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid("the body must be a JSON object");
  }
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalid(`unknown field ${JSON.stringify(key.slice(0, 64))}`);
  }
  return value as Record<string, unknown>;
}

/**
 * Parses a strict JSON body against a strict zod object schema (or a union
 * of them, whose members refuse unknown keys themselves); INVALID_REQUEST
 * names the field.
 */
export function parseStrictBody<T>(schema: z.ZodType<T>, text: string): T {
  const value = parseStrictJson(text);
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  if (shape) strictFields(value, Object.keys(shape));
  else strictFields(value, Object.keys(value as object ?? {}));
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "body";
    // A rule of our own says what it wants (zod's stock messages add nothing).
    const rule = issue?.code === "custom" && issue.message !== "Invalid input"
      ? `: ${issue.message}`
      : "";
    throw invalid(`invalid field ${field}${rule}`);
  }
  return parsed.data;
}

function invalid(message: string): SourcegraphError {
  return new SourcegraphError("INVALID_REQUEST", message);
}

// Walks the (already valid) JSON text: object keys per level and nulls.
function scan(text: string): void {
  const stack: { keys: Set<string> | null; expectKey: boolean }[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "{" || c === "[") {
      stack.push({ keys: c === "{" ? new Set() : null, expectKey: c === "{" });
      i++;
    } else if (c === "}" || c === "]") {
      stack.pop();
      i++;
    } else if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) throw invalid(`duplicate field ${JSON.stringify(key.slice(0, 64))}`);
        top.keys.add(key);
        top.expectKey = false;
      }
      i = end + 1;
    } else if (c === ",") {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
      i++;
    } else if (text.startsWith("null", i)) {
      throw invalid("null values are not accepted");
    } else {
      i++;
    }
  }
}
