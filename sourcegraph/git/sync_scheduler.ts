/**
 * Runs repository syncs one at a time per repository (start-up, each
 * repository's own sync interval, and `prepare` all go through
 * here) and logs their progress, with the reason of a failure.
 *
 * @module
 */

import { GitError } from "../../shared/git.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import type { CredentialStore } from "../store/fetch_credentials.ts";
import { type SyncOutcome, syncRepository } from "./repository_sync.ts";

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
    },
  ) {
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
    return run;
  }

  /**
   * Syncs as one replica of a cluster from now on: `runner` runs each sync,
   * `owns` picks the repositories synced here on their interval.
   */
  coordinate(options: { runner: SyncRunner; owns: (repo: RepositoryRecord) => boolean }): void {
    this.#runner = options.runner;
    this.#owns = options.owns;
  }

  /** Checks every 30 s which repositories are due by their own interval, and syncs them. */
  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.syncDue(Date.now()), 30_000);
    Deno.unrefTimer(this.#timer);
  }

  /** Stops the interval syncs. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
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

/** A short, safe reason: the Git code and the last line Git wrote, without credentials. */
function failureReason(error: unknown): string {
  if (!(error instanceof GitError)) return "SYNC_FAILED";
  const last = error.stderr.trim().split("\n").pop()?.trim() ?? "";
  const safe = last.replace(/\/\/[^/@\s]*@/g, "//").slice(0, 200);
  return safe === "" ? error.code : `${error.code}: ${safe}`;
}
