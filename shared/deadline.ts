/**
 * Waiting on work that cannot be cancelled, up to a deadline: the caller
 * moves on and the work finishes (or not) on its own.
 *
 * @module
 */

/**
 * `work`'s value, or null when `deadline` (a `performance.now()` time) comes first.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const slow = new Promise<string>((resolve) => setTimeout(() => resolve("late"), 50));
 * const value = await beforeDeadline(slow, performance.now() + 10);
 * assert(value === null); // the work goes on; the caller does not wait
 * ```
 */
export async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, deadline - performance.now()));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
