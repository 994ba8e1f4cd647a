/**
 * The WebCodex Runner's schema profile v1, as the fake Runner enforces it:
 * catalog checks (allowed keywords, structure, bounds) and instance checks of
 * tool arguments. Written from the compatibility reference, section 1.3.
 *
 * @module
 */

const TYPES = new Set(["object", "array", "string", "number", "integer", "boolean", "null"]);
const ANY_KEYWORDS = new Set(["type", "title", "description", "enum", "const"]);
const KEYWORDS_BY_TYPE: Record<string, Set<string>> = {
  object: new Set(["properties", "required", "additionalProperties"]),
  string: new Set(["minLength", "maxLength"]),
  array: new Set(["minItems", "maxItems", "items"]),
};

/** Returns the catalog diagnostics of one schema (empty when it conforms). */
export function schemaProblems(schema: unknown, root = true): string[] {
  const problems: string[] = [];
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    return ["schema node is not an object"];
  }
  const node = schema as Record<string, unknown>;
  if (root && JSON.stringify(node).length > 64 * 1024) problems.push("schema_bounds_exceeded");
  const type = node.type;
  if (typeof type !== "string" || !TYPES.has(type)) return ["type must be one string type"];
  if (root && type !== "object") problems.push("root must be an object");
  for (const key of Object.keys(node)) {
    if (key.length > 1024) problems.push("schema_bounds_exceeded");
    if (!ANY_KEYWORDS.has(key) && !KEYWORDS_BY_TYPE[type]?.has(key)) {
      problems.push(`schema_keyword_unsupported: ${key}`);
    }
  }
  if (node.enum !== undefined) {
    if (!Array.isArray(node.enum) || node.enum.length < 1 || node.enum.length > 128) {
      problems.push("enum must hold 1-128 values");
    }
  }
  const bounded = (min: string, max: string, limit: number) => {
    for (const key of [min, max]) {
      const value = node[key];
      if (
        value !== undefined &&
        (!Number.isInteger(value) || (value as number) < 0 || (value as number) > limit)
      ) {
        problems.push(`${key} out of bounds`);
      }
    }
    if (typeof node[min] === "number" && typeof node[max] === "number" && node[min]! > node[max]!) {
      problems.push(`${min} > ${max}`);
    }
  };
  bounded("minLength", "maxLength", 65_536);
  bounded("minItems", "maxItems", 4096);
  if (type === "object") {
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    if (typeof properties !== "object" || Array.isArray(properties)) {
      problems.push("bad properties");
    }
    if (Object.keys(properties).length > 128) problems.push("too many properties");
    const required = (node.required ?? []) as unknown[];
    if (
      !Array.isArray(required) || new Set(required).size !== required.length ||
      required.length > 128
    ) {
      problems.push("bad required");
    }
    if (node.additionalProperties !== undefined && typeof node.additionalProperties !== "boolean") {
      problems.push("additionalProperties must be boolean");
    }
    if (node.additionalProperties === false) {
      for (const name of required) {
        if (typeof name !== "string" || !(name in properties)) {
          problems.push(`required ${name} not in properties`);
        }
      }
    }
    for (const child of Object.values(properties)) problems.push(...schemaProblems(child, false));
  }
  if (type === "array" && node.items !== undefined) {
    problems.push(...schemaProblems(node.items, false));
  }
  return problems;
}

/** Returns why `value` does not satisfy `schema` (empty when it does). */
export function instanceProblems(
  schema: Record<string, unknown>,
  value: unknown,
  at = "$",
): string[] {
  const type = schema.type as string;
  const ok = (() => {
    switch (type) {
      case "object":
        return typeof value === "object" && value !== null && !Array.isArray(value);
      case "array":
        return Array.isArray(value);
      case "string":
        return typeof value === "string";
      case "integer":
        return typeof value === "number" && Number.isInteger(value) &&
          value >= -(2 ** 63) && value < 2 ** 64;
      case "number":
        return typeof value === "number" && Number.isFinite(value);
      case "boolean":
        return typeof value === "boolean";
      default:
        return value === null;
    }
  })();
  if (!ok) return [`${at}: expected ${type}`];
  const problems: string[] = [];
  if (
    Array.isArray(schema.enum) &&
    !schema.enum.some((v) => JSON.stringify(v) === JSON.stringify(value))
  ) {
    problems.push(`${at}: not in enum`);
  }
  if (type === "string") {
    const length = [...(value as string)].length;
    if (typeof schema.minLength === "number" && length < schema.minLength) {
      problems.push(`${at}: too short`);
    }
    if (typeof schema.maxLength === "number" && length > schema.maxLength) {
      problems.push(`${at}: too long`);
    }
  }
  if (type === "object") {
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
    for (const name of (schema.required ?? []) as string[]) {
      if (!(name in record)) problems.push(`${at}.${name}: required`);
    }
    for (const [name, child] of Object.entries(record)) {
      if (name in properties) {
        problems.push(...instanceProblems(properties[name], child, `${at}.${name}`));
      } else if (schema.additionalProperties === false) problems.push(`${at}.${name}: not allowed`);
    }
  }
  if (type === "array" && schema.items) {
    (value as unknown[]).forEach((item, i) =>
      problems.push(
        ...instanceProblems(schema.items as Record<string, unknown>, item, `${at}[${i}]`),
      )
    );
  }
  return problems;
}
