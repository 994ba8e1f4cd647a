/**
 * Which test modules share a `deno test` process. A group's modules run in
 * one isolate, one after the other (`group_entry.ts` imports them), so a
 * group pays the process start, Deno's own loading and the module graph its
 * modules share once; what they share is process-wide and isolate-wide state
 * (the tests replace no global). A module that reads the process's memory,
 * changes its environment, working folder or signal handling, or exits, runs
 * alone ({@linkcode needsOwnProcess}), and so does every module of a run that
 * records durations. Groups hold modules of one folder whose recorded
 * seconds add up to at most a cap, so no group becomes the suite's long
 * pole, and start the slowest first.
 *
 * @example
 * ```ts
 * import { groupModules } from "./module_groups.ts";
 *
 * const groups = groupModules(["./t/a_test.ts", "./t/b_test.ts", "./t/c_test.ts", "./u/d_test.ts"], {
 *   durations: { "./t/a_test.ts": 40, "./t/b_test.ts": 20, "./t/c_test.ts": 15, "./u/d_test.ts": 1 },
 *   alone: (file) => file === "./t/b_test.ts",
 *   capSeconds: 60,
 * });
 * const shown = groups.map((group) => group.join("+")).join(" ");
 * if (shown !== "./t/a_test.ts+./t/c_test.ts ./t/b_test.ts ./u/d_test.ts") throw new Error(shown);
 * ```
 *
 * @module
 */

import { dirname } from "node:path";

/**
 * What a group's process prints before the name of a module that could not
 * load: the group did not run, and its modules run again one by one.
 */
export const GROUP_LOAD_FAILURE = "test suite: this module of the group did not load:";

/** Seconds assumed for a module the durations file does not know yet. */
const UNKNOWN_SECONDS = 5;

/**
 * What in a module's source makes it need a process of its own: it reads
 * the process's resident memory or heap, sets or deletes environment
 * variables, changes folder, listens for signals, exits, or sets a global
 * (its group's other modules would see it). A module that starts a child
 * under a lowered open-file limit (`ulimit -n` in the child's shell) changes
 * nothing of its own process and shares one.
 */
const PROCESS_WIDE = new RegExp(
  [
    String.raw`memoryUsage`,
    String.raw`\brss\b`,
    String.raw`/proc/self`,
    String.raw`Deno\.env\.(?:set|delete)`,
    String.raw`Deno\.chdir`,
    String.raw`addSignalListener`,
    String.raw`Deno\.exit`,
    String.raw`globalThis[^\n]*?(?:\.\s*[\w$]+|\])\s*=(?!=)`,
  ].join("|"),
  "i",
);

/** Whether a module whose source is `source` must run in a process of its own. */
export function needsOwnProcess(source: string): boolean {
  return PROCESS_WIDE.test(source);
}

/**
 * `files` in groups that share a process, in the order to start them: per
 * folder, modules that need no process of their own are packed (slowest
 * first) into groups of at most `capSeconds` recorded seconds; a module
 * slower than the cap, or `alone`, is a group of its own. Groups start
 * by their recorded seconds, the slowest first.
 */
export function groupModules(
  files: string[],
  options: {
    durations: Record<string, number>;
    alone: (file: string) => boolean;
    capSeconds: number;
  },
): string[][] {
  const seconds = (file: string) => options.durations[file] ?? UNKNOWN_SECONDS;
  const bySlowest = [...files].sort((a, b) => seconds(b) - seconds(a) || (a < b ? -1 : 1));
  const groups: { files: string[]; seconds: number }[] = [];
  const open = new Map<string, { files: string[]; seconds: number }[]>();
  for (const file of bySlowest) {
    if (options.alone(file) || seconds(file) >= options.capSeconds) {
      groups.push({ files: [file], seconds: seconds(file) });
      continue;
    }
    const folder = dirname(file);
    const candidates = open.get(folder) ?? [];
    // First fit: the first group of the folder this module still fits in.
    let group = candidates.find((g) => g.seconds + seconds(file) <= options.capSeconds);
    if (!group) {
      group = { files: [], seconds: 0 };
      candidates.push(group);
      open.set(folder, candidates);
      groups.push(group);
    }
    group.files.push(file);
    group.seconds += seconds(file);
  }
  return groups
    .sort((a, b) => b.seconds - a.seconds || (a.files[0] < b.files[0] ? -1 : 1))
    .map((group) => group.files);
}
