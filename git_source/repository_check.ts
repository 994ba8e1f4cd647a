/**
 * The checks of the start: the configured repository must exist and be a
 * Git repository, or the start stops with one line (as a bad environment
 * does); configured paths that HEAD does not hold, and a repository without a
 * commit yet, are warned about (they are delivered once committed). Later
 * failures (the repository renamed away, a missing object) are reported per
 * call as `unavailable`, and logged (`server.ts`).
 *
 * @module
 */

import * as fs from "node:fs";
import type { SourceConfig } from "./config.ts";
import { CommittedTree } from "./committed_tree.ts";

/** What the start learns: a reason to stop, or warnings. */
export type RepositoryCheck = { fatal: string } | { fatal: null; warnings: string[] };

/** Checks `config`'s repository and paths at HEAD. */
export async function checkRepository(config: SourceConfig): Promise<RepositoryCheck> {
  const where = `GIT_SOURCE_REPOSITORY ${config.repository}`;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(config.repository);
  } catch (error) {
    const code = (error as { code?: string }).code;
    return {
      fatal: code === "ENOENT" ? `${where} does not exist` : `${where} cannot be read (${code})`,
    };
  }
  if (!stat.isDirectory()) return { fatal: `${where} is not a folder` };
  const tree = CommittedTree.open(config.repository);
  try {
    if (!(await tree.isRepository())) return { fatal: `${where} is not a Git repository` };
    let head: string;
    try {
      head = await tree.head();
    } catch {
      return {
        fatal: null,
        warnings: [
          `warning: ${where} has no commit yet; git.changes answers unavailable until it has`,
        ],
      };
    }
    const present = await tree.entries(head, config.paths);
    const missing = config.paths.filter((path) => !present.has(path));
    return {
      fatal: null,
      warnings: missing.length === 0 ? [] : [
        `warning: GIT_SOURCE_PATHS names ${missing.length} path(s) not committed at HEAD ${
          head.slice(0, 12)
        }: ${missing.join(", ")} (each is delivered once it is committed)`,
      ],
    };
  } finally {
    await tree.close();
  }
}
