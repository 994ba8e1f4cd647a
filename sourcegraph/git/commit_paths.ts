/**
 * Every path of a commit (`git ls-tree -r --name-only`), for the errors
 * that name the paths nearest to a missing one. Bounded: a tree whose
 * listing is larger than the cap gives the paths read so far.
 *
 * @module
 */

import { runGit } from "../../shared/git.ts";
import { cachedAnswer, type GitAnswerCache } from "./answer_cache.ts";

const MAX_LISTING_BYTES = 64 * 1024 * 1024;

/**
 * The paths of `commit` in `mirror` (files, links and submodules), under
 * `pathspecs` (none: all). With a `cache`, a listing is kept by mirror,
 * commit and pathspecs (a commit's tree never changes), and a repeated one
 * runs no Git.
 */
export async function commitPaths(
  mirror: string,
  at: { commit: string; pathspecs?: readonly string[]; cache?: GitAnswerCache },
): Promise<string[]> {
  const key = ["paths", mirror, at.commit, ...(at.pathspecs ?? [])].join("\0");
  return await cachedAnswer(at.cache, key, () => listPaths(mirror, at));
}

async function listPaths(
  mirror: string,
  at: { commit: string; pathspecs?: readonly string[] },
): Promise<string[]> {
  const { stdout } = await runGit(
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
    { cwd: mirror, maxStdoutBytes: MAX_LISTING_BYTES, timeoutMs: 30_000 },
  );
  return new TextDecoder().decode(stdout).split("\0").filter((path) => path !== "");
}
