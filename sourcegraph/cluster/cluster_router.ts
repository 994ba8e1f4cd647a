/**
 * Routing mirror reads in a cluster. The replica that received a request
 * has checked its caller; a call for a repository this replica holds in
 * full (every retained version the store lists) runs here. Otherwise it
 * goes, as the same call with the same caller, to the live holders in
 * order (complete ones first, owners first, by placement rank): one that
 * does not answer, or answers that it no longer holds the repository, is
 * skipped for the next, since reads change nothing. A repository no live
 * replica holds is `DEPENDENCY_UNAVAILABLE` until an owner has filled it.
 * Nothing here asks PostgreSQL: the view and the store are caches.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import { SourcegraphError } from "../errors.ts";
import type { RepositoryRouter, RoutedCall, ServingState } from "../service/repository_router.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { type Cluster, covers, type Holder } from "./cluster.ts";
import { type RemoteCalls, ReplicaUnreachable } from "./remote_calls.ts";

/** How long a replica that failed a forwarded call is asked last. */
const SUSPECT_MS = 5_000;

/** The router of a replica. */
export class ClusterRouter implements RepositoryRouter {
  #store: ControlStore;
  #cluster: Cluster;
  #visibility: { visible(caller: Caller, repo: RepositoryRecord): boolean };
  #remote: RemoteCalls;
  #suspects = new Map<string, number>();
  #now: () => number;
  #inFlight = new Map<number, number>();

  /** Routes over `cluster`'s view of `store`'s repositories. */
  constructor(
    store: ControlStore,
    parts: {
      cluster: Cluster;
      visibility: { visible(caller: Caller, repo: RepositoryRecord): boolean };
      remote: RemoteCalls;
      now?: () => number;
    },
  ) {
    this.#store = store;
    this.#cluster = parts.cluster;
    this.#visibility = parts.visibility;
    this.#remote = parts.remote;
    this.#now = parts.now ?? Date.now;
  }

  /** Runs `call` here when this replica holds its repository, else on a holder. */
  async route<T>(call: RoutedCall, local: () => Promise<T>): Promise<T> {
    const repo = this.#store.repository(call.repo);
    // Unknown, invisible or disabled: the local call gives the same answer everywhere.
    if (!repo || repo.disabled || !this.#visibility.visible(call.caller, repo)) return local();
    const retained = this.#retained(repo);
    const mine = this.#cluster.held(repo.id);
    if (retained.length === 0 || covers(mine, retained)) return this.runLocal(repo.id, local);
    for (const holder of this.#ordered(this.#cluster.holders(repo, retained))) {
      if (holder.name === this.#cluster.self) continue;
      try {
        return await this.#remote.call(holder, { ...call, partial: !holder.complete }) as T;
      } catch (error) {
        if (!retryElsewhere(error)) throw error;
        this.#suspects.set(holder.name, this.#now() + SUSPECT_MS);
      }
    }
    if (mine.length > 0) return this.runLocal(repo.id, local);
    throw new SourcegraphError(
      "DEPENDENCY_UNAVAILABLE",
      "no live replica holds this repository right now (an owner is filling it); retry shortly",
    );
  }

  /** Whether the live replicas can serve `repo` now, from this replica's view. */
  serving(repo: RepositoryRecord): ServingState {
    // A holder that just failed a call counts as gone until the view catches up.
    const now = this.#now();
    const holders = this.#cluster.holders(repo, this.#retained(repo)).filter((holder) =>
      holder.name === this.#cluster.self || (this.#suspects.get(holder.name) ?? 0) <= now
    );
    const complete = holders.filter((holder) => holder.complete).length;
    return {
      state: complete > 0 ? "ready" : holders.length > 0 ? "filling" : "unavailable",
      holders: complete,
    };
  }

  /**
   * Whether this replica serves a call another forwarded: it holds every
   * retained version, or (`partial`) at least one.
   */
  accepts(call: { repo: string; caller: Caller; partial: boolean }): boolean {
    const repo = this.#store.repository(call.repo);
    if (!repo) return true; // the call answers "not found", as every replica would
    const mine = this.#cluster.held(repo.id);
    return call.partial ? mine.length > 0 : covers(mine, this.#retained(repo));
  }

  /** Runs `work` on this replica's copy of a repository, which is not dropped meanwhile. */
  async runLocal<T>(repositoryId: number, work: () => Promise<T>): Promise<T> {
    this.#inFlight.set(repositoryId, (this.#inFlight.get(repositoryId) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const left = this.#inFlight.get(repositoryId)! - 1;
      if (left === 0) this.#inFlight.delete(repositoryId);
      else this.#inFlight.set(repositoryId, left);
    }
  }

  /**
   * Resolves when no call runs on this replica's copy of a repository (a
   * copy about to be dropped: new calls already go elsewhere), or after
   * `maxWaits` short pauses.
   */
  async drained(repositoryId: number, maxWaits = 1_500): Promise<void> {
    for (let i = 0; i < maxWaits && this.#inFlight.has(repositoryId); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  #retained(repo: RepositoryRecord): string[] {
    return this.#store.versions(repo.id).map((version) => version.commit);
  }

  // Replicas that failed lately go last (they may be dead; the view lags by an expiry).
  #ordered(holders: Holder[]): Holder[] {
    const now = this.#now();
    const suspect = (holder: Holder) => (this.#suspects.get(holder.name) ?? 0) > now;
    return [...holders.filter((holder) => !suspect(holder)), ...holders.filter(suspect)];
  }
}

// Reads change nothing: one a holder could not answer (gone, or its Git failed) goes to the next.
function retryElsewhere(error: unknown): boolean {
  return error instanceof ReplicaUnreachable ||
    (error instanceof SourcegraphError && error.code === "DEPENDENCY_UNAVAILABLE");
}
