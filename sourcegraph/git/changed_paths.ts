/**
 * The paths changed between two commits of a mirror (`git diff
 * --name-status -z --no-renames`), limited to folders taken literally: a
 * folder named `docs/*` or `[ab]` is that folder, never a pattern that
 * would have Git read others.
 *
 * @module
 */

import { runGit } from "../../shared/git.ts";

/** One changed path. */
export interface ChangedPath {
  path: string;
  status: "added" | "deleted" | "modified" | "type_changed";
}

const STATUS: Readonly<Record<string, ChangedPath["status"]>> = {
  A: "added",
  D: "deleted",
  M: "modified",
  T: "type_changed",
};

/**
 * The changes from `base` to `head` in `mirror`, restricted to the folders
 * and files `pathspecs` names, literally (none: all).
 */
export async function changedPaths(
  mirror: string,
  range: { base: string; head: string; pathspecs: readonly string[] },
): Promise<ChangedPath[]> {
  const out = await runGit(
    [
      "--literal-pathspecs",
      "diff",
      "--name-status",
      "-z",
      "--no-renames",
      "--no-ext-diff",
      range.base,
      range.head,
      "--",
      ...range.pathspecs,
    ],
    { cwd: mirror, maxStdoutBytes: 16 * 1024 * 1024, timeoutMs: 30_000 },
  );
  const fields = new TextDecoder().decode(out.stdout).split("\0");
  const changes: ChangedPath[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    changes.push({ path: fields[i + 1], status: STATUS[fields[i]] ?? "modified" });
  }
  return changes;
}
