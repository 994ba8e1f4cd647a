/**
 * The processor time of a child process and everything it waited for: the
 * child runs under `bash`, whose `times` builtin prints, after the command,
 * the user and system time of the shell and of its reaped children (the
 * second line). With the suite's modules running side by side, processor
 * seconds say what a module costs; wall seconds also count its waiting.
 *
 * @example
 * ```ts
 * import { splitTimes } from "./cpu_times.ts";
 *
 * const { cpuSeconds, rest } = splitTimes("warning\n0m0.002s 0m0.001s\n1m2.500s 0m0.500s\n");
 * if (cpuSeconds !== 63 || rest !== "warning\n") throw new Error(`${cpuSeconds} ${rest}`);
 * ```
 *
 * @module
 */

/** A `bash -c` script that runs `deno` with the script's arguments, then prints `times`. */
export const TIMED_DENO = 'deno "$@"; status=$?; times >&2; exit $status';

const TIMES_LINE = /^(\d+)m(\d+(?:\.\d+)?)s (\d+)m(\d+(?:\.\d+)?)s$/;

/**
 * The children's processor seconds from the two `times` lines ending
 * `stderr`, and `stderr` without them; null seconds when they are missing.
 */
export function splitTimes(stderr: string): { cpuSeconds: number | null; rest: string } {
  const lines = stderr.replace(/\n$/, "").split("\n");
  const children = TIMES_LINE.exec(lines.at(-1) ?? "");
  if (lines.length < 2 || !children || !TIMES_LINE.test(lines.at(-2)!)) {
    return { cpuSeconds: null, rest: stderr };
  }
  const seconds = (minutes: string, rest: string) => Number(minutes) * 60 + Number(rest);
  const rest = lines.slice(0, -2).join("\n");
  return {
    cpuSeconds: seconds(children[1], children[2]) + seconds(children[3], children[4]),
    rest: rest === "" ? "" : `${rest}\n`,
  };
}
