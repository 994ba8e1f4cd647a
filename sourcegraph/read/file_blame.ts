/**
 * Blame of one file at one commit: the lines a read of the same range would
 * return (the same defaults, caps and errors), each with the commit that
 * last changed it, honouring the repository's `.git-blame-ignore-revs` at
 * that commit when the caller may see it. Symlinks and submodules are not
 * blamed (their target is another path).
 *
 * @module
 */

import { type BlameCommit, blameLines, ignoredRevisions } from "../git/file_blame.ts";
import type { MirrorObjects } from "../git/mirror_objects.ts";
import type { GitAnswerCache } from "../git/answer_cache.ts";
import { SourcegraphError } from "../errors.ts";
import { type LineRange, type ReadBudget, readFile } from "./file_read.ts";

/** The file of revisions to ignore, at the repository's root. */
export const IGNORE_REVS_PATH = ".git-blame-ignore-revs";
/** Most bytes of an ignore-revs file honoured (a larger one is not used). */
export const IGNORE_REVS_MAX_BYTES = 64 * 1024;

/** One blamed line and its text. */
export interface BlamedLine {
  line: number;
  commit: string;
  /** Its path in `commit` (another path across a rename). */
  originalPath: string;
  text: string;
}

/** How the repository's ignore-revs file was used. */
export interface IgnoreRevs {
  path: string;
  /** The full SHAs it lists (each ignored), or null when it is over the size cap. */
  revisions: number | null;
  /** Lines that are not a full SHA (skipped). */
  skipped: number;
}

/** A blame of lines of one file at one commit, and how to continue. */
export interface FileBlame {
  path: string;
  commit: string;
  ignoreRevs: IgnoreRevs | null;
  lines: BlamedLine[];
  commits: Record<string, BlameCommit>;
  truncated: boolean;
  hasMore: boolean;
  nextStartLine: number | null;
}

/**
 * Blames `range` of `path` at `commit` within `caps` (a read's caps);
 * `ignoreRevs` says whether the repository's ignore-revs file may be used.
 */
export async function blameFile(
  objects: MirrorObjects,
  request: {
    commit: string;
    path: string;
    range: LineRange;
    caps: ReadBudget;
    ignoreRevs: boolean;
    /** Keeps Git's answers (a repeated blame runs no Git). */
    cache?: GitAnswerCache;
  },
): Promise<FileBlame> {
  const { commit, path } = request;
  const entry = await objects.lookup(commit, path);
  if (entry?.kind === "symlink" || entry?.kind === "submodule") {
    throw new SourcegraphError("NOT_A_FILE", `the path is a ${entry.kind}`, {
      hint: "Blame the file it leads to.",
    });
  }
  const { file } = await readFile(objects, {
    commit,
    path,
    range: request.range,
    caps: request.caps,
  });
  const ignored = request.ignoreRevs ? await ignoreRevsAt(objects, commit) : null;
  const texts = file.content.length === 0 ? [] : file.content.slice(0, -1).split("\n");
  const blame = {
    path,
    commit,
    ignoreRevs: ignored?.used ?? null,
    truncated: file.truncated,
    hasMore: file.hasMore === true,
    nextStartLine: file.nextStartLine,
  };
  if (texts.length === 0) return { ...blame, lines: [], commits: {} };
  const blamed = await blameLines(objects.path, {
    commit,
    path,
    start: file.returnedStartLine,
    end: file.returnedEndLine,
    ignoreRevs: ignored?.revisions ?? [],
    cache: request.cache,
  });
  const lines = blamed.lines.map((line) => ({
    line: line.line,
    commit: line.commit,
    originalPath: line.originalPath,
    text: texts[line.line - file.returnedStartLine] ?? "",
  }));
  return { ...blame, lines, commits: blamed.commits };
}

// The ignore-revs file at `commit` and the revisions it lists, or null when there is none.
async function ignoreRevsAt(
  objects: MirrorObjects,
  commit: string,
): Promise<{ used: IgnoreRevs; revisions: string[] } | null> {
  const entry = await objects.lookup(commit, IGNORE_REVS_PATH);
  if (entry?.kind !== "file") return null;
  const bytes = await objects.blob(entry.oid, IGNORE_REVS_MAX_BYTES);
  if (bytes === null) {
    return { used: { path: IGNORE_REVS_PATH, revisions: null, skipped: 0 }, revisions: [] };
  }
  const { revisions, skipped } = ignoredRevisions(new TextDecoder().decode(bytes));
  return { used: { path: IGNORE_REVS_PATH, revisions: revisions.length, skipped }, revisions };
}
