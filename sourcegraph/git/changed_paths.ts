/**
 * The paths changed between two commits of a mirror (`git diff
 * --name-status -z --no-renames`), limited to folders taken literally: a
 * folder named `docs/*` or `[ab]` is that folder, never a pattern that
 * would have Git read others. A commit's own changes (`commitChanges`) also
 * say which files were renamed or copied, and from where (`-M -C`).
 *
 * @module
 */

import { runGit } from "../../shared/git.ts";

/** One changed path. */
export interface ChangedPath {
  path: string;
  status: "added" | "deleted" | "modified" | "type_changed";
}

/** One changed path of a commit: a rename or a copy names the path it came from. */
export interface CommitChange {
  path: string;
  status: ChangedPath["status"] | "renamed" | "copied";
  /** The path at the base a renamed or copied file came from (null otherwise). */
  from: string | null;
}

const STATUS: Readonly<Record<string, CommitChange["status"]>> = {
  A: "added",
  D: "deleted",
  M: "modified",
  T: "type_changed",
  R: "renamed",
  C: "copied",
};

// Git's arguments for the changes of `range` (`renames`: `-M -C`, else `--no-renames`).
function nameStatusArgs(
  range: { base: string; head: string; pathspecs: readonly string[] },
  renames: boolean,
): string[] {
  return [
    "--literal-pathspecs",
    "diff",
    "--name-status",
    "-z",
    ...(renames ? ["-M", "-C"] : ["--no-renames"]),
    "--no-ext-diff",
    range.base,
    range.head,
    "--",
    ...range.pathspecs,
  ];
}

const LIST_CAPS = { maxStdoutBytes: 16 * 1024 * 1024, timeoutMs: 30_000 };

/**
 * The changes from `base` to `head` in `mirror`, restricted to the folders
 * and files `pathspecs` names, literally (none: all).
 */
export async function changedPaths(
  mirror: string,
  range: { base: string; head: string; pathspecs: readonly string[] },
): Promise<ChangedPath[]> {
  const out = await runGit(nameStatusArgs(range, false), { cwd: mirror, ...LIST_CAPS });
  const fields = new TextDecoder().decode(out.stdout).split("\0");
  const changes: ChangedPath[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = STATUS[fields[i]];
    changes.push({
      path: fields[i + 1],
      status: status === "renamed" || status === "copied" || status === undefined
        ? "modified"
        : status,
    });
  }
  return changes;
}

/**
 * The changes from `base` to `head` in `mirror` under `pathspecs` (literal;
 * none: all), in the order `git diff -M -C` lists them: a renamed or copied
 * file once, with the path it came from.
 */
export async function commitChanges(
  mirror: string,
  range: { base: string; head: string; pathspecs: readonly string[] },
): Promise<CommitChange[]> {
  const out = await runGit(nameStatusArgs(range, true), { cwd: mirror, ...LIST_CAPS });
  const fields = new TextDecoder().decode(out.stdout).split("\0");
  const changes: CommitChange[] = [];
  let i = 0;
  while (i + 1 < fields.length) {
    // "R100" and "C075" carry a similarity score; both paths follow.
    const status = STATUS[fields[i].slice(0, 1)] ?? "modified";
    if ((status === "renamed" || status === "copied") && i + 2 < fields.length) {
      changes.push({ path: fields[i + 2], status, from: fields[i + 1] });
      i += 3;
    } else {
      changes.push({ path: fields[i + 1], status, from: null });
      i += 2;
    }
  }
  return changes;
}
