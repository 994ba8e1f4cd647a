/**
 * The latest commit of each entry of a folder at a commit, as code hosts
 * show beside a listing: one `git log --name-only` walk from the commit over
 * the folder (history simplified as `git log -- <folder>` does), read as it
 * streams; an entry takes the first commit that changed a path inside it,
 * and the walk stops once every entry has one, or at its bounds (commits
 * walked, a deadline), leaving the rest without. Paths are literal
 * pathspecs; the commit is a full SHA.
 *
 * @module
 */

import { gitLeadingArgs, killQuietly, spawnGit } from "../../shared/git.ts";

/** The latest commit of an entry. */
export interface LastCommit {
  commit: string;
  /** Strict ISO 8601 with the author's offset. */
  authorDate: string;
  /** The first line of its message (at most `SUBJECT_MAX_CHARS`). */
  subject: string;
}

/** The bounds of one walk. */
export interface WalkBounds {
  /** Most commits read. */
  commits: number;
  /** The deadline of the walk. */
  timeoutMs: number;
}

/** The bounds the listings use. */
export const LAST_COMMIT_BOUNDS: WalkBounds = { commits: 20_000, timeoutMs: 5_000 };

/** Most characters of a subject kept. */
export const SUBJECT_MAX_CHARS = 200;
// A record's field longer than this ends the walk (a path is at most 4 KiB).
const MAX_FIELD_CHARS = 1024 * 1024;

/** What one walk found. */
export interface LastCommits {
  /** By entry name; an entry without one was not reached within the bounds. */
  found: Map<string, LastCommit>;
  /** How many commits were read. */
  walked: number;
  /** What ended the walk before every entry was found: its deadline or its count of commits. */
  cut: "deadline" | "commits" | null;
}

// Which entry of the folder a changed path is in (its first segment below the folder).
function entryOf(path: string, prefix: string): string | null {
  if (!path.startsWith(prefix)) return null;
  const rest = path.slice(prefix.length);
  const slash = rest.indexOf("/");
  return slash === -1 ? rest : rest.slice(0, slash);
}

/**
 * The latest commit of each of `names` (entries of `folder`, "" for the top)
 * from `commit` in `mirror`, counting changes under `pathspecs` only
 * (default: the folder), within `bounds`.
 */
export async function lastCommits(
  mirror: string,
  request: {
    commit: string;
    folder: string;
    names: readonly string[];
    pathspecs?: readonly string[];
    bounds?: WalkBounds;
  },
): Promise<LastCommits> {
  const bounds = request.bounds ?? LAST_COMMIT_BOUNDS;
  const wanted = new Set(request.names);
  const found = new Map<string, LastCommit>();
  const prefix = request.folder === "" ? "" : `${request.folder}/`;
  // No pathspec walks the whole commit; path groups that show nothing here walk nothing.
  const pathspecs = request.pathspecs ?? (request.folder === "" ? [] : [request.folder]);
  if (wanted.size === 0 || (request.pathspecs?.length === 0)) {
    return { found, walked: 0, cut: null };
  }
  let walked = 0;
  let current: LastCommit | null = null;
  const field = (token: string): "more" | "stop" => {
    if (token.startsWith("\x1e")) {
      const [commit, authorDate, subject = ""] = token.slice(1).split("\x1f");
      current = { commit, authorDate, subject: subject.slice(0, SUBJECT_MAX_CHARS) };
      walked++;
      return "more";
    }
    const name = current === null ? null : entryOf(token.replace(/^\n/, ""), prefix);
    if (name !== null && wanted.has(name) && !found.has(name)) {
      found.set(name, current!);
      if (found.size === wanted.size) return "stop";
    }
    return "more";
  };
  const { ended, timedOut } = await streamFields(mirror, [
    "--literal-pathspecs",
    "log",
    "-z",
    "--no-color",
    "--no-renames",
    "--name-only",
    "--format=%x1e%H%x1f%aI%x1f%s",
    `--max-count=${bounds.commits}`,
    request.commit,
    "--",
    ...pathspecs,
  ], { timeoutMs: bounds.timeoutMs, field });
  const cut = found.size === wanted.size || (ended && walked < bounds.commits)
    ? null
    : timedOut
    ? "deadline"
    : "commits";
  return { found, walked, cut };
}

// Runs Git with `args` in `mirror`, feeding each field of its output to
// `field` until it says stop, Git ends, or the deadline kills it.
async function streamFields(
  mirror: string,
  args: readonly string[],
  at: { timeoutMs: number; field: (token: string) => "more" | "stop" },
): Promise<{ ended: boolean; timedOut: boolean }> {
  const child = spawnGit([...await gitLeadingArgs(), ...args], { cwd: mirror, stdin: "null" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killQuietly(child);
  }, at.timeoutMs);
  const stderr = child.stderr.cancel().catch(() => {});
  try {
    return { ended: await readFields(child.stdout, at.field), timedOut };
  } catch (error) {
    if (!timedOut) throw error;
    return { ended: false, timedOut };
  } finally {
    clearTimeout(timer);
    killQuietly(child);
    await stderr;
    await child.status;
  }
}

// Feeds each NUL-ended field of `stream` to `field` until it says stop;
// true when the stream ended (false: stopped, or a field over its cap).
async function readFields(
  stream: ReadableStream<Uint8Array>,
  field: (token: string) => "more" | "stop",
): Promise<boolean> {
  const decoder = new TextDecoder();
  const source = stream.getReader();
  let carry = "";
  try {
    while (true) {
      const { done, value } = await source.read();
      if (done) break;
      const text = carry + decoder.decode(value, { stream: true });
      let start = 0;
      for (let end = text.indexOf("\0"); end !== -1; end = text.indexOf("\0", start)) {
        if (field(text.slice(start, end)) === "stop") return false;
        start = end + 1;
      }
      carry = text.slice(start);
      if (carry.length > MAX_FIELD_CHARS) return false;
    }
    if (carry !== "") field(carry);
    return true;
  } finally {
    await source.cancel().catch(() => {});
  }
}
