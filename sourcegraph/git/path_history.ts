/**
 * The commits of a history in the mirror, newest first, as `git log` lists
 * them: of a commit (no path), of folders (`git log -- folders`), of one file
 * followed across renames (`--follow`, with the file's path in each commit)
 * or of a line range of a file (`-L start,end:path`, with each commit's hunk).
 * Paths come after `--` and are literal (the runner sets
 * GIT_LITERAL_PATHSPECS); the commit is a full SHA; Git runs
 * within a deadline and an output cap, past which the history is
 * HISTORY_TOO_COSTLY.
 *
 * @module
 */

import { GitError, runGit } from "../../shared/git.ts";
import { SourcegraphError } from "../errors.ts";
import { cachedAnswer, type GitAnswerCache } from "./answer_cache.ts";

/** One commit of a history. */
export interface HistoryCommit {
  commit: string;
  authorName: string;
  /** Strict ISO 8601 with the author's offset (`2026-01-01T01:00:00+01:00`). */
  authorDate: string;
  subject: string;
  /** The file's path in this commit (a followed file or a line range), else null. */
  path: string | null;
  /** The hunk's lines as the commit changed them (a line range only), else null. */
  hunk: string[] | null;
}

/** What to list. */
export type HistoryTarget =
  | { kind: "commit" }
  | { kind: "folders"; paths: readonly string[] }
  | { kind: "file"; path: string }
  | { kind: "lines"; path: string; start: number; end: number };

/** The deadline of one history. */
export const HISTORY_TIMEOUT_MS = 20_000;
/** Most bytes of Git's output for one history. */
export const HISTORY_MAX_OUTPUT = 16 * 1024 * 1024;

/** What one history asks: `count` commits of `target` from `commit` after `skip`, its limits. */
export interface HistoryRequest {
  commit: string;
  target: HistoryTarget;
  skip: number;
  count: number;
  limits?: { timeoutMs: number; maxOutputBytes: number };
}

/**
 * Up to `count` commits of `target` from `commit` (a full SHA) in `mirror`,
 * after skipping `skip` of them. A history past its deadline or output cap
 * (`limits`) is HISTORY_TOO_COSTLY.
 */
export async function pathHistory(
  mirror: string,
  request: HistoryRequest & { cache?: GitAnswerCache },
): Promise<HistoryCommit[]> {
  const { commit, target, skip, count } = request;
  const key = ["history", mirror, commit, JSON.stringify(target), skip, count].join("\0");
  return await cachedAnswer(request.cache, key, () => runHistory(mirror, request));
}

async function runHistory(
  mirror: string,
  request: HistoryRequest,
): Promise<HistoryCommit[]> {
  const { commit, target } = request;
  const limits = request.limits ??
    { timeoutMs: HISTORY_TIMEOUT_MS, maxOutputBytes: HISTORY_MAX_OUTPUT };
  const lines = target.kind === "lines";
  const args = [
    "log",
    "--no-color",
    "--no-textconv",
    "--no-ext-diff",
    `--format=${lines ? RECORD : ""}%H%x00${CUT_NAME}%an%x00%aI%x00${CUT_SUBJECT}%s%x00`,
    `--max-count=${request.count}`,
    ...(request.skip > 0 ? [`--skip=${request.skip}`] : []),
    ...(lines ? ["-L", `${target.start},${target.end}:${target.path}`] : ["-z"]),
    ...(target.kind === "file" ? ["--follow", "--name-only"] : []),
    commit,
    "--",
    ...(target.kind === "folders" ? target.paths : []),
    ...(target.kind === "file" ? [target.path] : []),
  ];
  const out = await runGit(args, {
    cwd: mirror,
    timeoutMs: limits.timeoutMs,
    maxStdoutBytes: limits.maxOutputBytes,
    largeHeap: true,
  }).catch((error) => {
    if (error instanceof GitError && ["GIT_TIMEOUT", "GIT_OUTPUT_LIMIT"].includes(error.code)) {
      throw new SourcegraphError("HISTORY_TOO_COSTLY", "this history is too costly to list", {
        hint: "Ask fewer commits (first), a smaller line range, or a narrower path.",
      });
    }
    throw error;
  });
  const text = new TextDecoder().decode(out.stdout);
  return lines ? parseLineLog(text) : parseLog(text);
}

// Git cuts names and subjects (to columns, ending ".."; shorter ones are
// padded with spaces, trimmed here), so a history of 1 MB subjects stays
// far inside the output cap.
const CUT_NAME = "%<(256,trunc)";
const CUT_SUBJECT = "%<(512,trunc)";

// A line-range record starts a line with this byte: a diff line never does
// (each starts with a space, `+`, `-`, `@`, `\` or a header word).
const RECORD = "%x1e";
const SHA = /^[0-9a-f]{40}$/;

// `-z` records: SHA, author, date, subject, then an empty field and, with
// `--name-only`, the path after a newline.
function parseLog(text: string): HistoryCommit[] {
  const fields = text.split("\0");
  const commits: HistoryCommit[] = [];
  let i = 0;
  while (i + 3 < fields.length) {
    const sha = fields[i].replace(/^\n/, "");
    if (!SHA.test(sha)) break;
    const entry: HistoryCommit = {
      commit: sha,
      authorName: fields[i + 1].trimEnd(),
      authorDate: fields[i + 2],
      subject: fields[i + 3].trimEnd(),
      path: null,
      hunk: null,
    };
    i += 5;
    if (fields[i]?.startsWith("\n") && !SHA.test(fields[i].slice(1))) {
      entry.path = fields[i].slice(1);
      i++;
    }
    commits.push(entry);
  }
  return commits;
}

// `-L` records: the header, a blank line, then the diff of the range.
function parseLineLog(text: string): HistoryCommit[] {
  const commits: HistoryCommit[] = [];
  for (const record of `\n${text}`.split("\n\x1e").slice(1)) {
    const [sha, authorName, authorDate, subject, rest = ""] = record.split("\0");
    if (!SHA.test(sha)) continue;
    const diff = rest.split("\n");
    const target = diff.find((line) => line.startsWith("+++ "));
    const hunkStart = diff.findIndex((line) => line.startsWith("@@ "));
    const hunk = hunkStart === -1 ? [] : diff.slice(hunkStart);
    while (hunk.length > 0 && hunk.at(-1) === "") hunk.pop();
    commits.push({
      commit: sha,
      authorName: authorName.trimEnd(),
      authorDate,
      subject: subject.trimEnd(),
      path: target === undefined ? null : diffPath(target.slice(4)),
      hunk,
    });
  }
  return commits;
}

// `b/path` as a diff header names it (C-quoted when it holds unusual bytes).
function diffPath(named: string): string | null {
  if (named === "/dev/null") return null;
  if (named.startsWith('"')) {
    try {
      const bytes = JSON.parse(
        named.replace(
          /\\([0-7]{3})/g,
          (_, octal) => `\\u00${Number.parseInt(octal, 8).toString(16).padStart(2, "0")}`,
        ),
      );
      const raw = Uint8Array.from([...bytes as string].map((c) => c.charCodeAt(0)));
      return new TextDecoder().decode(raw).replace(/^b\//, "");
    } catch {
      return null;
    }
  }
  return named.replace(/^b\//, "");
}
