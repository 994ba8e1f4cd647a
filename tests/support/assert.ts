/**
 * Assertions for tests, on top of `node:assert/strict` (JSR's `@std/assert`
 * cannot be installed here).
 *
 * @module
 */

import nodeAssert from "node:assert/strict";

/** Asserts a condition is truthy. */
export function assert(condition: unknown, message?: string): asserts condition {
  nodeAssert.ok(condition, message);
}

/** Asserts deep strict equality. */
export function assertEquals<T>(
  actual: unknown,
  expected: T,
  message?: string,
): asserts actual is T {
  nodeAssert.deepStrictEqual(actual, expected, message);
}

/** Asserts that `text` contains `part`. */
export function assertIncludes(text: string, part: string, message?: string): void {
  nodeAssert.ok(text.includes(part), message ?? `expected ${JSON.stringify(part)} in output`);
}

/** Asserts that `fn` throws an instance of `type` and returns it. */
export function assertThrows<E extends Error>(
  fn: () => unknown,
  // deno-lint-ignore no-explicit-any
  type: new (...args: any[]) => E,
): E {
  try {
    fn();
  } catch (error) {
    nodeAssert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`);
    return error as E;
  }
  throw new nodeAssert.AssertionError({ message: `expected ${type.name} to be thrown` });
}

/** Asserts that `fn` rejects with an instance of `type` and returns the error. */
export async function assertRejects<E extends Error>(
  fn: () => Promise<unknown>,
  // deno-lint-ignore no-explicit-any
  type: new (...args: any[]) => E,
): Promise<E> {
  try {
    await fn();
  } catch (error) {
    nodeAssert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`);
    return error as E;
  }
  throw new nodeAssert.AssertionError({ message: `expected ${type.name} to be rejected` });
}

/**
 * Polls `check` every 50 ms until it holds; fails after `timeoutMs` (default 60 s, a guard
 * against a hang that a processor-bound machine must not trip) naming `what`.
 */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  options: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${options.what ?? "a condition"}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
