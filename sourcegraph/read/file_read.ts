/**
 * Line-exact reads of one file at one commit: default ranges, the 500-line
 * and 256 KiB caps (and a shared read_many budget), truncation and
 * continuation fields, symlinks followed inside the repository, and the
 * exact error codes. The result is structured; rendering is separate (the
 * plugin host enriches structured reads before they are rendered).
 *
 * @module
 */

import { posix } from "node:path";
import { type EntryKind, type MirrorObjects, READ_SCAN_LIMIT } from "../git/mirror_objects.ts";
import { SourcegraphError } from "../errors.ts";
import { isUtf8 } from "node:buffer";
import { countUtf8Lines, isBinary, utf8LinesBetween } from "../../shared/text.ts";

/** Most lines one read returns. */
export const READ_MAX_LINES = 500;
/** Most bytes one read returns. */
export const READ_MAX_BYTES = 256 * 1024;
const MAX_PATH_BYTES = 4096;
const MAX_SYMLINK_HOPS = 8;

/** One file read at one commit: what was returned and how to continue. */
export interface FileRead {
  path: string;
  blobOid: string;
  commit: string;
  kind: Exclude<EntryKind, "directory">;
  encoding: string;
  content: string;
  returnedStartLine: number;
  returnedEndLine: number;
  nextStartLine: number | null;
  truncated: boolean;
  hasMore: boolean | null;
  isLfsPointer: boolean;
  via: string | null;
  followError: string | null;
}

/** A requested line range after defaults. */
export interface LineRange {
  start: number;
  end: number;
}

/** Applies the default range: none -> 1..500; S -> S..S+499; E -> 1..E. */
export function requestedRange(start?: number, end?: number): LineRange {
  const from = start ?? 1;
  const to = end ?? (start === undefined ? READ_MAX_LINES : from + READ_MAX_LINES - 1);
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 1 || to < from) {
    throw new SourcegraphError(
      "INVALID_LINE_RANGE",
      "start_line must be at least 1 and end_line at least start_line",
    );
  }
  return { start: from, end: to };
}

/** Throws INVALID_PATH unless `path` is a clean repository-relative path. */
export function validatePath(path: string): void {
  const bytes = new TextEncoder().encode(path).length;
  if (
    path.length === 0 || bytes > MAX_PATH_BYTES || path.startsWith("/") ||
    /\p{Cc}/u.test(path) ||
    path.split("/").some((part) => part === "" || part === "." || part === "..")
  ) {
    throw new SourcegraphError(
      "INVALID_PATH",
      "the path must be relative, clean and at most 4096 bytes",
    );
  }
}

/** A remaining budget (read_many shares one across items). */
export interface ReadBudget {
  lines: number;
  bytes: number;
}

/** A read and whether the shared budget (rather than the per-read caps) cut it short. */
export interface BudgetedRead {
  file: FileRead;
  limitedByBudget: boolean;
  /** The file's bytes, checked to be UTF-8 text (a read of a file only). */
  bytes?: Uint8Array;
}

/** What to read: `range` of `path` at `commit`. */
export interface FileReadRequest {
  commit: string;
  path: string;
  range: LineRange;
  /**
   * A budget shared with other reads (read_many), decremented by what this
   * read returns; without one only the per-read caps apply.
   */
  budget?: ReadBudget;
  /**
   * The per-read caps; default 500 lines and 256 KiB (the tools' caps). A
   * line over 256 KiB is refused whatever the caps.
   */
  caps?: ReadBudget;
  /** How the file's bytes are read (default: from `tree`; null when over `maxBytes`). */
  blob?: (oid: string, maxBytes: number) => Promise<Uint8Array | null>;
}

/** Reads one file within the per-read caps and the request's budget. */
export async function readFile(
  tree: MirrorObjects,
  request: FileReadRequest,
): Promise<BudgetedRead> {
  const { commit, path, range } = request;
  validatePath(path);
  const found = await followLinks(tree, { commit, path });
  if ("file" in found) return { file: found.file, limitedByBudget: false };
  const { entry, canonical, via } = found;
  if (entry.kind === "submodule") {
    const file = { ...emptyResult(canonical, entry.oid, commit, "submodule"), via: via };
    return { file: { ...file, hasMore: false }, limitedByBudget: false };
  }
  const blob = request.blob ?? ((oid, maxBytes) => tree.blob(oid, maxBytes));
  const bytes = await readTextBytes(blob, entry.oid);
  // Only the lines asked for are decoded: a line of a large file is a common read (decoding
  // lib.dom.d.ts, 2.3 MB, took 16 to 40 ms of processor time for each one-line read of it).
  const total = countUtf8Lines(bytes);
  const result = emptyResult(canonical, entry.oid, commit, "file");
  result.via = via;
  result.isLfsPointer = startsWith(bytes, LFS_POINTER);
  if (total === 0 && range.start === 1) {
    result.hasMore = false;
    return { file: result, limitedByBudget: false, bytes };
  }
  if (range.start > total) {
    throw new SourcegraphError(
      "LINE_RANGE_NOT_SATISFIABLE",
      `start_line is past the last line (${total})`,
    );
  }
  const caps = request.caps ?? { lines: READ_MAX_LINES, bytes: READ_MAX_BYTES };
  const budget = request.budget ?? { ...caps };
  const capEnd = Math.min(range.end, range.start + caps.lines - 1, total);
  const lines = utf8LinesBetween(bytes, range.start, capEnd);
  const taken = takeLines(lines, { start: range.start, end: capEnd, caps, budget });
  budget.lines -= taken.lines.length;
  budget.bytes -= taken.bytes;
  const end = range.start + taken.lines.length - 1;
  result.content = taken.lines.join("\n") + (taken.lines.length > 0 ? "\n" : "");
  result.returnedStartLine = taken.lines.length > 0 ? range.start : 0;
  result.returnedEndLine = taken.lines.length > 0 ? end : 0;
  result.hasMore = end < total;
  result.truncated = end < Math.min(range.end, total);
  result.nextStartLine = result.hasMore ? end + 1 : null;
  return { file: result, limitedByBudget: taken.limitedByBudget && result.truncated, bytes };
}

// The entry `path` names after following symlinks inside the repository, or
// the symlink result when a link leaves it or loops.
async function followLinks(
  tree: MirrorObjects,
  at: { commit: string; path: string },
): Promise<
  | { file: FileRead }
  | { entry: { kind: "file" | "submodule"; oid: string }; canonical: string; via: string | null }
> {
  const { commit, path } = at;
  let canonical = path;
  let via: string | null = null;
  let entry = await tree.lookup(commit, path);
  for (let hop = 0; entry?.kind === "symlink"; hop++) {
    const target = await tree.blob(entry.oid, MAX_PATH_BYTES);
    const resolved = target === null
      ? null
      : resolveLink(canonical, new TextDecoder().decode(target));
    if (hop === MAX_SYMLINK_HOPS || resolved === null) {
      return {
        file: symlinkResult(path, entry.oid, commit, "the symlink leaves the repository or loops"),
      };
    }
    via ??= path;
    canonical = resolved;
    entry = await tree.lookup(commit, canonical);
  }
  if (!entry) throw new SourcegraphError("FILE_NOT_FOUND", "no such file at this commit");
  if (entry.kind === "directory") {
    throw new SourcegraphError("NOT_A_FILE", "the path is a directory");
  }
  return { entry: { kind: entry.kind, oid: entry.oid }, canonical, via };
}

// A blob's bytes, checked to be text: refused when over the scan limit, binary or not UTF-8.
async function readTextBytes(
  blob: (oid: string, maxBytes: number) => Promise<Uint8Array | null>,
  oid: string,
): Promise<Uint8Array> {
  const bytes = await blob(oid, READ_SCAN_LIMIT);
  if (bytes === null) {
    throw new SourcegraphError(
      "READ_SCAN_LIMIT",
      "the file is larger than the 8 MiB read scan limit",
    );
  }
  if (isBinary(bytes)) throw new SourcegraphError("BINARY_FILE", "the file is binary");
  if (!isUtf8(bytes)) {
    throw new SourcegraphError("UNSUPPORTED_TEXT_ENCODING", "the file is not UTF-8 text");
  }
  return bytes;
}

const LFS_POINTER = new TextEncoder().encode("version https://git-lfs.github.com/spec/v1\n");

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

// Lines `start..end` (1-based, inclusive) while they fit the caps and the
// budget; a first line over 256 KiB is refused.
// `lines`: the file's lines from `at.start` on.
function takeLines(
  lines: readonly string[],
  at: { start: number; end: number; caps: ReadBudget; budget: ReadBudget },
): { lines: string[]; bytes: number; limitedByBudget: boolean } {
  const lastAllowed = Math.min(at.end, at.start + at.budget.lines - 1);
  let limitedByBudget = lastAllowed < at.end;
  const taken: string[] = [];
  let used = 0;
  const encoder = new TextEncoder();
  for (let line = at.start; line <= lastAllowed; line++) {
    const size = encoder.encode(lines[line - at.start]).length + 1;
    if (size > READ_MAX_BYTES) {
      if (taken.length === 0) {
        throw new SourcegraphError("FILE_LINE_TOO_LARGE", `line ${line} is larger than 256 KiB`);
      }
      break;
    }
    if (used + size > at.caps.bytes) break;
    if (used + size > at.budget.bytes) {
      limitedByBudget = true;
      break;
    }
    taken.push(lines[line - at.start]);
    used += size;
  }
  return { lines: taken, bytes: used, limitedByBudget };
}

function emptyResult(
  path: string,
  oid: string,
  commit: string,
  kind: FileRead["kind"],
): FileRead {
  return {
    path: path,
    blobOid: oid,
    commit: commit,
    kind: kind,
    encoding: "utf-8",
    content: "",
    returnedStartLine: 0,
    returnedEndLine: 0,
    nextStartLine: null,
    truncated: false,
    hasMore: null,
    isLfsPointer: false,
    via: null,
    followError: null,
  };
}

function symlinkResult(path: string, oid: string, commit: string, reason: string): FileRead {
  return { ...emptyResult(path, oid, commit, "symlink"), hasMore: false, followError: reason };
}

// Resolves a symlink target against its folder; null when it leaves the repository.
function resolveLink(linkPath: string, target: string): string | null {
  if (target.startsWith("/") || target.length === 0) return null;
  const joined = posix.normalize(posix.join(posix.dirname(linkPath), target));
  if (joined === ".." || joined.startsWith("../") || joined === "." || joined.startsWith("/")) {
    return null;
  }
  return joined;
}
