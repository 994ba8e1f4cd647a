/**
 * One page of a file for people: up to 5,000 lines from a start line in one
 * read, what kind of entry the path is, and why content is withheld (binary,
 * too large, not UTF-8, a line over 256 KiB) as a code instead of an error,
 * so a page can say so beside the file's name.
 *
 * @module
 */

import type { MirrorObjects } from "../git/mirror_objects.ts";
import { SourcegraphError } from "../errors.ts";
import { type FileRead, READ_MAX_BYTES, readFile } from "./file_read.ts";

/** Most lines one page shows (the rest is paged from `nextStartLine`). */
export const PAGE_MAX_LINES = 5_000;
/** Most bytes one page shows: ten reads' worth. */
export const PAGE_MAX_BYTES = 10 * READ_MAX_BYTES;

/** Why a file's content is not shown. */
export type WithheldReason =
  | "BINARY_FILE"
  | "READ_SCAN_LIMIT"
  | "UNSUPPORTED_TEXT_ENCODING"
  | "FILE_LINE_TOO_LARGE";

const WITHHELD = new Set<string>([
  "BINARY_FILE",
  "READ_SCAN_LIMIT",
  "UNSUPPORTED_TEXT_ENCODING",
  "FILE_LINE_TOO_LARGE",
]);

/** One page of a file at a commit. */
export interface FilePage {
  commit: string;
  /** The requested path. */
  path: string;
  /** The path read after following symlinks, when it differs. */
  target: string | null;
  kind: FileRead["kind"];
  /** The id of the blob read (after following symlinks); null when withheld. */
  blob: string | null;
  /** The page's lines, numbered from `firstLine`; empty when withheld or not a file. */
  lines: string[];
  firstLine: number;
  nextStartLine: number | null;
  isLfsPointer: boolean;
  /** Why a symlink cannot be followed. */
  followError: string | null;
  withheld: WithheldReason | null;
}

/**
 * Reads the page of `path` at `commit` that starts at `startLine`.
 *
 * Throws what a read throws except the withheld reasons (FILE_NOT_FOUND,
 * NOT_A_FILE, LINE_RANGE_NOT_SATISFIABLE…).
 *
 * @example
 * ```ts ignore
 * // Not run with the tests: `tree` reads a repository's Git mirror in a data folder.
 * const page = await readFilePage(tree, { commit, path: "README.md", startLine: 1 });
 * if (page.withheld === null) console.log(page.lines.length, page.nextStartLine);
 * ```
 */
export async function readFilePage(
  tree: MirrorObjects,
  request: { commit: string; path: string; startLine: number },
): Promise<FilePage> {
  const { commit, path, startLine } = request;
  const page: FilePage = {
    commit,
    path,
    target: null,
    kind: "file",
    blob: null,
    lines: [],
    firstLine: startLine,
    nextStartLine: null,
    isLfsPointer: false,
    followError: null,
    withheld: null,
  };
  let file: FileRead;
  try {
    file = (await readFile(tree, {
      commit,
      path,
      range: { start: startLine, end: startLine + PAGE_MAX_LINES - 1 },
      caps: { lines: PAGE_MAX_LINES, bytes: PAGE_MAX_BYTES },
    })).file;
  } catch (error) {
    if (!(error instanceof SourcegraphError) || !WITHHELD.has(error.code)) throw error;
    return { ...page, withheld: error.code as WithheldReason };
  }
  page.kind = file.kind;
  page.blob = file.blobOid;
  page.followError = file.followError;
  if (file.via !== null) page.target = file.path;
  page.isLfsPointer = file.isLfsPointer;
  if (file.kind === "file") {
    if (file.content !== "") page.lines = file.content.slice(0, -1).split("\n");
    page.nextStartLine = file.nextStartLine;
  }
  return page;
}
