/**
 * Which kill points a crash test visits in this run. The full sweep is long
 * (20 to 40 s per test on a loaded 2-core machine), so a run visits a seeded
 * sample of the points and prints the seed; `CRASH_POINTS=all` visits every
 * point, and `CRASH_SEED=<n>` repeats a run's sample (and its random delays).
 *
 * @module
 */

import { prng } from "./bench_stats.ts";

/** The points (ascending) and the seeded random source for their delays. */
export interface CrashPoints {
  points: number[];
  random: () => number;
}

/**
 * `sample` of the points `0 … total - 1` (all of them with `CRASH_POINTS=all`),
 * spread over the whole range: one drawn from each of `sample` equal slices.
 */
export function crashPoints(name: string, options: { total: number; sample: number }): CrashPoints {
  const all = Deno.env.get("CRASH_POINTS") === "all";
  const given = Number(Deno.env.get("CRASH_SEED"));
  const seed = Number.isSafeInteger(given) && given > 0
    ? given
    : Math.floor(Math.random() * 2 ** 31) + 1;
  const random = prng(seed);
  const count = all ? options.total : Math.min(options.sample, options.total);
  const points: number[] = [];
  for (let slice = 0; slice < count; slice++) {
    const from = Math.floor((slice * options.total) / count);
    const to = Math.floor(((slice + 1) * options.total) / count);
    points.push(all ? slice : from + Math.floor(random() * (to - from)));
  }
  console.log(
    `${name}: ${points.length} of ${options.total} kill points, seed ${seed} ` +
      `(CRASH_SEED=${seed} repeats them, CRASH_POINTS=all visits every point)`,
  );
  return { points, random };
}
