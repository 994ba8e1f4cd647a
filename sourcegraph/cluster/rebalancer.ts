/**
 * Keeps this replica's disk in line with placement. After any change of
 * membership, pins, holdings or a repository's versions, one pass:
 *
 * - a repository this replica owns but does not hold in full is synced
 *   (as an owner: it follows the store's versions, from a holder first),
 *   again for the same versions only after 30 s;
 * - a copy this replica holds but no longer owns is dropped once every
 *   owner holds the repository in full, so reads never lose their last
 *   holder during a move;
 * - a mirror of a repository the store no longer has (deleted through
 *   another replica) is removed.
 *
 * Passes never overlap; a change during a pass runs another after it.
 *
 * @module
 */

import * as fs from "node:fs";
import { join } from "node:path";
import type { FetchCredentials } from "../store/fetch_credentials.ts";
import type { SyncScheduler } from "../git/sync_scheduler.ts";
import type { RepositoryLifecycle } from "../service/repository_lifecycle.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { type Cluster, covers } from "./cluster.ts";
import { CoalescedPasses } from "./coalesced_passes.ts";

/** How soon a fill that left the same versions missing is tried again. */
const RETRY_MS = 30_000;

/** The rebalancer of one replica. */
export class Rebalancer {
  #store: ControlStore;
  #cluster: Cluster;
  #scheduler: SyncScheduler;
  #lifecycle: RepositoryLifecycle;
  #files: FetchCredentials;
  #dataDir: string;
  #log: (line: string) => void;
  #passes: CoalescedPasses;
  #attempts = new Map<number, { wanted: string; at: number }>();
  #drained: (repositoryId: number) => Promise<void>;

  /** Rebalances the mirrors below `dataDir`. */
  constructor(
    store: ControlStore,
    parts: {
      cluster: Cluster;
      scheduler: SyncScheduler;
      lifecycle: RepositoryLifecycle;
      files: FetchCredentials;
      dataDir: string;
      log: (line: string) => void;
      /** Resolves when no call runs on this replica's copy of a repository. */
      drained: (repositoryId: number) => Promise<void>;
    },
  ) {
    this.#store = store;
    this.#cluster = parts.cluster;
    this.#scheduler = parts.scheduler;
    this.#lifecycle = parts.lifecycle;
    this.#files = parts.files;
    this.#dataDir = parts.dataDir;
    this.#log = parts.log;
    this.#passes = new CoalescedPasses(() => this.#pass(), {
      onError: (error) =>
        this.#log(`rebalancing stopped early (${error.message}); retrying on the next change`),
    });
    this.#drained = parts.drained;
  }

  /** Asks for a pass soon (changes that arrive together share one). */
  trigger(): void {
    this.#passes.trigger();
  }

  /** Runs a pass now (or after the running one); resolves when it is done. */
  run(): Promise<void> {
    return this.#passes.run();
  }

  /** No more passes; resolves when the running one ends. */
  stop(): Promise<void> {
    return this.#passes.stop();
  }

  async #pass(): Promise<void> {
    const repositories = this.#store.repositories().filter((repo) => !repo.disabled);
    for (const repo of repositories) {
      if (this.#passes.stopped) return;
      const retained = this.#store.versions(repo.id).map((version) => version.commit);
      if (this.#cluster.owns(repo)) {
        // A repository with no version yet is the scheduler's (registration, interval): syncing
        // it here would retry a failing upstream on every change its own failure notifies.
        if (retained.length > 0 && !covers(this.#cluster.held(repo.id), retained)) {
          await this.#fill(repo, retained);
        }
      } else if (this.#cluster.held(repo.id).length > 0 || fs.existsSync(this.#mirror(repo.id))) {
        await this.#dropIfCovered(repo, retained);
      }
    }
    await this.#removeDeleted(new Set(this.#store.repositories().map((repo) => repo.id)));
  }

  // Syncs an owned repository this replica does not hold in full, at most once per
  // `RETRY_MS` for the same retained versions (versions nobody can provide stay missing).
  async #fill(repo: RepositoryRecord, retained: string[]): Promise<void> {
    const wanted = retained.join(",");
    const last = this.#attempts.get(repo.id);
    if (last && last.wanted === wanted && Date.now() - last.at < RETRY_MS) return;
    this.#attempts.set(repo.id, { wanted, at: Date.now() });
    await this.#scheduler.sync(repo, { due: true }).catch(() => {}); // logged there
  }

  async #dropIfCovered(repo: RepositoryRecord, retained: string[]): Promise<void> {
    const owners = this.#cluster.owners(repo);
    if (!owners.every((owner) => covers(this.#cluster.held(repo.id, owner), retained))) return;
    await this.#cluster.hold(repo.id, []);
    await this.#drained(repo.id); // reads that started here finish on the copy
    await this.#lifecycle.dropLocalCopy(repo);
    await this.#files.remove(repo.id);
    this.#log(`dropped the copy of ${repo.name}: it is held by ${owners.join(", ")}`);
  }

  async #removeDeleted(known: Set<number>): Promise<void> {
    const folder = join(this.#dataDir, "mirrors");
    let names: string[];
    try {
      names = fs.readdirSync(folder);
    } catch {
      return;
    }
    for (const name of names) {
      const match = /^(\d+)\.git$/.exec(name);
      if (!match || known.has(Number(match[1]))) continue;
      const id = Number(match[1]);
      const gone = { id, name: `#${id}` } as RepositoryRecord;
      await this.#lifecycle.dropLocalCopy(gone).catch(() => {});
      await this.#files.remove(id);
      this.#log(`removed the copy of deleted repository #${id}`);
    }
  }

  #mirror(id: number): string {
    return join(this.#dataDir, "mirrors", `${id}.git`);
  }
}
