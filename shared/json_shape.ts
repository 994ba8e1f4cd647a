/**
 * The shape of JSON text measured before it is parsed: how deep its arrays
 * and objects nest and how many values (keys included) it holds. `JSON.parse`
 * builds every nested array before anything can refuse it: 1.9 million
 * nested `[` in a 4 MB body cost about a second of the one JavaScript thread
 * and gigabytes of heap. This pass is one linear walk over the characters
 * that allocates nothing, so a body can be refused for its shape at a cost
 * proportional to its size.
 *
 * The walk does not validate: a text that passes may still be invalid JSON
 * (the parser says so next). It only stops counting inside strings.
 *
 * @example
 * ```ts
 * import { jsonShapeProblem } from "./json_shape.ts";
 * const problem = jsonShapeProblem("[".repeat(100), { maxDepth: 64, maxValues: 10_000 });
 * // problem = { limit: "depth", max: 64 }
 * ```
 *
 * @module
 */

/** Most nesting and most values a text may have. */
export interface JsonShapeLimits {
  /** Deepest nesting of arrays and objects (a top-level `[` is depth 1). */
  maxDepth: number;
  /** Most values, object keys included. */
  maxValues: number;
}

/** Which limit a text breaks. */
export interface JsonShapeProblem {
  /** `depth` or `values`. */
  limit: "depth" | "values";
  /** The limit it breaks. */
  max: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * The first limit `text` breaks, or null when it nests and counts within
 * `limits`.
 *
 * @param text JSON text (not yet parsed).
 * @param limits The most depth and values allowed.
 * @returns The broken limit, or null.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const deep = "[".repeat(100) + "]".repeat(100);
 * assert(jsonShapeProblem(deep, { maxDepth: 64, maxValues: 10_000 })?.limit === "depth");
 * assert(jsonShapeProblem('{"a":[1,2]}', { maxDepth: 64, maxValues: 10_000 }) === null);
 * ```
 */
export function jsonShapeProblem(text: string, limits: JsonShapeLimits): JsonShapeProblem | null {
  const { maxDepth, maxValues } = limits;
  let depth = 0;
  let values = 0;
  let inScalar = false;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      inScalar = false;
      if (++values > maxValues) return { limit: "values", max: maxValues };
      for (i++; i < length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      inScalar = false;
      if (++depth > maxDepth) return { limit: "depth", max: maxDepth };
      if (++values > maxValues) return { limit: "values", max: maxValues };
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      inScalar = false;
      depth--;
    } else if (c <= 0x20 || c === 0x2c || c === 0x3a) {
      inScalar = false; // whitespace, comma, colon
    } else if (!inScalar) {
      // The first character of a number or of true, false, null.
      inScalar = true;
      if (++values > maxValues) return { limit: "values", max: maxValues };
    }
  }
  return null;
}
