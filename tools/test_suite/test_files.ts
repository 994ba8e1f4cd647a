/**
 * The test modules under some folders, as `deno test` finds them
 * (`*_test.ts`, `*.test.ts`, `test.ts` and the other script extensions),
 * and the order a suite starts them in.
 *
 * @module
 */

import { join, relative } from "node:path";

const TEST_MODULE = /(^|[_.])test\.(ts|tsx|mts|js|mjs|jsx)$/;

/** Every test module under `roots` (files or folders), as `./`-relative paths, sorted. */
export async function findTestFiles(roots: string[], options: { cwd: string }): Promise<string[]> {
  const found: string[] = [];
  const walk = async (path: string): Promise<void> => {
    const info = await Deno.stat(path);
    if (info.isFile) {
      found.push(path);
      return;
    }
    for await (const entry of Deno.readDir(path)) {
      const child = join(path, entry.name);
      if (entry.isDirectory) await walk(child);
      else if (entry.isFile && TEST_MODULE.test(entry.name)) found.push(child);
    }
  };
  for (const root of roots) await walk(join(options.cwd, root));
  return found.map((path) => `./${relative(options.cwd, path)}`).sort();
}

/**
 * The order to start `files` in: the slowest of the last recorded run first
 * (so the longest does not start last and keep the others waiting), then
 * those not recorded, in name order.
 *
 * @example
 * ```ts
 * import { startOrder } from "./test_files.ts";
 *
 * const order = startOrder(["./a_test.ts", "./b_test.ts", "./c_test.ts"], {
 *   durations: { "./a_test.ts": 2, "./c_test.ts": 9 },
 * });
 * if (order.join() !== "./c_test.ts,./a_test.ts,./b_test.ts") throw new Error(order.join());
 * ```
 */
export function startOrder(
  files: string[],
  options: { durations: Record<string, number> },
): string[] {
  const known = (file: string) => options.durations[file] ?? -1;
  return [...files].sort((a, b) => known(b) - known(a) || (a < b ? -1 : a > b ? 1 : 0));
}
