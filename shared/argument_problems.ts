/**
 * Tool arguments that failed their schema, said one field at a time
 * (`start_line: too small: expected number to be >=1`), instead of a JSON
 * dump of the validator's issues, so an agent sees at once which argument
 * to change. Used by every program's tool edge.
 *
 * @module
 */

import type { z } from "zod";

// A longer message is cut: error answers stay small whatever the input.
const MAX_PROBLEMS = 8;
const MAX_PROBLEM_CHARS = 200;

/**
 * One line per problem, `field: what is wrong`; nested fields are written
 * `files[1].path`; an unknown argument is `name: not an argument`; a
 * missing one is `name: required`.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { z } from "zod";
 * const parsed = z.strictObject({ repo: z.string(), line: z.number().min(1) })
 *   .safeParse({ line: 0, extra: true });
 * assert(!parsed.success);
 * assert.deepStrictEqual(argumentProblems(parsed.error), [
 *   "repo: required",
 *   "line: too small: expected number to be >=1",
 *   "extra: not an argument",
 * ]);
 * ```
 */
export function argumentProblems(error: z.ZodError): string[] {
  const problems = error.issues.flatMap((issue) => {
    const field = fieldName(issue.path);
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => `${field === "" ? "" : `${field}.`}${key}: not an argument`);
    }
    const missing = issue.code === "invalid_type" && /received undefined$/.test(issue.message);
    const what = missing
      ? "required"
      : issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
    return [`${field === "" ? "arguments" : field}: ${what}`];
  });
  const shown = problems.slice(0, MAX_PROBLEMS).map((problem) =>
    problem.length > MAX_PROBLEM_CHARS ? `${problem.slice(0, MAX_PROBLEM_CHARS)}…` : problem
  );
  if (problems.length > shown.length) shown.push(`and ${problems.length - shown.length} more`);
  return shown;
}

/**
 * The arguments of a tool as a hint: `repo (required), path (required), revision`.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { z } from "zod";
 * const shape = { repo: z.string(), revision: z.string().optional() };
 * assert.equal(argumentList(shape), "repo (required), revision");
 * ```
 */
export function argumentList(shape: z.ZodRawShape): string {
  return Object.entries(shape).map(([name, schema]) =>
    (schema as z.ZodType).safeParse(undefined).success ? name : `${name} (required)`
  ).join(", ");
}

function fieldName(path: readonly PropertyKey[]): string {
  return path.map((part, i) =>
    typeof part === "number" ? `[${part}]` : `${i === 0 ? "" : "."}${String(part)}`
  ).join("");
}
