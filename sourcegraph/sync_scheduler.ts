/**
 * Runs repository syncs one at a time per repository (start-up, the
 * interval, and `prepare` all go through here) and logs their progress.
 *
 * @module
 */

import type { ControlStore, RepositoryRecord } from "./control_store.ts";
import { type SyncOutcome, syncRepository } from "./repository_sync.ts";

/** Serialized syncs. */
export class SyncScheduler {
  #store: ControlStore;
  #dataDir: string;
  #log: (message: string) => void;
  #running = new Map<number, Promise<unknown>>();
  #onSynced: (repo: RepositoryRecord) => void;

  /** Syncs repositories of `store` into mirrors below `dataDir`; `onSynced` hears of each success. */
  constructor(
    store: ControlStore,
    dataDir: string,
    options: { log: (message: string) => void; onSynced?: (repo: RepositoryRecord) => void },
  ) {
    this.#store = store;
    this.#dataDir = dataDir;
    this.#log = options.log;
    this.#onSynced = options.onSynced ?? (() => {});
  }

  /** Syncs one repository after any sync of it already running. */
  sync(repo: RepositoryRecord): Promise<SyncOutcome> {
    const previous = this.#running.get(repo.id) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(async () => {
      try {
        const outcome = await syncRepository(this.#store, this.#dataDir, repo);
        const heads = Object.entries(outcome.heads).map(([b, c]) => `${b}@${c.slice(0, 12)}`);
        this.#log(
          `synced ${repo.name}: ${heads.join(", ")}${
            outcome.pruned ? `; pruned ${outcome.pruned}` : ""
          }`,
        );
        this.#onSynced(repo);
        return outcome;
      } catch (error) {
        this.#log(`sync of ${repo.name} failed; retained versions stay readable`);
        throw error;
      }
    });
    this.#running.set(repo.id, run);
    return run;
  }

  /** Syncs every enabled repository, ignoring failures (they are logged). */
  async syncAll(): Promise<void> {
    for (const repo of this.#store.repositories()) {
      if (!repo.disabled) await this.sync(repo).catch(() => {});
    }
  }
}
