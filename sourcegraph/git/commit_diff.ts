/**
 * One commit as a page shows it: its header (parents, author, date, the
 * whole message) and the patch of each changed file against its first
 * parent. The patch is read from `git diff` as it streams and kept within
 * budgets: a file's hunks past the file's budget are counted but not kept,
 * and once the page's budget is spent Git is stopped and the files left are
 * not shown, so a huge diff (or one huge line) costs no more memory than the
 * budgets. Paths are literal pathspecs; the commits are full SHAs.
 *
 * @module
 */

import {
  gitDeadline,
  GitError,
  gitLeadingArgs,
  killQuietly,
  runGit,
  spawnGit,
} from "../../shared/git.ts";

/** A commit's header. */
export interface CommitHeader {
  commit: string;
  parents: string[];
  authorName: string;
  /** Strict ISO 8601 with the author's offset. */
  authorDate: string;
  committerName: string;
  committerDate: string;
  /** The whole message (null when it is over the cap). */
  message: string | null;
}

/** The budgets of one commit's patch. */
export interface PatchBudgets {
  /** Most bytes of one file's hunks kept. */
  fileBytes: number;
  /** Most lines of one file's hunks kept. */
  fileLines: number;
  /** Most bytes of every file's hunks kept together. */
  pageBytes: number;
  /** The deadline of the whole diff. */
  timeoutMs: number;
}

/** The budgets the commit page uses. */
export const COMMIT_PAGE_BUDGETS: PatchBudgets = {
  fileBytes: 128 * 1024,
  fileLines: 2_000,
  pageBytes: 1024 * 1024,
  timeoutMs: 20_000,
};

/** One changed file's patch, in the order Git lists the files. */
export interface FilePatch {
  /** Its hunks' lines (`@@ …`, then lines starting with " ", "+", "-" or "\\"), when kept. */
  lines: string[] | null;
  binary: boolean;
  /** Why `lines` is null for a text file: over its budget, the page's, or the deadline. */
  omitted: "file_budget" | "page_budget" | "deadline" | null;
  /** Lines added and removed (of the lines read: all unless the page's budget or the deadline cut it). */
  added: number;
  removed: number;
}

const MESSAGE_MAX_BYTES = 256 * 1024;
const HEADER_FORMAT = "%H%x00%P%x00%an%x00%aI%x00%cn%x00%cI%x00";

/** The header of `commit` in `mirror` (a message over 256 KiB is left out). */
export async function commitHeader(mirror: string, commit: string): Promise<CommitHeader> {
  const show = (format: string) =>
    runGit(["show", "-s", "--no-color", `--format=${format}`, commit, "--"], {
      cwd: mirror,
      maxStdoutBytes: MESSAGE_MAX_BYTES + 64 * 1024,
    });
  const whole = await show(`${HEADER_FORMAT}%B`).catch((error) => {
    if (error instanceof GitError && error.code === "GIT_OUTPUT_LIMIT") return null;
    throw error;
  });
  // Over the cap, the header alone: its last field is empty, and the message is null.
  const out = whole ?? await show(HEADER_FORMAT);
  const [sha, parents, authorName, authorDate, committerName, committerDate, read] =
    new TextDecoder().decode(out.stdout).split("\0");
  const message = whole === null ? undefined : read;
  return {
    commit: sha,
    parents: parents === "" ? [] : parents.split(" "),
    authorName,
    authorDate,
    committerName,
    committerDate,
    message: message === undefined ? null : message.replace(/\n+$/, ""),
  };
}

/** Whether `commit` is `version` or one of its ancestors in `mirror`. */
export async function isAncestor(
  mirror: string,
  at: { commit: string; version: string },
): Promise<boolean> {
  const out = await runGit(["merge-base", "--is-ancestor", at.commit, at.version], {
    cwd: mirror,
    okExitCodes: [0, 1, 128],
  });
  return out.exitCode === 0;
}

/** The tree with nothing in it, in `mirror`'s object format (the base of a root commit). */
export async function emptyTree(mirror: string): Promise<string> {
  const out = await runGit(["hash-object", "-t", "tree", "--stdin"], {
    cwd: mirror,
    stdin: new Uint8Array(),
  });
  return new TextDecoder().decode(out.stdout).trim();
}

// One file's patch as it is read.
class PatchReader {
  patches: FilePatch[] = [];
  kept = 0;
  #current: (FilePatch & { bytes: number; hunks: boolean }) | null = null;

  constructor(readonly budgets: PatchBudgets) {}

  // One line of Git's output (without its newline).
  line(text: string): "more" | "stop" {
    if (text.startsWith("diff --git ")) {
      this.#current = {
        lines: [],
        binary: false,
        omitted: null,
        added: 0,
        removed: 0,
        bytes: 0,
        hunks: false,
      };
      this.patches.push(this.#current);
      return "more";
    }
    const file = this.#current;
    if (file === null) return "more";
    if (!file.hunks) {
      if (text.startsWith("Binary files ")) file.binary = true;
      if (!text.startsWith("@@")) return "more";
      file.hunks = true;
    }
    if (text.startsWith("+")) file.added++;
    else if (text.startsWith("-")) file.removed++;
    if (file.lines === null) return "more";
    const bytes = text.length + 1;
    if (this.kept + bytes > this.budgets.pageBytes) {
      this.#omit(file, "page_budget");
      return "stop";
    }
    if (
      file.bytes + bytes > this.budgets.fileBytes || file.lines.length >= this.budgets.fileLines
    ) {
      this.#omit(file, "file_budget");
      return "more";
    }
    file.lines.push(text);
    file.bytes += bytes;
    this.kept += bytes;
    return "more";
  }

  // A line longer than a file's budget (its first character given): counted,
  // the file is over its budget, and the line is never held whole.
  overlong(first: string): "more" | "stop" {
    const file = this.#current;
    if (file === null) return "more";
    if (first === "+") file.added++;
    else if (first === "-") file.removed++;
    if (file.lines !== null) this.#omit(file, "file_budget");
    return "more";
  }

  // The file being read when the reading stopped is not shown.
  cutShort(why: FilePatch["omitted"]): void {
    if (this.#current !== null && this.#current.lines !== null) this.#omit(this.#current, why);
  }

  #omit(file: FilePatch & { bytes: number }, why: FilePatch["omitted"]): void {
    this.kept -= file.bytes;
    file.lines = null;
    file.bytes = 0;
    file.omitted = why;
  }

  done(): FilePatch[] {
    return this.patches.map(({ lines, binary, omitted, added, removed }) => ({
      lines: binary ? null : lines,
      binary,
      omitted: binary ? null : omitted,
      added,
      removed,
    }));
  }
}

/** The patches read, and what stopped the reading before Git's end, if anything. */
export interface CommitPatches {
  patches: FilePatch[];
  stopped: "page_budget" | "deadline" | null;
}

/**
 * The patches from `base` to `head` in `mirror` of the files under
 * `pathspecs` (literal; none: all), one per changed file in Git's order,
 * within `budgets`. When the page's budget or the deadline stops the
 * reading, the files after the last one read are not listed (the changed
 * paths say them).
 */
export async function commitPatches(
  mirror: string,
  request: {
    base: string;
    head: string;
    pathspecs: readonly string[];
    budgets: PatchBudgets;
    /** Renamed and copied files as one patch each (`-M -C`, as `commitChanges` lists them). */
    renames?: boolean;
  },
): Promise<CommitPatches> {
  const child = spawnGit([
    ...await gitLeadingArgs(),
    "--literal-pathspecs",
    "diff",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    ...(request.renames ? ["-M", "-C"] : ["--no-renames"]),
    "-U3",
    request.base,
    request.head,
    "--",
    ...request.pathspecs,
  ], { cwd: mirror, stdin: "null" });
  const reader = new PatchReader(request.budgets);
  let timedOut = false;
  // The timer stops a Git that prints nothing; each chunk read is checked against the deadline
  // too, so output that keeps arriving never outruns it (a timer waits for the reads in flight).
  const deadline = gitDeadline(request.budgets.timeoutMs, () => {
    timedOut = true;
    killQuietly(child);
  });
  const { expired } = deadline;
  const stderr = child.stderr.cancel().catch(() => {});
  let stopped: CommitPatches["stopped"] = null;
  try {
    if (await readLines(child.stdout, { reader, expired }) === "stop") stopped = "page_budget";
  } catch (error) {
    if (!timedOut) throw error;
  } finally {
    deadline.clear();
    killQuietly(child);
    await stderr;
    await child.status;
  }
  if (timedOut && stopped === null) {
    stopped = "deadline";
    reader.cutShort("deadline");
  }
  return { patches: reader.done(), stopped };
}

// Feeds `stream`'s lines to `reader` until it says stop or the deadline has `expired` (then
// what was read stands, as when the timer kills Git); a line longer than a file's budget is
// skipped to its end rather than held.
async function readLines(
  stream: ReadableStream<Uint8Array>,
  options: { reader: PatchReader; expired: () => boolean },
): Promise<"more" | "stop" | "expired"> {
  const { reader, expired } = options;
  const decoder = new TextDecoder();
  const source = chunkReader(stream);
  let carry = "";
  let skipping = false;
  try {
    while (true) {
      const value = await source.read();
      if (value === null) break;
      if (expired()) return "expired";
      let text = carry + decoder.decode(value, { stream: true });
      carry = "";
      if (skipping) {
        const end = text.indexOf("\n");
        if (end === -1) continue;
        text = text.slice(end + 1);
        skipping = false;
      }
      let start = 0;
      for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
        if (reader.line(text.slice(start, end)) === "stop") return "stop";
        start = end + 1;
      }
      carry = text.slice(start);
      if (carry.length > reader.budgets.fileBytes) {
        if (reader.overlong(carry.slice(0, 1)) === "stop") return "stop";
        carry = "";
        skipping = true;
      }
    }
    if (carry !== "" && reader.line(carry) === "stop") return "stop";
    return "more";
  } finally {
    await source.cancel().catch(() => {});
  }
}

/** Bytes of one read of Git's output into the reused buffer. */
const READ_BYTES = 64 * 1024;

/**
 * Reads `stream` into one buffer reused for every read where the stream
 * lets it (a byte stream, as Deno's pipes are), so streaming a huge diff
 * leaves no trail of chunks for the collector (after a 64 MiB diff's page,
 * up to 21 MiB of them waited outside the heap for a collection);
 * otherwise chunk by chunk. A chunk is valid until the next read.
 */
function chunkReader(
  stream: ReadableStream<Uint8Array>,
): { read(): Promise<Uint8Array | null>; cancel(): Promise<void> } {
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream: chunk by chunk below.
  }
  if (byob !== null) {
    const reader = byob;
    let buffer = new ArrayBuffer(READ_BYTES);
    return {
      read: async () => {
        const { done, value } = await reader.read(new Uint8Array(buffer));
        if (done || value === undefined) return null;
        buffer = value.buffer as ArrayBuffer;
        return value;
      },
      cancel: () => reader.cancel(),
    };
  }
  const reader = stream.getReader();
  return {
    read: async () => {
      const { done, value } = await reader.read();
      return done ? null : value;
    },
    cancel: () => reader.cancel(),
  };
}
