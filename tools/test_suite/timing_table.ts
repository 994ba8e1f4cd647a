/**
 * The table a suite prints at its end: the seconds each folder's test
 * modules took (wall time of each module's `deno test` run, loading
 * included), slowest first, so the next slow area shows.
 *
 * @example
 * ```ts
 * import { timingTable } from "./timing_table.ts";
 *
 * const lines = timingTable([
 *   { file: "./tests/a/one_test.ts", seconds: 3, tests: 2 },
 *   { file: "./tests/a/two_test.ts", seconds: 1, tests: 1 },
 *   { file: "./tests/b/three_test.ts", seconds: 7, tests: 4 },
 * ]);
 * if (!lines[1].startsWith("tests/b ") || !lines[2].startsWith("tests/a ")) {
 *   throw new Error(lines.join("\n"));
 * }
 * ```
 *
 * @module
 */

import { dirname } from "node:path";

/** One test module's run. */
export interface ModuleTiming {
  /** The module, `./`-relative. */
  file: string;
  /** Wall seconds of its `deno test` run. */
  seconds: number;
  /** Tests it ran (passed, failed and ignored). */
  tests: number;
}

/** The per-folder table, a header line first; folders slowest first. */
export function timingTable(timings: ModuleTiming[]): string[] {
  const folders = new Map<string, { seconds: number; files: number; tests: number }>();
  for (const timing of timings) {
    const folder = dirname(timing.file).replace(/^\.\//, "");
    const row = folders.get(folder) ?? { seconds: 0, files: 0, tests: 0 };
    row.seconds += timing.seconds;
    row.files += 1;
    row.tests += timing.tests;
    folders.set(folder, row);
  }
  const rows = [...folders].sort((a, b) => b[1].seconds - a[1].seconds);
  const width = Math.max(6, ...rows.map(([folder]) => folder.length));
  const line = (folder: string, seconds: string, files: string, tests: string) =>
    `${folder.padEnd(width)}  ${seconds.padStart(8)}  ${files.padStart(5)}  ${tests.padStart(5)}`;
  return [
    line("folder", "seconds", "files", "tests"),
    ...rows.map(([folder, row]) =>
      line(folder, row.seconds.toFixed(1), String(row.files), String(row.tests))
    ),
  ];
}
