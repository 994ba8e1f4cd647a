/**
 * Runs repository syncs one at a time per repository (start-up, each
 * repository's own sync interval, and `prepare` all go through
 * here) and logs their progress, with the reason of a failure.
 *
 * @module
 */

import { GitError } from "../../shared/git.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import type { CredentialStore } from "./fetch_credentials.ts";
import { type SyncOutcome, syncRepository } from "./repository_sync.ts";

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

  /**
   * Syncs repositories of `store` into mirrors below `dataDir`, fetching
   * with `credentials`; `onSynced` hears of each success.
   */
  constructor(
    store: ControlStore,
    dataDir: string,
    options: {
      credentials: CredentialStore;
      log: (message: string) => void;
      onSynced?: (repo: RepositoryRecord) => void;
    },
  ) {
    this.#store = store;
    this.#dataDir = dataDir;
    this.#credentials = options.credentials;
    this.#log = options.log;
    this.#onSynced = options.onSynced ?? (() => {});
  }

  /** Syncs one repository after any sync of it already running. */
  sync(repo: RepositoryRecord): Promise<SyncOutcome> {
    this.#lastStarted.set(repo.id, Date.now());
    const previous = this.#running.get(repo.id) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(async () => {
      const signal = this.#abort.signal;
      if (signal.aborted) throw new SyncStopped();
      try {
        const outcome = await syncRepository(this.#store, repo, {
          dataDir: this.#dataDir,
          credentials: this.#credentials,
          signal,
        });
        const heads = Object.entries(outcome.heads).map(([b, c]) => `${b}@${c.slice(0, 12)}`);
        this.#log(
          `synced ${repo.name}: ${heads.join(", ")}${
            outcome.pruned ? `; pruned ${outcome.pruned}` : ""
          }`,
        );
        this.#onSynced(repo);
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
      !repo.disabled &&
      now - (this.#lastStarted.get(repo.id) ?? 0) >= repo.syncIntervalMinutes * 60_000
    );
    for (const repo of due) await this.sync(repo).catch(() => {});
    return due.map((repo) => repo.name);
  }

  /** Syncs every enabled repository, ignoring failures (they are logged). */
  async syncAll(): Promise<void> {
    for (const repo of this.#store.repositories()) {
      if (!repo.disabled) await this.sync(repo).catch(() => {});
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
