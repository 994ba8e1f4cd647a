/**
 * The table a suite prints at its end: per folder, the processor seconds its
 * test modules cost (their processes and what those waited for) and their
 * wall seconds (loading included), the costliest first, so the next slow area
 * shows. With modules side by side on a busy machine, wall time also counts
 * waiting for the processor; processor time does not.
 *
 * @example
 * ```ts
 * import { timingTable } from "./timing_table.ts";
 *
 * const lines = timingTable([
 *   { file: "./tests/a/one_test.ts", seconds: 3, cpuSeconds: 2, tests: 2 },
 *   { file: "./tests/a/two_test.ts", seconds: 1, cpuSeconds: 1, tests: 1 },
 *   { file: "./tests/b/three_test.ts", seconds: 2, cpuSeconds: 5, tests: 4 },
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
  /** The module (of a group: its first), `./`-relative. */
  file: string;
  /** Modules the run held (a group's); default one. */
  modules?: number;
  /** Wall seconds of its `deno test` run. */
  seconds: number;
  /** Processor seconds of that run and its children; null where not measured. */
  cpuSeconds: number | null;
  /** Tests it ran (passed, failed and ignored). */
  tests: number;
}

interface FolderRow {
  seconds: number;
  cpuSeconds: number | null;
  files: number;
  tests: number;
}

/** The per-folder table, a header line first; folders costliest first. */
export function timingTable(timings: ModuleTiming[]): string[] {
  const folders = new Map<string, FolderRow>();
  for (const timing of timings) {
    const folder = dirname(timing.file).replace(/^\.\//, "");
    const row = folders.get(folder) ?? { seconds: 0, cpuSeconds: null, files: 0, tests: 0 };
    row.seconds += timing.seconds;
    if (timing.cpuSeconds !== null) row.cpuSeconds = (row.cpuSeconds ?? 0) + timing.cpuSeconds;
    row.files += timing.modules ?? 1;
    row.tests += timing.tests;
    folders.set(folder, row);
  }
  const cost = (row: FolderRow) => row.cpuSeconds ?? row.seconds;
  const rows = [...folders].sort((a, b) => cost(b[1]) - cost(a[1]));
  const width = Math.max(6, ...rows.map(([folder]) => folder.length));
  const line = (cells: string[]) =>
    [cells[0].padEnd(width), ...cells.slice(1).map((cell) => cell.padStart(9))].join("  ");
  return [
    line(["folder", "processor", "wall", "files", "tests"]),
    ...rows.map(([folder, row]) =>
      line([
        folder,
        row.cpuSeconds === null ? "-" : row.cpuSeconds.toFixed(1),
        row.seconds.toFixed(1),
        String(row.files),
        String(row.tests),
      ])
    ),
  ];
}
