/**
 * Which of some commits (each against its first parent, as `git log` shows
 * them) change what is asked, in their order:
 *
 * - `pickaxeCommits`: where the number of occurrences of a literal changes
 *   (`git log -S`, a fixed string, so Git's own engine is safe to use);
 * - `changedLineCommits`: where an added or removed line matches a test
 *   made here (`git log -G` with RE2): the patches (`-U0`) are streamed and
 *   read line by line, at most `PATCH_MAX_BYTES` of one commit and
 *   `LINE_MAX_BYTES` of one line, so memory stays bounded on any diff; a
 *   commit whose patch is longer is reported `capped` (Git is ended and
 *   started again after it).
 *
 * Both take the commits on stdin (`--no-walk=unsorted --stdin`), paths
 * after `--` (literal), and stop at a deadline, saying how far they got.
 *
 * @module
 */

import { streamGit } from "./git_stream.ts";

/** Most bytes of one commit's patch read. */
export const PATCH_MAX_BYTES = 8 * 1024 * 1024;
/** Most bytes of one patch line tested. */
export const LINE_MAX_BYTES = 64 * 1024;

/** What checking some commits found: an outcome for each commit reached, in order. */
export interface PatchCheck {
  /** The outcome of each commit checked, in the order given. */
  outcomes: Map<string, "match" | "none" | "capped">;
  /** The deadline ended the check before every commit was reached. */
  timedOut: boolean;
}

const DIFF_OPTIONS = ["--no-color", "--no-textconv", "--no-ext-diff"];

/**
 * The commits of `commits` (full SHAs, in the order given) whose diff
 * changes the number of occurrences of `literal` under `paths` (all when
 * empty). A commit past the last match is known checked only once Git ends.
 */
export async function pickaxeCommits(
  mirror: string,
  request: {
    commits: readonly string[];
    literal: string;
    paths: readonly string[];
    timeoutMs: number;
  },
): Promise<PatchCheck> {
  const matched = new Set<string>();
  let pending = "";
  const end = await streamGit(
    [
      "log",
      "--no-walk=unsorted",
      "--stdin",
      "--format=%H",
      ...DIFF_OPTIONS,
      `-S${request.literal}`,
      "--",
      ...request.paths,
    ],
    {
      cwd: mirror,
      timeoutMs: request.timeoutMs,
      stdin: new TextEncoder().encode(request.commits.map((sha) => `${sha}\n`).join("")),
      read: (chunk) => {
        const lines = (pending + new TextDecoder().decode(chunk)).split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) if (line !== "") matched.add(line);
        return true;
      },
    },
  );
  const outcomes = new Map<string, "match" | "none" | "capped">();
  // Without a deadline every commit was checked; with one, those up to the last match.
  const reached = end.timedOut
    ? request.commits.findLastIndex((sha) => matched.has(sha)) + 1
    : request.commits.length;
  for (const sha of request.commits.slice(0, reached)) {
    outcomes.set(sha, matched.has(sha) ? "match" : "none");
  }
  return { outcomes, timedOut: end.timedOut };
}

/**
 * The outcome for each of `commits` (full SHAs, in order) of testing the
 * added and removed lines of its patch under `paths` with `test`; a patch
 * past `maxPatchBytes` is `capped` unless a line before the cap matched
 * (either way the rest of it is not read).
 */
export async function changedLineCommits(
  mirror: string,
  request: {
    commits: readonly string[];
    test: (line: string) => boolean;
    paths: readonly string[];
    timeoutMs: number;
    maxPatchBytes?: number;
  },
): Promise<PatchCheck> {
  const outcomes = new Map<string, "match" | "none" | "capped">();
  const started = performance.now();
  let left = [...request.commits];
  while (left.length > 0) {
    const scanner = new PatchScanner(request.test, request.maxPatchBytes ?? PATCH_MAX_BYTES);
    const end = await streamGit(
      [
        "log",
        "--no-walk=unsorted",
        "--stdin",
        "--format=%x1e%H",
        "-p",
        "-U0",
        ...DIFF_OPTIONS,
        "--",
        ...request.paths,
      ],
      {
        cwd: mirror,
        timeoutMs: request.timeoutMs - (performance.now() - started),
        stdin: new TextEncoder().encode(left.map((sha) => `${sha}\n`).join("")),
        read: (chunk) => scanner.push(chunk),
      },
    );
    const done = scanner.finish(!end.stopped && !end.timedOut);
    for (const [sha, outcome] of done) outcomes.set(sha, outcome);
    if (end.timedOut) return { outcomes, timedOut: true };
    if (!end.stopped) {
      // Git went through them all: one it showed nothing of has no patch under the paths.
      for (const sha of left) if (!outcomes.has(sha)) outcomes.set(sha, "none");
      break;
    }
    // Ended at a capped patch: the commits after it go to a new Git process.
    if (done.size === 0) break;
    left = left.filter((sha) => !outcomes.has(sha));
  }
  return { outcomes, timedOut: false };
}

const RECORD = 0x1e;
const NEWLINE = 0x0a;
const PLUS = 0x2b;
const MINUS = 0x2d;
const SPACE = 0x20;
const decoder = new TextDecoder();

/**
 * Reads a stream of `--format=%x1e%H -p -U0` output, testing the added and
 * removed lines of each hunk (headers are told from them by the hunks' line
 * counts) and keeping at most a line's and a patch's bound of bytes.
 */
export class PatchScanner {
  #test: (line: string) => boolean;
  #maxPatchBytes: number;
  #outcomes = new Map<string, "match" | "none" | "capped">();
  #current: string | null = null;
  #matched = false;
  #patchBytes = 0;
  #line: Uint8Array[] = [];
  #lineBytes = 0;
  #oldLeft = 0;
  #newLeft = 0;
  /** Bytes held at most at once (a line's bound), for tests of the bound. */
  maxHeld = 0;

  /** Tests lines with `test`, reading at most `maxPatchBytes` of one commit's patch. */
  constructor(test: (line: string) => boolean, maxPatchBytes: number) {
    this.#test = test;
    this.#maxPatchBytes = maxPatchBytes;
  }

  /** Reads a chunk; false once a patch passed its bound (the stream should end). */
  push(chunk: Uint8Array): boolean {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (this.#current !== null) {
        this.#patchBytes += end - start + (newline === -1 ? 0 : 1);
        if (this.#patchBytes > this.#maxPatchBytes) {
          this.#outcomes.set(this.#current, this.#matched ? "match" : "capped");
          this.#current = null;
          return false;
        }
      }
      this.#keep(chunk.subarray(start, end));
      if (newline === -1) break;
      this.#endLine();
      start = newline + 1;
    }
    return true;
  }

  /**
   * The outcomes of the commits read; the last one's only when `complete`
   * (the stream ended on its own, so its patch was read whole).
   */
  finish(complete: boolean): Map<string, "match" | "none" | "capped"> {
    if (complete) {
      if (this.#lineBytes > 0) this.#endLine();
      this.#close();
    } else if (this.#current !== null && this.#matched) this.#close();
    return this.#outcomes;
  }

  #keep(bytes: Uint8Array): void {
    const room = LINE_MAX_BYTES - this.#lineBytes;
    if (room <= 0 || bytes.length === 0) return;
    const kept = bytes.length > room ? bytes.subarray(0, room) : bytes;
    this.#line.push(kept.slice());
    this.#lineBytes += kept.length;
    this.maxHeld = Math.max(this.maxHeld, this.#lineBytes);
  }

  #endLine(): void {
    const line = this.#line.length === 1 ? this.#line[0] : joinParts(this.#line, this.#lineBytes);
    this.#line = [];
    this.#lineBytes = 0;
    this.#readLine(line);
  }

  #readLine(line: Uint8Array): void {
    const first = line[0];
    if (first === RECORD) {
      this.#close();
      this.#current = decoder.decode(line.subarray(1)).trim();
      this.#matched = false;
      this.#patchBytes = 0;
      this.#oldLeft = this.#newLeft = 0;
      return;
    }
    if (this.#current === null) return;
    if (this.#oldLeft > 0 || this.#newLeft > 0) {
      if (first === MINUS) this.#oldLeft--;
      else if (first === PLUS) this.#newLeft--;
      else if (first === SPACE) {
        this.#oldLeft--;
        this.#newLeft--;
      }
      if ((first === MINUS || first === PLUS) && !this.#matched) {
        if (this.#test(decoder.decode(line.subarray(1)))) this.#matched = true;
      }
      return;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(
      decoder.decode(line.subarray(0, 80)),
    );
    if (hunk !== null) {
      this.#oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      this.#newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
    }
  }

  #close(): void {
    if (this.#current === null) return;
    this.#outcomes.set(this.#current, this.#matched ? "match" : "none");
    this.#current = null;
  }
}

function joinParts(parts: readonly Uint8Array[], size: number): Uint8Array {
  const joined = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}
