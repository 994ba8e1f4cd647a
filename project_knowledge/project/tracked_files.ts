/**
 * Observations of the Git index and HEAD through the hardened runner. The
 * tracked set is read from `git ls-files --stage`, so working-tree edits of
 * tracked files count while untracked files never do.
 *
 * @module
 */

import { GitError, runGit } from "../../shared/git.ts";
import { decodeUtf8Strict } from "../../shared/text.ts";
import { KnowledgeError } from "../errors.ts";
import { type ExclusionReason, pathExclusion } from "./eligibility.ts";
import { MAX_GIT_OUTPUT_BYTES } from "../limits.ts";

/** The tracked entries of the root, sorted by path. */
export interface TrackedSet {
  /** Path-eligible stage-zero regular files, in byte order of their paths. */
  eligible: string[];
  /** Entries excluded by path or index state, counted once per path. */
  excluded: Map<ExclusionReason, number>;
}

/** Total of a tracked set's exclusions. */
export function excludedCount(set: TrackedSet): number {
  let total = 0;
  for (const count of set.excluded.values()) total += count;
  return total;
}

/** Lists the tracked entries of `root` and applies the path rules. */
export async function observeTrackedSet(
  root: string,
  options: { timeoutMs: number },
): Promise<TrackedSet> {
  const result = await git(root, ["ls-files", "--stage", "-z"], options.timeoutMs);
  const entries = new Map<string, { mode: string; stage: string } | "conflicted">();
  const raw = result.stdout;
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf(0, at);
    const stop = end === -1 ? raw.length : end;
    const record = raw.subarray(at, stop);
    at = stop + 1;
    const tab = record.indexOf(9);
    if (tab === -1) continue;
    const [mode, , stage] = new TextDecoder().decode(record.subarray(0, tab)).split(" ");
    const path = decodeUtf8Strict(record.subarray(tab + 1)) ?? invalidPathKey(record);
    const previous = entries.get(path);
    if (stage !== "0" || previous !== undefined) entries.set(path, "conflicted");
    else entries.set(path, { mode, stage });
  }
  const eligible: string[] = [];
  const excluded = new Map<ExclusionReason, number>();
  const exclude = (reason: ExclusionReason) =>
    excluded.set(reason, (excluded.get(reason) ?? 0) + 1);
  for (const [path, entry] of entries) {
    if (path.startsWith("\0")) exclude("invalid_path");
    else if (entry === "conflicted") exclude("conflicted");
    else if (entry.mode === "120000") exclude("symlink");
    else if (entry.mode === "160000") exclude("submodule");
    else if (entry.mode !== "100644" && entry.mode !== "100755") exclude("unsupported");
    else {
      const reason = pathExclusion(path);
      if (reason === null) eligible.push(path);
      else exclude(reason);
    }
  }
  eligible.sort(compareBytes);
  return { eligible, excluded };
}

// Paths that are not UTF-8 get a key that no valid path can have.
function invalidPathKey(record: Uint8Array): string {
  return "\0" + Array.from(record, (byte) => byte.toString(16)).join("");
}

/** Orders paths by their UTF-8 bytes, as Git does. */
export function compareBytes(a: string, b: string): number {
  // UTF-16 order differs from UTF-8 order only for astral vs. high-BMP pairs;
  // Buffer-free comparison keeps this cheap for the common ASCII case.
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/** The commit HEAD names, or null before the first commit. */
export async function observeHead(
  root: string,
  options: { timeoutMs: number },
): Promise<string | null> {
  const result = await git(
    root,
    ["rev-parse", "--verify", "-q", "HEAD^{commit}"],
    options.timeoutMs,
    [
      0,
      1,
    ],
  );
  if (result.exitCode !== 0) return null;
  const oid = new TextDecoder().decode(result.stdout).trim();
  return /^[0-9a-f]{40,64}$/.test(oid) ? oid : null;
}

async function git(
  root: string,
  args: string[],
  timeoutMs: number,
  okExitCodes: number[] = [0],
): Promise<{ exitCode: number; stdout: Uint8Array }> {
  if (timeoutMs <= 0) throw new KnowledgeError("budget_exhausted", "work budget exhausted");
  try {
    return await runGit(args, {
      cwd: root,
      timeoutMs,
      maxStdoutBytes: MAX_GIT_OUTPUT_BYTES,
      okExitCodes,
    });
  } catch (error) {
    if (error instanceof GitError) {
      if (error.code === "GIT_OUTPUT_LIMIT") {
        throw new KnowledgeError("git_output_limit", "git output exceeded 8 MiB");
      }
      if (error.code === "GIT_TIMEOUT") {
        throw new KnowledgeError("budget_exhausted", "git did not finish within the work budget");
      }
      throw new KnowledgeError("git_failed", "git observation failed");
    }
    throw error;
  }
}
