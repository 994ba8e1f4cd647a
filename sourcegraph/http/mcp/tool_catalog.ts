/**
 * The `tools/list` answer, compact: each tool's name, description,
 * annotations, and its argument and answer shapes as JSON Schema without
 * what an agent does not need to call it right. Left out: `$schema` (MCP
 * reads a schema without one as JSON Schema 2020-12, which these shapes
 * mean alike), `execution` (absent means no task support, as the SDK would
 * say), string lengths, long lists' lengths and integers' safe range
 * (checked on each call, and a value out of range is named with the
 * argument list), `additionalProperties` (the arguments are exactly those
 * listed: another is refused by name; an answer may grow a field, and a
 * client's check must not break on it), and the answer's `required` (its
 * shape lists what an answer may hold). Number ranges, enums, short lists'
 * lengths and required arguments stay.
 *
 * @module
 */

import { z } from "zod";
import type { Tool as ListedTool } from "@modelcontextprotocol/sdk/types.js";
import type { Tool } from "./tool.ts";
import { SHARED_ARGUMENTS } from "./arguments.ts";

type Schema = Record<string, unknown>;

// Keywords left out at every depth (see the module comment); an answer's
// fields are all listed as optional.
const OMITTED = ["$schema", "minLength", "maxLength", "additionalProperties", "propertyNames"];
const OMITTED_IN_ARGUMENTS = new Set(OMITTED);
const OMITTED_IN_ANSWERS = new Set([...OMITTED, "required"]);

/** One tool as `tools/list` names it. */
export function listedTool(tool: Tool): ListedTool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: withBareSharedArguments(
      compact(z.toJSONSchema(z.strictObject(tool.input), { io: "input" }), OMITTED_IN_ARGUMENTS),
    ) as ListedTool["inputSchema"],
    outputSchema: compact(
      z.toJSONSchema(z.object(tool.output), { io: "output" }),
      OMITTED_IN_ANSWERS,
    ) as ListedTool["outputSchema"],
    annotations: tool.annotations,
  };
}

// The schema without the keys the module comment names, at every depth.
function compact(schema: unknown, omitted: ReadonlySet<string>, nested = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => compact(item, omitted, true));
  if (schema === null || typeof schema !== "object") return schema;
  const merged = mergedTypes(schema as Schema);
  if (merged !== null) return compact(merged, omitted, nested);
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (omitted.has(key)) continue;
    // Within an answer, `properties` says an object and `items` an array.
    if (
      key === "type" && nested && omitted === OMITTED_IN_ANSWERS &&
      (value === "object" || (value === "array" && "items" in (schema as Schema)))
    ) continue;
    // An integer's safe range says nothing an agent needs, nor that lines and counts start at 1.
    if (key === "minimum" && (value as number) <= 1) continue;
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    // Long lists' lengths are checked on each call; short ones stay listed.
    if (key === "maxItems" && (value as number) > 16) continue;
    if (key === "minItems" && ((schema as Schema).maxItems as number) > 16) continue;
    // `properties` holds names, not keywords: each value is a schema.
    out[key] = key === "properties"
      ? Object.fromEntries(
        Object.entries(value as Schema).map(([name, property]) => [
          name,
          compact(property, omitted, true),
        ]),
      )
      : compact(value, omitted, true);
  }
  return out;
}

// The shared arguments by type only: the instructions say what each means
// and bounds, and a value out of range is refused with the range.
function withBareSharedArguments(schema: unknown): unknown {
  const properties = (schema as Schema).properties as Record<string, Schema>;
  for (const name of SHARED_ARGUMENTS) {
    const property = properties[name];
    if (property === undefined || property.description !== undefined) continue;
    delete property.minimum;
    delete property.maximum;
  }
  return schema;
}

// `anyOf` of schemas of distinct types sharing no other keyword (a string
// or an array of strings; a value or null) as one schema of those types,
// the same schema spelled shorter; null for any other schema.
function mergedTypes(schema: Schema): Schema | null {
  const anyOf = schema.anyOf as Schema[] | undefined;
  if (anyOf === undefined || anyOf.some((member) => typeof member.type !== "string")) return null;
  const keys = anyOf.flatMap((member) => Object.keys(member).filter((key) => key !== "type"));
  const types = anyOf.map((member) => member.type as string);
  if (new Set(keys).size !== keys.length || new Set(types).size !== types.length) return null;
  const { anyOf: _, ...rest } = schema;
  return Object.assign({ ...rest }, ...anyOf, { type: types });
}
