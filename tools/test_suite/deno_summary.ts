/**
 * Reads and writes the one-line summary `deno test` ends with, e.g.
 * `ok | 4 passed (27 steps) | 0 failed | 2 ignored (18m40s)`, so the counts
 * of several `deno test` runs add up to one line in the same shape.
 *
 * @example
 * ```ts
 * import { formatSummary, parseSummary } from "./deno_summary.ts";
 *
 * const counts = parseSummary("FAILED | 3 passed (2 steps) | 1 failed | 1 ignored (4s)");
 * if (counts?.failed !== 1 || counts.steps !== 2) throw new Error("not parsed");
 * const line = formatSummary(counts, { seconds: 75 });
 * if (line !== "FAILED | 3 passed (2 steps) | 1 failed | 1 ignored (1m15s)") throw new Error(line);
 * ```
 *
 * @module
 */

/** The counts of one summary line. */
export interface TestCounts {
  passed: number;
  failed: number;
  ignored: number;
  /** Test steps that passed (`t.step`), shown beside `passed`. */
  steps: number;
}

/** No tests at all. */
export const NO_TESTS: TestCounts = { passed: 0, failed: 0, ignored: 0, steps: 0 };

const SUMMARY =
  /^(ok|FAILED) \| (\d+) passed(?: \((\d+) steps?\))? \| (\d+) failed(?: \(\d+ steps?\))?(?: \| (\d+) ignored(?: \(\d+ steps?\))?)?(?: \| \d+ filtered out)? \([^)]*\)$/;

// Deno colours its output unless NO_COLOR is set, also when it is piped.
// deno-lint-ignore no-control-regex
const COLOURS = /\x1b\[[0-9;]*m/g;

/** Whether `line` is a `deno test` summary line (coloured or not). */
export function isSummary(line: string): boolean {
  return SUMMARY.test(line.replace(COLOURS, ""));
}

/** The counts of a summary line (coloured or not); null for any other line. */
export function parseSummary(line: string): TestCounts | null {
  const match = SUMMARY.exec(line.replace(COLOURS, ""));
  if (!match) return null;
  return {
    passed: Number(match[2]),
    steps: Number(match[3] ?? 0),
    failed: Number(match[4]),
    ignored: Number(match[5] ?? 0),
  };
}

/** Adds two counts. */
export function addCounts(a: TestCounts, b: TestCounts): TestCounts {
  return {
    passed: a.passed + b.passed,
    failed: a.failed + b.failed,
    ignored: a.ignored + b.ignored,
    steps: a.steps + b.steps,
  };
}

/** A summary line in `deno test`'s shape, with the run's wall time. */
export function formatSummary(counts: TestCounts, options: { seconds: number }): string {
  const steps = counts.steps > 0 ? ` (${counts.steps} step${counts.steps === 1 ? "" : "s"})` : "";
  const ignored = counts.ignored > 0 ? ` | ${counts.ignored} ignored` : "";
  return `${counts.failed > 0 ? "FAILED" : "ok"} | ${counts.passed} passed${steps} | ` +
    `${counts.failed} failed${ignored} (${formatDuration(options.seconds)})`;
}

/** `75` as `1m15s`, `4.2` as `4s`. */
export function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  const minutes = Math.floor(whole / 60);
  return minutes > 0 ? `${minutes}m${whole % 60}s` : `${whole}s`;
}

/**
 * The failed tests of one `deno test` output: each entry of its `FAILURES`
 * section (`name => file:line:column`, or `file (uncaught error)` for an
 * error outside any test), followed by the first line of its
 * error from the `ERRORS` section when there is one, so a run's last lines
 * can say which tests failed and why.
 */
export function failedTests(lines: readonly string[]): string[] {
  const plain = lines.map((line) => line.replace(COLOURS, ""));
  const failures = plain.lastIndexOf(" FAILURES ");
  if (failures < 0) return [];
  const errors = plain.lastIndexOf(" ERRORS ", failures);
  const found: string[] = [];
  for (const entry of plain.slice(failures + 1)) {
    if (entry.trim() === "") {
      if (found.length > 0) break;
      continue;
    }
    // A test's entry names its test; an error outside any test (a dangling promise) names its
    // module, and cancels that module's remaining tests.
    if (!entry.includes(" => ") && !entry.endsWith(UNCAUGHT)) break;
    const at = errors < 0 ? -1 : plain.indexOf(entry, errors);
    const error = at < 0 || at > failures ? undefined : plain[at + 1];
    const named = `${entry}${runningWhen(plain, entry)}`;
    found.push(error?.startsWith("error: ") ? `${named}: ${error.slice(7).slice(0, 200)}` : named);
  }
  return found;
}

// How the FAILURES section ends the entry of an error outside any test (after its module).
const UNCAUGHT = " (uncaught error)";

/** For an uncaught error's entry, ` (while "test" ran)`: the test whose line it cut short. */
function runningWhen(plain: readonly string[], entry: string): string {
  if (!entry.endsWith(UNCAUGHT)) return "";
  const module = entry.slice(0, -UNCAUGHT.length);
  const at = plain.indexOf(`Uncaught error from ${module} FAILED`);
  const test = at > 0 ? /^(.*) \.\.\.$/.exec(plain[at - 1]) : null;
  return test ? ` (while "${test[1]}" ran)` : "";
}
