/**
 * Every path of a commit (`git ls-tree -r --name-only`), for the errors
 * that name the paths nearest to a missing one. Bounded: a tree whose
 * listing is larger than the cap gives the paths read so far.
 *
 * @module
 */

import { GitError, runGit } from "../../shared/git.ts";

const MAX_LISTING_BYTES = 32 * 1024 * 1024;

/** The paths of `commit` in `mirror` (files, links and submodules), under `pathspecs` (none: all). */
export async function commitPaths(
  mirror: string,
  at: { commit: string; pathspecs?: readonly string[] },
): Promise<string[]> {
  let stdout: Uint8Array;
  try {
    ({ stdout } = await runGit(
      [
        "--literal-pathspecs",
        "ls-tree",
        "-r",
        "-z",
        "--name-only",
        "--full-tree",
        at.commit,
        "--",
        ...(at.pathspecs ?? []),
      ],
      { cwd: mirror, maxStdoutBytes: MAX_LISTING_BYTES, timeoutMs: 10_000 },
    ));
  } catch (error) {
    if (error instanceof GitError && error.code === "GIT_OUTPUT_LIMIT") return [];
    throw error;
  }
  const paths = new TextDecoder().decode(stdout).split("\0");
  paths.pop(); // after the last NUL
  return paths;
}
