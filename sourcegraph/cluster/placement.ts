/**
 * Which replicas own a repository: rendezvous (highest random weight)
 * hashing of the repository's name over the live replicas' names, as
 * Sourcegraph places repositories on gitserver shards. Each replica scores
 * `SHA-256(replica name, NUL, repository name)`; the highest scores own it.
 * A replica that joins or leaves moves only the repositories it wins or
 * held, about 1/N of them. A pin names the owners of one repository; those
 * of its pinned replicas that are alive own it, and the hash fills the
 * remaining places.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const owners = ownersOf("org/app", { replicas: ["a", "b", "c"], replication: 2 });
 * assert.strictEqual(owners.length, 2);
 * // Every replica computes the same owners, whatever order it lists the others in.
 * const listed = ownersOf("org/app", { replicas: ["c", "b", "a"], replication: 2 });
 * assert.deepStrictEqual(listed, owners);
 * // A pinned replica that is alive owns the repository; one that is not is skipped.
 * const replicas = ["a", "b", "c"];
 * const pinned = ownersOf("org/app", { replicas, replication: 2, pins: ["x", "a"] });
 * assert.strictEqual(pinned[0], "a");
 * assert.strictEqual(pinned.length, 2);
 * ```
 *
 * @module
 */

import { createHash } from "node:crypto";

/** The replicas that own `repository`, best first. */
export function ownersOf(
  repository: string,
  options: { replicas: readonly string[]; replication: number; pins?: readonly string[] },
): string[] {
  const want = Math.max(1, Math.min(options.replication, options.replicas.length));
  const alive = new Set(options.replicas);
  const pinned = (options.pins ?? []).filter((name) => alive.has(name));
  return [...new Set([...pinned, ...rankedReplicas(repository, options.replicas)])].slice(
    0,
    Math.max(want, pinned.length),
  );
}

/** Every replica ranked for `repository` (highest score first; ties by name). */
export function rankedReplicas(repository: string, replicas: readonly string[]): string[] {
  return [...replicas].map((name) => ({ name, score: score(name, repository) })).sort((a, b) =>
    a.score < b.score ? 1 : a.score > b.score ? -1 : a.name < b.name ? -1 : 1
  ).map((entry) => entry.name);
}

function score(replica: string, repository: string): bigint {
  const digest = createHash("sha256").update(`${replica}\0${repository}`).digest();
  return digest.readBigUInt64BE(0);
}
