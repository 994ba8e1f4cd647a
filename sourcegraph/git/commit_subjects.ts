/**
 * The subject line (first line of the message) of commits in a mirror, for
 * people browsing versions. Read with one `git log --no-walk` for all of
 * them.
 *
 * @module
 */

import { runGit } from "../../shared/git.ts";

/** The subject of each of `commits` (full SHAs) found in `mirror`. */
export async function commitSubjects(
  mirror: string,
  commits: readonly string[],
): Promise<Map<string, string>> {
  const subjects = new Map<string, string>();
  if (commits.length === 0) return subjects;
  const out = await runGit(
    ["log", "--no-walk=unsorted", "--format=%H%x00%s%x00", "--end-of-options", ...commits],
    { cwd: mirror, maxStdoutBytes: 16 * 1024 * 1024, timeoutMs: 30_000 },
  );
  const fields = new TextDecoder().decode(out.stdout).split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) {
    subjects.set(fields[i].trim(), fields[i + 1]);
  }
  return subjects;
}
