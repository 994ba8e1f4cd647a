/**
 * The commits reachable from a set of heads in a mirror, as `git log` lists
 * them (newest first), with their author, dates, subject and message, read
 * once per set of heads and kept (`CommitLogs`), so searching messages and
 * authors spawns no Git. Git's output is read as it comes: each field keeps
 * its first characters only (a message `MESSAGE_MAX_CHARS`, an author's name or
 * email 1,024), and a log past `LOG_MAX_BYTES` or `LOG_MAX_COMMITS` is refused
 * (COMMITS_TOO_COSTLY), so memory stays bounded whatever the history holds.
 *
 * The commits of paths (`git log heads -- paths`, with Git's history
 * simplification) are listed by Git as full SHAs and kept too.
 *
 * @module
 */

import { GitError, runGit } from "../../shared/git.ts";
import { SourcegraphError } from "../errors.ts";
import { streamGit } from "./git_stream.ts";

/** Most characters of one commit's message kept (it is searched within them). */
export const MESSAGE_MAX_CHARS = 64 * 1024;
/** Most bytes of one log (all records together). */
export const LOG_MAX_BYTES = 256 * 1024 * 1024;
/** Most commits of one log. */
export const LOG_MAX_COMMITS = 4_000_000;
/** The deadline of reading one log. */
export const LOG_TIMEOUT_MS = 120_000;
/** Most characters of an author's name or email kept. */
const NAME_MAX_CHARS = 256;

/** The commits of a set of heads, newest first, as parallel columns. */
export interface CommitLog {
  /** Full SHAs in `git log` order. */
  commits: string[];
  /** Each commit's position in `commits`. */
  index: Map<string, number>;
  authorNames: string[];
  /** `Name <email>`, what Git's `--author` matches. */
  authors: string[];
  /** Strict ISO 8601 with the author's offset. */
  authorDates: string[];
  /** Committer time, seconds since the epoch (what `--since`/`--until` compare). */
  committerTimes: Float64Array;
  subjects: string[];
  /** The raw message (`%B`), up to `MESSAGE_MAX_CHARS`. */
  messages: string[];
  /** Bytes of Git's output read. */
  bytes: number;
}

const FORMAT = "--format=%H%x00%an%x00%ae%x00%aI%x00%ct%x00%s%x00%B%x00%x1e";
const SHA = /^[0-9a-f]{40}$/;

/**
 * Reads the log of `heads` (full SHAs) in `mirror` within `limits`;
 * COMMITS_TOO_COSTLY past them.
 */
export async function readCommitLog(
  mirror: string,
  request: {
    heads: readonly string[];
    limits?: { timeoutMs: number; maxBytes: number; maxCommits: number };
  },
): Promise<CommitLog> {
  const limits = request.limits ??
    { timeoutMs: LOG_TIMEOUT_MS, maxBytes: LOG_MAX_BYTES, maxCommits: LOG_MAX_COMMITS };
  const log = emptyLog();
  const records = new RecordSplitter((record) => addRecord(log, record));
  let over = false;
  const end = await streamGit(
    ["log", "--no-color", "--encoding=UTF-8", FORMAT, ...request.heads, "--"],
    {
      cwd: mirror,
      timeoutMs: limits.timeoutMs,
      read: (chunk) => {
        log.bytes += chunk.length;
        records.push(chunk);
        over = log.bytes > limits.maxBytes || log.commits.length > limits.maxCommits;
        return !over;
      },
    },
  );
  if (over || end.timedOut) throw tooCostly();
  records.end();
  return log;
}

function tooCostly(): SourcegraphError {
  return new SourcegraphError(
    "COMMITS_TOO_COSTLY",
    "this repository's log is too large to search",
    {
      hint: "Narrow the search to one revision, or to paths.",
    },
  );
}

function emptyLog(): CommitLog {
  return {
    commits: [],
    index: new Map(),
    authorNames: [],
    authors: [],
    authorDates: [],
    committerTimes: new Float64Array(0),
    subjects: [],
    messages: [],
    bytes: 0,
  };
}

const decoder = new TextDecoder();
// The characters kept of each field: SHA, author name, email, date, time, subject, message.
const FIELD_CHARS = [64, 1024, 1024, 64, 32, 4096, MESSAGE_MAX_CHARS];

function addRecord(log: CommitLog, fields: string[]): void {
  const sha = fields[0].replace(/^\n/, "");
  if (!SHA.test(sha) || fields.length !== FIELD_CHARS.length) return;
  const name = fields[1].slice(0, NAME_MAX_CHARS);
  const email = fields[2].slice(0, NAME_MAX_CHARS);
  const at = log.commits.length;
  log.index.set(sha, at);
  log.commits.push(sha);
  log.authorNames.push(name);
  log.authors.push(`${name} <${email}>`);
  log.authorDates.push(fields[3]);
  if (at >= log.committerTimes.length) {
    const grown = new Float64Array(Math.max(1024, at * 2));
    grown.set(log.committerTimes);
    log.committerTimes = grown;
  }
  log.committerTimes[at] = Number(fields[4]);
  log.subjects.push(fields[5]);
  log.messages.push(fields[6]);
}

/**
 * Splits Git's output into records of NUL-ended fields, a record ending
 * with 0x1e after its last field's NUL; each field is kept up to its bound
 * in `FIELD_CHARS` (the rest of a longer one is dropped as it passes), so
 * a hostile author name cannot push the message out, nor anything grow.
 * The output is decoded as it streams, a chunk at a time.
 */
export class RecordSplitter {
  #decoder = new TextDecoder();
  #fields: string[] = [];
  #parts: string[] = [];
  #size = 0;
  #fieldEnded = false;
  #emit: (fields: string[]) => void;

  /** Hands each record's fields to `emit`. */
  constructor(emit: (fields: string[]) => void) {
    this.#emit = emit;
  }

  /** Reads one chunk. */
  push(chunk: Uint8Array): void {
    const text = this.#decoder.decode(chunk, { stream: true });
    let start = this.#fieldEnded && text.length > 0 ? this.#afterField(text, 0) : 0;
    for (let nul = text.indexOf("\0", start); nul !== -1; nul = text.indexOf("\0", start)) {
      this.#keep(text, start, nul);
      this.#endField();
      start = nul + 1;
      if (start < text.length) start = this.#afterField(text, start);
    }
    this.#keep(text, start, text.length);
  }

  /** Drops what is left (an unfinished record). */
  end(): void {
    this.#fields = [];
    this.#parts = [];
    this.#size = 0;
  }

  // After a field's NUL: 0x1e ends the record (and is skipped).
  #afterField(text: string, at: number): number {
    this.#fieldEnded = false;
    if (text.charCodeAt(at) !== 0x1e) return at;
    this.#emit(this.#fields);
    this.#fields = [];
    return at + 1;
  }

  #keep(text: string, from: number, to: number): void {
    const bound = FIELD_CHARS[Math.min(this.#fields.length, FIELD_CHARS.length - 1)];
    const end = Math.min(to, from + bound - this.#size);
    if (end <= from) return;
    this.#parts.push(text.slice(from, end));
    this.#size += end - from;
  }

  #endField(): void {
    const field = this.#parts.length === 1 ? this.#parts[0] : this.#parts.join("");
    this.#parts = [];
    this.#size = 0;
    // A record has a known count of fields: more (a forged one) are dropped.
    if (this.#fields.length <= FIELD_CHARS.length) this.#fields.push(field);
    this.#fieldEnded = true;
  }
}

/**
 * The commits `git log heads -- paths` lists (full SHAs, newest first):
 * the paths are literal (the runner sets GIT_LITERAL_PATHSPECS). Past its
 * deadline it is COMMITS_TOO_COSTLY.
 */
export async function pathCommits(
  mirror: string,
  request: { heads: readonly string[]; paths: readonly string[]; timeoutMs: number },
): Promise<string[]> {
  const out = await runGit(
    ["log", "--format=%H", ...request.heads, "--", ...request.paths],
    { cwd: mirror, timeoutMs: request.timeoutMs, maxStdoutBytes: 41 * LOG_MAX_COMMITS },
  ).catch((error) => {
    if (error instanceof GitError && ["GIT_TIMEOUT", "GIT_OUTPUT_LIMIT"].includes(error.code)) {
      throw tooCostly();
    }
    throw error;
  });
  return decoder.decode(out.stdout).split("\n").filter((line) => SHA.test(line));
}

/**
 * Logs kept by key (a mirror and its heads, or those and paths), the most
 * recently used first, within `maxEntries` and `maxBytes` together; a log
 * being read is shared by every caller asking for it.
 */
export class CommitLogs {
  #entries = new Map<
    string,
    { mirror: string; value: Promise<CommitLog | string[]>; bytes: number }
  >();
  #maxEntries: number;
  #maxBytes: number;
  /** How many logs were read from Git (what the cache saved is the rest). */
  reads = 0;

  /** A cache of at most `maxEntries` logs of at most `maxBytes` in all. */
  constructor(options: { maxEntries?: number; maxBytes?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? 16;
    this.#maxBytes = options.maxBytes ?? LOG_MAX_BYTES;
  }

  /** The log of `heads` in `mirror`, read once while kept. */
  log(mirror: string, heads: readonly string[]): Promise<CommitLog> {
    const key = JSON.stringify([mirror, [...heads].sort()]);
    return this.#get(
      { key, mirror },
      () => readCommitLog(mirror, { heads }),
      (log) => log.bytes,
    ) as Promise<CommitLog>;
  }

  /**
   * Reads the log of `heads` in `mirror` now (after a sync moved them)
   * when a log of that mirror is kept, so the next search finds it ready;
   * a mirror never searched is left alone.
   */
  refresh(mirror: string, heads: readonly string[]): void {
    if (![...this.#entries.values()].some((entry) => entry.mirror === mirror)) return;
    this.log(mirror, heads).catch(() => {}); // a failure is the next search's to report
  }

  /** The commits of `paths` from `heads` in `mirror`, listed once while kept. */
  pathCommits(
    mirror: string,
    request: { heads: readonly string[]; paths: readonly string[]; timeoutMs: number },
  ): Promise<string[]> {
    const key = JSON.stringify([mirror, [...request.heads].sort(), request.paths]);
    return this.#get(
      { key, mirror },
      () => pathCommits(mirror, request),
      (list) => list.length * 41,
    ) as Promise<string[]>;
  }

  #get<T extends CommitLog | string[]>(
    at: { key: string; mirror: string },
    read: () => Promise<T>,
    size: (value: T) => number,
  ): Promise<T> {
    const { key, mirror } = at;
    const kept = this.#entries.get(key);
    if (kept !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, kept);
      return kept.value as Promise<T>;
    }
    this.reads++;
    const entry = { mirror, value: read() as Promise<CommitLog | string[]>, bytes: 0 };
    this.#entries.set(key, entry);
    entry.value.then((value) => {
      entry.bytes = size(value as T);
      this.#trim();
    }, () => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    this.#trim();
    return entry.value as Promise<T>;
  }

  // Drops the least recently used logs past the bounds (never the newest).
  #trim(): void {
    let bytes = [...this.#entries.values()].reduce((sum, entry) => sum + entry.bytes, 0);
    for (const [key, entry] of this.#entries) {
      if (this.#entries.size <= 1) break;
      if (this.#entries.size <= this.#maxEntries && bytes <= this.#maxBytes) break;
      this.#entries.delete(key);
      bytes -= entry.bytes;
    }
  }
}
