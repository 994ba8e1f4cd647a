/**
 * Where a call that needs a repository's mirror runs. In the single process
 * every call runs here; in a cluster (`cluster/cluster_router.ts`) a call
 * for a repository this replica does not hold goes to a live replica that
 * does, as the same call, with the caller it was checked for. The calls
 * are those of `routed_calls.ts` (its `routeCalls` wraps them all alike).
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import type { RepositoryRecord } from "../store/control_store.ts";

/** A call to route: its method, caller, repository name and request (plain JSON). */
export interface RoutedCall {
  /** The name of one of the routed calls (`routed_calls.ts`). */
  method: string;
  caller: Caller;
  repo: string;
  request: unknown;
}

/**
 * Whether a cluster can serve a repository now: `ready` (a live replica
 * holds every retained version), `filling` (live replicas hold some of
 * them; an owner is filling the rest) or `unavailable` (no live replica
 * holds it; reads fail until an owner has filled it).
 */
export interface ServingState {
  state: "ready" | "filling" | "unavailable";
  /** Live replicas holding every retained version. */
  holders: number;
}

/** Decides where a routed call runs. */
export interface RepositoryRouter {
  /** Runs `call` here (`local`) or on a replica that holds its repository. */
  route<T>(call: RoutedCall, local: () => Promise<T>): Promise<T>;
  /** The cluster's serving state of `repo` (null: a single process, which serves what it has). */
  serving(repo: RepositoryRecord): ServingState | null;
}

/** Every call runs here (the single process). */
export const LOCAL_ROUTER: RepositoryRouter = {
  route: (_call, local) => local(),
  serving: () => null,
};
