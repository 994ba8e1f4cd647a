/**
 * Small helpers shared by the benchmark scripts.
 *
 * @module
 */

import { join } from "node:path";
import { cpuUsage } from "node:process";

/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Milliseconds one call took. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** A deterministic pseudo-random generator (mulberry32) of numbers in [0, 1). */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The texts of a Git work tree's tracked files matching `globs` (`git ls-files`), by path. */
export async function trackedTexts(tree: string, globs: string[]): Promise<Map<string, string>> {
  const listed = await new Deno.Command("git", {
    args: ["ls-files", ...globs],
    cwd: tree,
    stdout: "piped",
  }).output();
  const texts = new Map<string, string>();
  for (const path of new TextDecoder().decode(listed.stdout).split("\n").filter(Boolean)) {
    try {
      texts.set(path, await Deno.readTextFile(join(tree, path)));
    } catch {
      // A blob the tree lacks.
    }
  }
  return texts;
}

/**
 * Whole-word counts of every identifier of `texts` (`word`, global), and the
 * names `definition` (global; its first group that matched) finds, sorted.
 */
export function definedNames(
  texts: Map<string, string>,
  options: { word: RegExp; definition: RegExp },
): { counts: Map<string, number>; defined: string[] } {
  const counts = new Map<string, number>();
  const defined = new Set<string>();
  for (const text of texts.values()) {
    for (const [word] of text.matchAll(options.word)) {
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
    for (const match of text.matchAll(options.definition)) {
      defined.add(match.slice(1).find((group) => group !== undefined)!);
    }
  }
  return { counts, defined: [...defined].sort() };
}

/** Up to `count` of `pool`, drawn without repeats by `random`. */
export function drawn(pool: string[], count: number, random: () => number): string[] {
  const left = [...pool];
  const chosen: string[] = [];
  while (chosen.length < count && left.length > 0) {
    chosen.push(left.splice(Math.floor(random() * left.length), 1)[0]);
  }
  return chosen;
}

/** Processor milliseconds of this process so far (user and system). */
export function processCpuMs(): number {
  const { user, system } = cpuUsage();
  return (user + system) / 1000;
}
