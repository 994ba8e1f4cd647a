/**
 * Who last changed each line of a file at a commit, as `git blame
 * --porcelain` says in the mirror (renames followed as Git does by
 * default), within a deadline and an output cap. Revisions to ignore go to
 * Git through its stdin (`--ignore-revs-file /dev/stdin`), rebuilt from full
 * SHAs only, so no file is written and no line of a repository's list can
 * make Git fail.
 *
 * @module
 */

import { GitError, runGit } from "../../shared/git.ts";
import { SourcegraphError } from "../errors.ts";
import { cachedAnswer, type GitAnswerCache } from "./answer_cache.ts";

/** The commit a blamed line comes from, as Git reports it. */
export interface BlameCommit {
  authorName: string;
  /** Seconds since the epoch. */
  authorTime: number;
  /** The author's offset, `+HHMM` or `-HHMM`. */
  authorTz: string;
  /** The first line of its message. */
  subject: string;
}

/** One blamed line: the commit that last changed it and where the line was then. */
export interface BlameLine {
  /** The line's number at the blamed commit. */
  line: number;
  commit: string;
  /** Its path and line number in `commit` (the path differs across a rename). */
  originalPath: string;
  originalLine: number;
}

/** What `git blame` said for a range of lines. */
export interface BlameLines {
  lines: BlameLine[];
  commits: Record<string, BlameCommit>;
}

/** The deadline of one blame. */
export const BLAME_TIMEOUT_MS = 30_000;
// Up to 500 lines of up to 256 KiB each, plus each commit's headers.
const BLAME_MAX_OUTPUT = 16 * 1024 * 1024;

/** What one blame asks: lines `start..end` of `path` at `commit`, the revisions to ignore, its limits. */
export interface BlameRequest {
  commit: string;
  path: string;
  start: number;
  end: number;
  ignoreRevs: readonly string[];
  limits?: { timeoutMs: number; maxOutputBytes: number };
}

/**
 * Blames lines `start..end` of `path` at `commit` (a full SHA) in `mirror`,
 * ignoring the commits `ignoreRevs` names (full SHAs). A blame past its
 * deadline or output cap (`limits`, default 30 s and 16 MiB) is
 * BLAME_TOO_COSTLY. With a `cache`, an answer is kept by mirror, commit,
 * path, range and ignored revisions, and a repeated blame runs no Git.
 */
export async function blameLines(
  mirror: string,
  request: BlameRequest & { cache?: GitAnswerCache },
): Promise<BlameLines> {
  const { commit, path, start, end, ignoreRevs } = request;
  const key = ["blame", mirror, commit, path, start, end, ignoreRevs.join(",")].join("\0");
  return await cachedAnswer(request.cache, key, () => runBlame(mirror, request));
}

async function runBlame(
  mirror: string,
  request: BlameRequest,
): Promise<BlameLines> {
  const { commit, path, start, end, ignoreRevs } = request;
  const limits = request.limits ??
    { timeoutMs: BLAME_TIMEOUT_MS, maxOutputBytes: BLAME_MAX_OUTPUT };
  const ignoring = ignoreRevs.length > 0;
  const args = [
    "blame",
    "--porcelain",
    "--no-textconv",
    "-L",
    `${start},${end}`,
    ...(ignoring ? ["--ignore-revs-file", "/dev/stdin"] : []),
    commit,
    "--",
    path,
  ];
  const out = await runGit(args, {
    cwd: mirror,
    timeoutMs: limits.timeoutMs,
    maxStdoutBytes: limits.maxOutputBytes,
    largeHeap: true,
    stdin: ignoring ? new TextEncoder().encode(ignoreRevs.join("\n") + "\n") : undefined,
  }).catch((error) => {
    if (error instanceof GitError && ["GIT_TIMEOUT", "GIT_OUTPUT_LIMIT"].includes(error.code)) {
      throw new SourcegraphError("BLAME_TOO_COSTLY", "this blame is too costly to compute", {
        hint: "Blame fewer lines (start_line, end_line).",
      });
    }
    throw error;
  });
  return parsePorcelain(new TextDecoder().decode(out.stdout));
}

const FULL_SHA = /^[0-9a-f]{40}$/;

/**
 * The revisions a `.git-blame-ignore-revs` file lists, as Git reads one
 * (a `#` starts a comment; blank lines are skipped), keeping full SHAs only:
 * any other line is skipped rather than failing the blame.
 */
export function ignoredRevisions(text: string): { revisions: string[]; skipped: number } {
  const revisions = new Set<string>();
  let skipped = 0;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*/, "").trim().toLowerCase();
    if (line === "") continue;
    if (FULL_SHA.test(line)) revisions.add(line);
    else skipped++;
  }
  return { revisions: [...revisions], skipped };
}

// Porcelain: a group header `<sha> <original> <final> [<count>]`, the
// commit's headers the first time it appears (and `filename` on every
// group), then each line's text after a tab.
function parsePorcelain(text: string): BlameLines {
  const lines: BlameLine[] = [];
  const commits: Record<string, BlameCommit> = {};
  const pathOf = new Map<string, string>();
  let current: { commit: string; originalLine: number; line: number } | null = null;
  for (const row of text.split("\n")) {
    if (row.startsWith("\t")) {
      if (current === null) continue;
      lines.push({ ...current, originalPath: pathOf.get(current.commit) ?? "" });
      current = null;
      continue;
    }
    const header = /^([0-9a-f]{40}) (\d+) (\d+)(?: \d+)?$/.exec(row);
    if (header) {
      current = { commit: header[1], originalLine: Number(header[2]), line: Number(header[3]) };
      commits[current.commit] ??= { authorName: "", authorTime: 0, authorTz: "+0000", subject: "" };
      continue;
    }
    if (current === null) continue;
    const space = row.indexOf(" ");
    const key = space === -1 ? row : row.slice(0, space);
    const value = space === -1 ? "" : row.slice(space + 1);
    const commit = commits[current.commit];
    if (key === "author") commit.authorName = value;
    else if (key === "author-time") commit.authorTime = Number(value);
    else if (key === "author-tz") commit.authorTz = value;
    else if (key === "summary") commit.subject = value;
    else if (key === "filename") pathOf.set(current.commit, value);
  }
  return { lines, commits };
}
