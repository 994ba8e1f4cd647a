/**
 * Keeps a bare mirror of each registered repository in the data folder:
 * fetches the monitored branches (the only network or file access that may
 * use a transport; with the repository's credential, `store/fetch_credentials.ts`,
 * when it has one), records each branch's observed head, pins retained
 * commits under `refs/sourcegraph/retained/` so Git maintenance keeps them,
 * and unpins versions outside the retention policy. A failed fetch changes
 * nothing: every retained version stays readable.
 *
 * @module
 */

import * as fs from "node:fs";
import { join } from "node:path";
import { GitError, isFullCommitId, runGit } from "../../shared/git.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import type { CredentialStore } from "../store/fetch_credentials.ts";
import { classifyFetchFailure } from "./fetch_failures.ts";

/** A mirror's fetch: quiet, no tags, no FETCH_HEAD, no submodules (a source or refspecs follow). */
export const FETCH_COMMAND = [
  "fetch",
  "--quiet",
  "--no-tags",
  "--no-write-fetch-head",
  "--no-recurse-submodules",
];

/** Transports a fetch may use. */
export const FETCH_TRANSPORTS = ["file", "https", "ssh", "git"];

/** The transports of a fetch of `source`: plain http only to a loopback address. */
export function fetchTransports(source: string): string[] {
  let host = "";
  try {
    const url = new URL(source);
    if (url.protocol === "http:") host = url.hostname;
  } catch {
    // not a URL: a path or scp-like ssh
  }
  const loopback = host === "127.0.0.1" || host === "localhost" || host === "[::1]";
  return loopback ? [...FETCH_TRANSPORTS, "http"] : FETCH_TRANSPORTS;
}
const FETCH_TIMEOUT_MS = 10 * 60 * 1000;
const DEFAULT_RETAINED = 20;

/** The mirror folder of a repository. */
export function mirrorPath(dataDir: string, repo: RepositoryRecord): string {
  return join(dataDir, "mirrors", `${repo.id}.git`);
}

/** What one sync did. */
export interface SyncOutcome {
  heads: Record<string, string>;
  pruned: number;
}

/** Fetches a repository's monitored branches and applies retention. */
export async function syncRepository(
  store: ControlStore,
  repo: RepositoryRecord,
  options: { dataDir: string; credentials: CredentialStore; signal?: AbortSignal },
): Promise<SyncOutcome> {
  const mirror = mirrorPath(options.dataDir, repo);
  try {
    await ensureMirror(mirror);
    await fetchBranches(mirror, repo, options);
    const heads: Record<string, string> = {};
    for (const branch of repo.policy.branches) {
      heads[branch] = await retainHead(store, { mirror, repo, branch });
    }
    const pruned = await applyRetention(store, mirror, repo, new Set(Object.values(heads)));
    await store.setSyncState(repo.id, { state: "ready", lastError: null });
    return { heads, pruned };
  } catch (error) {
    // A sync cut by a stop is no failure of the repository's: its state stays as it was.
    if (options.signal?.aborted) throw error;
    // The sync's own failure is the one to report, even when recording it fails too.
    await store.setSyncState(repo.id, {
      state: "failed",
      lastError: error instanceof GitError ? error.code : "SYNC_FAILED",
    }).catch(() => {});
    throw error;
  }
}

/** Creates the bare mirror at `mirror` unless it exists. */
export async function ensureMirror(mirror: string): Promise<void> {
  if (!fs.existsSync(join(mirror, "HEAD"))) {
    fs.mkdirSync(mirror, { recursive: true, mode: 0o700 });
    await runGit(["init", "-q", "--bare", "."], { cwd: mirror });
  }
}

/**
 * Fetches the monitored branches into the mirror's own refs
 * (`refs/sourcegraph/heads/`), with the repository's credential; a
 * failure is classified (auth, host key, ...).
 */
export async function fetchBranches(
  mirror: string,
  repo: RepositoryRecord,
  options: { credentials: CredentialStore; signal?: AbortSignal },
): Promise<void> {
  const refspecs = repo.policy.branches.map((branch) =>
    `+refs/heads/${branch}:refs/sourcegraph/heads/${branch}`
  );
  const credentials = await options.credentials.gitArgs(repo.id, repo.source);
  await runGit(
    [
      ...credentials,
      ...FETCH_COMMAND,
      "--",
      repo.source,
      ...refspecs,
    ],
    {
      cwd: mirror,
      transports: fetchTransports(repo.source),
      timeoutMs: FETCH_TIMEOUT_MS,
      signal: options.signal,
    },
  ).catch((error) => {
    throw error instanceof GitError ? classifyFetchFailure(error) : error;
  });
}

// Pins a fetched branch head as a retained version and records it; its commit.
async function retainHead(
  store: ControlStore,
  at: { mirror: string; repo: RepositoryRecord; branch: string },
): Promise<string> {
  const { mirror, branch } = at;
  // The head and its committer time in one process (fails as rev-parse
  // --verify would when the branch names no commit).
  const head = text(
    await runGit(["log", "-1", "--format=%H %ct", `refs/sourcegraph/heads/${branch}^{commit}`], {
      cwd: mirror,
    }),
  );
  const [commit, seconds] = head.split(" ");
  if (!isFullCommitId(commit)) throw new GitError("GIT_FAILED", "no head commit");
  const time = Number(seconds);
  // A head already pinned (an unmoved branch: most syncs) needs no update-ref.
  const pin = join(mirror, "refs", "sourcegraph", "retained", commit);
  if (readRef(pin) !== commit) {
    await runGit(["update-ref", `refs/sourcegraph/retained/${commit}`, commit], { cwd: mirror });
  }
  await store.observe(at.repo.id, {
    branch,
    commit,
    committerTime: Number.isFinite(time) ? time : null,
  });
  return commit;
}

async function applyRetention(
  store: ControlStore,
  mirror: string,
  repo: RepositoryRecord,
  current: Set<string>,
): Promise<number> {
  const versions = store.versions(repo.id);
  const count = repo.policy.count ?? (repo.policy.days === undefined ? DEFAULT_RETAINED : Infinity);
  const since = repo.policy.days === undefined
    ? -Infinity
    : Date.now() - repo.policy.days * 86_400_000;
  const drop = versions.filter((version, index) =>
    !current.has(version.commit) && (index >= count || version.observedAt < since)
  ).map((version) => version.commit);
  for (const commit of drop) {
    await runGit(["update-ref", "-d", `refs/sourcegraph/retained/${commit}`], { cwd: mirror });
  }
  await store.forget(repo.id, drop);
  return drop.length;
}

// A loose ref's commit id; "" when the file is absent (packed) or unreadable.
function readRef(path: string): string {
  try {
    return fs.readFileSync(path, "utf8").trim();
  } catch {
    return "";
  }
}

function text(result: { stdout: Uint8Array }): string {
  return new TextDecoder().decode(result.stdout).trim();
}
