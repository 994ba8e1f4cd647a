/**
 * The test modules under some folders, as `deno test` finds them
 * (`*_test.ts`, `*.test.ts`, `test.ts` and the other script extensions),
 * in name order.
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
