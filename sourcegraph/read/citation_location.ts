/**
 * Where a cited span of lines is at a later commit: `unchanged` (the same
 * text, at the lines the diff's hunks shift it to, following a rename),
 * `moved` (its exact text, elsewhere in the file), `changed` (a hunk touches
 * it: the lines it became are given) or `deleted` (the file is gone and was
 * not renamed). Both commits are retained versions; nothing is fetched.
 *
 * @module
 */

import { splitLines } from "../../shared/text.ts";
import { type LineHunk, lineHunks, pathFate } from "../git/span_changes.ts";
import { type MirrorObjects, READ_SCAN_LIMIT } from "../git/mirror_objects.ts";
import { SourcegraphError } from "../errors.ts";
import { READ_MAX_LINES } from "./file_read.ts";
import { searchableText } from "../search/searchable_text.ts";

/** A cited span's fate at the later commit. */
export interface CitationLocation {
  status: "unchanged" | "moved" | "changed" | "deleted";
  /** The file's path at the later commit (null when deleted). */
  path: string | null;
  /** The span's lines at the later commit (null when deleted). */
  startLine: number | null;
  endLine: number | null;
  /** Those lines' text, numbered. */
  lines: { number: number; text: string }[];
}

/**
 * Where lines `span` of `path` at `cited` are at `later`; with `within`
 * (folders), a rename is followed only to a path under them.
 */
export async function locateCitation(
  objects: MirrorObjects,
  at: {
    cited: string;
    later: string;
    path: string;
    span: { start: number; end: number };
    within?: readonly string[];
  },
): Promise<CitationLocation> {
  const { span } = at;
  if (span.end - span.start + 1 > READ_MAX_LINES) {
    throw new SourcegraphError(
      "INVALID_LINE_RANGE",
      `a citation spans at most ${READ_MAX_LINES} lines`,
    );
  }
  const before = await fileLines(objects, at.cited, at.path);
  if (span.end > before.length) {
    throw new SourcegraphError(
      "LINE_RANGE_NOT_SATISFIABLE",
      `the file has ${before.length} lines at the cited commit`,
    );
  }
  const cited = before.slice(span.start - 1, span.end);
  const fate = at.cited === at.later
    ? { fate: "kept" as const, path: at.path }
    : await pathFate(objects.path, {
      base: at.cited,
      head: at.later,
      path: at.path,
      pathspecs: at.within,
    });
  if (fate.fate === "deleted") {
    return { status: "deleted", path: null, startLine: null, endLine: null, lines: [] };
  }
  const after = await fileLines(objects, at.later, fate.path);
  const hunks = at.cited === at.later ? [] : await lineHunks(objects.path, {
    base: at.cited,
    head: at.later,
    oldPath: at.path,
    newPath: fate.path,
  });
  const mapped = mapSpan(span, hunks);
  const located = (status: CitationLocation["status"], start: number, end: number) => ({
    status,
    path: fate.path,
    startLine: start,
    endLine: end,
    lines: after.slice(start - 1, end).map((text, i) => ({ number: start + i, text })),
  });
  if (!mapped.touched && sameLines(after, mapped.start, cited)) {
    return located("unchanged", mapped.start, mapped.end);
  }
  const moved = nearestCopy(after, cited, mapped.start);
  if (moved !== null) return located("moved", moved, moved + cited.length - 1);
  return located("changed", mapped.start, Math.max(mapped.start, mapped.end));
}

/**
 * Lines `span` through `hunks` (sorted, as `git diff -U0` gives them): the
 * shifted span, and whether a hunk changes lines inside it (then the span
 * is the lines its first and last lines became).
 */
export function mapSpan(
  span: { start: number; end: number },
  hunks: readonly LineHunk[],
): { start: number; end: number; touched: boolean } {
  const touched = hunks.some((hunk) =>
    hunk.oldCount > 0
      ? hunk.oldStart <= span.end && hunk.oldStart + hunk.oldCount - 1 >= span.start
      : hunk.oldStart >= span.start && hunk.oldStart < span.end
  );
  return {
    start: mapLine(span.start, hunks, "start"),
    end: mapLine(span.end, hunks, "end"),
    touched,
  };
}

// Where old line `line` is in the new file: shifted by the hunks before it,
// or, inside a replaced run, the first (start) or last (end) line it became.
function mapLine(line: number, hunks: readonly LineHunk[], side: "start" | "end"): number {
  let shift = 0;
  for (const hunk of hunks) {
    const lastOld = hunk.oldStart + hunk.oldCount - 1;
    if (hunk.oldCount === 0 ? hunk.oldStart < line : lastOld < line) {
      shift += hunk.newCount - hunk.oldCount;
      continue;
    }
    if (hunk.oldCount > 0 && hunk.oldStart <= line) {
      if (hunk.newCount === 0) return Math.max(1, hunk.newStart + (side === "start" ? 1 : 0));
      return side === "start" ? hunk.newStart : hunk.newStart + hunk.newCount - 1;
    }
    break;
  }
  return line + shift;
}

function sameLines(lines: readonly string[], start: number, wanted: readonly string[]): boolean {
  return wanted.every((text, i) => lines[start - 1 + i] === text);
}

// The start of the copy of `wanted` in `lines` nearest to `near`, or null.
function nearestCopy(
  lines: readonly string[],
  wanted: readonly string[],
  near: number,
): number | null {
  let best: number | null = null;
  for (let start = 1; start + wanted.length - 1 <= lines.length; start++) {
    if (lines[start - 1] !== wanted[0] || !sameLines(lines, start, wanted)) continue;
    if (best === null || Math.abs(start - near) < Math.abs(best - near)) best = start;
  }
  return best;
}

async function fileLines(objects: MirrorObjects, commit: string, path: string): Promise<string[]> {
  const entry = await objects.lookup(commit, path);
  if (!entry) throw new SourcegraphError("FILE_NOT_FOUND", "no such file at this commit");
  if (entry.kind !== "file") throw new SourcegraphError("NOT_A_FILE", "the path is not a file");
  const bytes = await objects.blob(entry.oid, READ_SCAN_LIMIT);
  if (bytes === null) {
    throw new SourcegraphError(
      "READ_SCAN_LIMIT",
      "the file is larger than the 8 MiB read scan limit",
    );
  }
  const text = searchableText(bytes);
  if (text === null) throw new SourcegraphError("BINARY_FILE", "the file is not UTF-8 text");
  return splitLines(text);
}
