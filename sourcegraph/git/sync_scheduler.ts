/**
 * Runs repository syncs one at a time per repository (start-up, each
 * repository's own sync interval, and `prepare` all go through
 * here) and logs their progress, with the reason of a failure.
 *
 * @module
 */

import { isAbsolute } from "node:path";
import { GitError, runGit } from "../../shared/git.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import type { CredentialStore } from "../store/fetch_credentials.ts";
import { type SyncOutcome, syncRepository } from "./repository_sync.ts";
import { localRefStamp } from "./local_ref_stamp.ts";

// How long branches read from a local source are trusted while its ref files
// look unchanged: a bound on a change the stamp could miss (a file system
// whose times are too coarse to tell two writes of the same inode apart).
const LOCAL_REREAD_MS = 30_000;

/**
 * How one sync runs: from upstream here (the single process), or as one
 * owner among several (`cluster/replica_sync.ts`). `since`: a sync of the
 * repository by anyone that succeeded at or after this time makes a
 * fetch unnecessary.
 */
export type SyncRunner = (
  repo: RepositoryRecord,
  options: { since: number; signal: AbortSignal },
) => Promise<SyncOutcome>;

/** Serialized syncs. */
export class SyncScheduler {
  #store: ControlStore;
  #dataDir: string;
  #credentials: CredentialStore;
  #log: (message: string) => void;
  #running = new Map<number, Promise<unknown>>();
  #onSynced: (repo: RepositoryRecord) => void;
  #lastStarted = new Map<number, number>();
  #timer: ReturnType<typeof setInterval> | null = null;
  #abort = new AbortController();
  #runner: SyncRunner;
  #owns: (repo: RepositoryRecord) => boolean;
  #localCheckMs: number;
  #localTimer: ReturnType<typeof setInterval> | null = null;
  #checking = false;
  #busy = new Set<number>();
  #localSeen = new Map<number, string>();
  #localRead = new Map<number, { stamp: string; commits: string[]; at: number }>();

  /**
   * Syncs repositories of `store` into mirrors below `dataDir`, fetching
   * with `credentials`; `onSynced` hears of each success. In a cluster,
   * `runner` syncs as one owner among several and `owns` picks the
   * repositories this replica syncs on its own.
   */
  constructor(
    store: ControlStore,
    dataDir: string,
    options: {
      credentials: CredentialStore;
      log: (message: string) => void;
      onSynced?: (repo: RepositoryRecord) => void;
      runner?: SyncRunner;
      owns?: (repo: RepositoryRecord) => boolean;
      /** How often local-path sources are checked for moved branches (0: never). */
      localCheckMs?: number;
    },
  ) {
    this.#localCheckMs = options.localCheckMs ?? 0;
    this.#store = store;
    this.#dataDir = dataDir;
    this.#credentials = options.credentials;
    this.#log = options.log;
    this.#onSynced = options.onSynced ?? (() => {});
    this.#owns = options.owns ?? (() => true);
    this.#runner = options.runner ?? ((repo, { signal }) =>
      syncRepository(this.#store, repo, {
        dataDir: this.#dataDir,
        credentials: this.#credentials,
        signal,
      }));
  }

  /**
   * Syncs one repository after any sync of it already running. `due`: an
   * interval sync, which a sync by another replica within the interval
   * makes unnecessary; otherwise (registration, `prepare`) only one that
   * succeeds after this call does.
   */
  sync(repo: RepositoryRecord, options: { due?: boolean } = {}): Promise<SyncOutcome> {
    const asked = Date.now();
    const since = options.due ? asked - repo.syncIntervalMinutes * 60_000 : asked;
    this.#lastStarted.set(repo.id, asked);
    this.#busy.add(repo.id);
    const previous = this.#running.get(repo.id) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(async () => {
      const signal = this.#abort.signal;
      if (signal.aborted) throw new SyncStopped();
      try {
        const outcome = await this.#runner(repo, { since, signal });
        const heads = Object.entries(outcome.heads).map(([b, c]) => `${b}@${c.slice(0, 12)}`);
        this.#log(
          `synced ${repo.name}: ${heads.join(", ")}${
            outcome.pruned ? `; pruned ${outcome.pruned}` : ""
          }`,
        );
        if (this.#owns(repo)) this.#onSynced(repo); // a sync run by an owner elsewhere holds nothing here
        return outcome;
      } catch (error) {
        if (signal.aborted) {
          this.#log(`sync of ${repo.name} stopped: the service is stopping`);
          throw new SyncStopped();
        }
        this.#log(
          `sync of ${repo.name} failed (${failureReason(error)}); retained versions stay readable`,
        );
        throw error;
      }
    });
    this.#running.set(repo.id, run);
    const settled = () => {
      if (this.#running.get(repo.id) === run) this.#busy.delete(repo.id);
    };
    run.then(settled, settled);
    return run;
  }

  /**
   * Starts a sync of `repo` in the background unless one is running or
   * waiting (a person's "Sync now": clicks never queue up); whether one was
   * started. Its outcome is logged like any sync.
   */
  requestSync(repo: RepositoryRecord): boolean {
    if (this.#busy.has(repo.id) || this.#abort.signal.aborted) return false;
    this.sync(repo).catch(() => {});
    return true;
  }

  /**
   * Syncs as one replica of a cluster from now on: `runner` runs each sync,
   * `owns` picks the repositories synced here on their interval.
   */
  coordinate(options: { runner: SyncRunner; owns: (repo: RepositoryRecord) => boolean }): void {
    this.#runner = options.runner;
    this.#owns = options.owns;
  }

  /**
   * Checks every 30 s which repositories are due by their own interval, and
   * syncs them; and every `localCheckMs` whether a local-path source's
   * monitored branches moved ({@linkcode syncMovedLocal}).
   */
  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(
      () => this.#onTimer("interval sync", this.syncDue(Date.now())),
      30_000,
    );
    Deno.unrefTimer(this.#timer);
    if (this.#localCheckMs > 0) {
      this.#localTimer = setInterval(
        () => this.#onTimer("local check", this.syncMovedLocal()),
        this.#localCheckMs,
      );
      Deno.unrefTimer(this.#localTimer);
    }
  }

  // A timer's pass that fails (its store closed under it by a stop, or failing) is logged, never
  // left unhandled: an unhandled rejection ends the process. After `stop` it is expected: silent.
  #onTimer(what: string, pass: Promise<unknown>): void {
    pass.catch((error) => {
      if (this.#timer === null) return;
      this.#log(`${what} failed: ${(error as Error)?.message ?? String(error)}`);
    });
  }

  /** Stops the interval syncs and the local checks. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    if (this.#localTimer !== null) clearInterval(this.#localTimer);
    this.#timer = null;
    this.#localTimer = null;
  }

  /**
   * Syncs each enabled repository whose source is a local path and one of
   * whose monitored branches there points elsewhere than its observed head.
   * A check reads the branches with one `git rev-parse` per repository (no
   * fetch), or not at all while the source's ref files are unchanged (at
   * most 30 s), and skips repositories being synced; one check runs at a time.
   * Each state of a source's branches starts at most one sync, so a source
   * whose sync fails is retried only at its interval or when it moves again.
   * Resolves with the names whose sync it started (and waited for).
   */
  async syncMovedLocal(): Promise<string[]> {
    if (this.#checking || this.#abort.signal.aborted) return [];
    this.#checking = true;
    try {
      const moved: RepositoryRecord[] = [];
      for (const repo of this.#store.repositories()) {
        if (repo.disabled || !this.#owns(repo) || this.#busy.has(repo.id)) continue;
        if (!isAbsolute(repo.source) || repo.policy.branches.length === 0) continue;
        const commits = await this.#localCommits(repo);
        if (commits === null) continue;
        const heads = this.#store.heads(repo.id);
        const seen = commits.join(" ");
        // Synced once per state of the source: a sync that failed is not retried every check.
        if (this.#localSeen.get(repo.id) === seen) continue;
        if (repo.policy.branches.some((branch, i) => heads.get(branch) !== commits[i])) {
          this.#localSeen.set(repo.id, seen);
          moved.push(repo);
        }
      }
      for (const repo of moved) await this.sync(repo).catch(() => {});
      return moved.map((repo) => repo.name);
    } finally {
      this.#checking = false;
    }
  }

  // The commits of `repo`'s monitored branches in its local source: read by
  // Git, or the last read again while the source's ref files are unchanged
  // (stamped before the read, so a move during it shows at the next check).
  async #localCommits(repo: RepositoryRecord): Promise<string[] | null> {
    const stamp = await localRefStamp(repo.source, repo.policy.branches);
    const last = this.#localRead.get(repo.id);
    const now = Date.now();
    if (stamp !== null && last?.stamp === stamp && now - last.at < LOCAL_REREAD_MS) {
      return last.commits;
    }
    const commits = await localBranches(repo);
    if (stamp !== null && commits !== null) {
      this.#localRead.set(repo.id, { stamp, commits, at: now });
    } else this.#localRead.delete(repo.id);
    return commits;
  }

  /**
   * Stops for good: no more syncs, and a running fetch is killed (its
   * repository keeps its state and every retained version); resolves when
   * the running syncs ended.
   */
  async abort(): Promise<void> {
    this.stop();
    this.#abort.abort();
    await Promise.allSettled([...this.#running.values()]);
  }

  /** Syncs the enabled repositories whose interval has passed since their last sync started. */
  async syncDue(now: number): Promise<string[]> {
    const due = this.#store.repositories().filter((repo) =>
      !repo.disabled && this.#owns(repo) &&
      now - (this.#lastStarted.get(repo.id) ?? 0) >= repo.syncIntervalMinutes * 60_000
    );
    for (const repo of due) await this.sync(repo, { due: true }).catch(() => {});
    return due.map((repo) => repo.name);
  }

  /** Syncs every enabled repository, ignoring failures (they are logged). */
  async syncAll(): Promise<void> {
    for (const repo of this.#store.repositories()) {
      if (!repo.disabled && this.#owns(repo)) await this.sync(repo, { due: true }).catch(() => {});
    }
  }
}

/** A sync refused or cut because the service is stopping. */
export class SyncStopped extends Error {
  override readonly name = "SyncStopped";
  /** The one reason. */
  constructor() {
    super("the service is stopping");
  }
}

// The commits the monitored branches of a local source point to, in order;
// null when Git cannot read them (the source gone, a branch deleted): the
// interval sync reports that, a check never fetches.
async function localBranches(repo: RepositoryRecord): Promise<string[] | null> {
  const refs = repo.policy.branches.map((branch) => `refs/heads/${branch}`);
  let output: string;
  try {
    const result = await runGit(["-C", repo.source, "rev-parse", ...refs], {
      cwd: "/",
    });
    output = new TextDecoder().decode(result.stdout);
  } catch {
    return null;
  }
  return output.trim().split("\n");
}

/** A short, safe reason: the Git code and the last line Git wrote, without credentials. */
function failureReason(error: unknown): string {
  if (!(error instanceof GitError)) return "SYNC_FAILED";
  // Git's own reason is its first `fatal:` (or `error:`) line; the lines after it are advice
  // ("Please make sure you have the correct access rights / and the repository exists.").
  const lines = error.stderr.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  const reason = lines.find((line) => line.startsWith("fatal:")) ??
    lines.find((line) => line.startsWith("error:")) ?? lines.at(-1) ?? "";
  const safe = reason.replace(/\/\/[^/@\s]*@/g, "//").slice(0, 200);
  return safe === "" ? error.code : `${error.code}: ${safe}`;
}
