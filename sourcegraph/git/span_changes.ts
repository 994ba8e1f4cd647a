/**
 * How one file changed between two commits, for following a cited line
 * span: where the path went (Git's rename detection), and the line hunks of
 * its diff (`git diff -U0`: the changed lines only, no context).
 *
 * @module
 */

import { runGit } from "../../shared/git.ts";

/** A changed run of lines: `oldCount` lines from `oldStart` became `newCount` from `newStart`. */
export interface LineHunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
}

/** Where `path` of `base` is at `head`: the same path, a renamed one, or none. */
export type PathFate =
  | { fate: "kept"; path: string }
  | { fate: "renamed"; path: string }
  | { fate: "deleted" };

const GIT_LIMITS = { maxStdoutBytes: 16 * 1024 * 1024, timeoutMs: 30_000 };

/**
 * What became of `path` from `base` to `head` in `mirror`, with renames
 * found among the files under `pathspecs` only when given (a file outside
 * them is neither a rename's target nor part of the diff's cost).
 */
export async function pathFate(
  mirror: string,
  at: { base: string; head: string; path: string; pathspecs?: readonly string[] },
): Promise<PathFate> {
  const limited = at.pathspecs === undefined ? [] : ["--", ...at.pathspecs];
  const out = await runGit(
    [
      ...(limited.length > 0 ? ["--literal-pathspecs"] : []),
      "diff",
      "--name-status",
      "-z",
      "--find-renames",
      "--no-ext-diff",
      at.base,
      at.head,
      ...limited,
    ],
    { cwd: mirror, ...GIT_LIMITS },
  );
  const fields = new TextDecoder().decode(out.stdout).split("\0");
  for (let i = 0; i + 1 < fields.length;) {
    const status = fields[i];
    if (status.startsWith("R") || status.startsWith("C")) {
      const [from, to] = [fields[i + 1], fields[i + 2]];
      if (status.startsWith("R") && from === at.path) return { fate: "renamed", path: to };
      i += 3;
      continue;
    }
    if (fields[i + 1] === at.path && status === "D") return { fate: "deleted" };
    i += 2;
  }
  return { fate: "kept", path: at.path };
}

/** The line hunks turning `oldPath` of `base` into `newPath` of `head`, in order. */
export async function lineHunks(
  mirror: string,
  at: { base: string; head: string; oldPath: string; newPath: string },
): Promise<LineHunk[]> {
  const out = await runGit(
    [
      "--literal-pathspecs",
      "diff",
      "-U0",
      "--no-color",
      "--no-ext-diff",
      "--find-renames",
      "--text",
      at.base,
      at.head,
      "--",
      ...new Set([at.oldPath, at.newPath]),
    ],
    { cwd: mirror, ...GIT_LIMITS },
  );
  const hunks: LineHunk[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (!header) continue;
    hunks.push({
      oldStart: Number(header[1]),
      oldCount: header[2] === undefined ? 1 : Number(header[2]),
      newStart: Number(header[3]),
      newCount: header[4] === undefined ? 1 : Number(header[4]),
    });
  }
  return hunks;
}
