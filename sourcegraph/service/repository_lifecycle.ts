/**
 * What happens to a repository's local copy over its life, apart from
 * reading it: its search index built after a sync, its plugins compiled
 * ahead of the first read, the copy dropped (a cluster moved it) or the
 * repository removed, and, when the service stops, the background work
 * stopped and every object reader, sandbox and index closed. `compose.ts`
 * builds it once; the sync scheduler, the plugin warm-up, the operator's
 * side, the cluster and `main.ts` call it.
 *
 * @module
 */

import type { MirrorReaders } from "../git/mirror_readers.ts";
import type { SearchIndexes } from "../search/search_indexes.ts";
import type { ScipIndexes } from "../search/scip/scip_store.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import type { CredentialStore } from "../store/fetch_credentials.ts";
import { SourcegraphError } from "../errors.ts";
import type { RepositoryPlugins } from "./repository_plugins.ts";

/**
 * The lifecycle of the repositories' local copies: indexes, plugin
 * precompilation, removal, and closing what the copies hold open.
 *
 * @example
 * ```ts ignore
 * const { lifecycle } = composeServices(settings, { log: console.error, pluginRoom });
 * const problem = await lifecycle.probePluginSandbox(); // null: sandboxes start
 * await lifecycle.indexRepository(repo); // after a sync
 * await lifecycle.removeRepository(repo); // REPOSITORY_BUSY while plugins read it
 * await lifecycle.close();
 * ```
 */
export class RepositoryLifecycle {
  #store: ControlStore;
  #mirrors: MirrorReaders;
  #indexes: SearchIndexes;
  #plugins: RepositoryPlugins;
  #credentials: CredentialStore;
  #scip: ScipIndexes | null;

  /** Manages the local copies of `store`'s repositories through the collaborators `compose.ts` built. */
  constructor(
    store: ControlStore,
    parts: {
      mirrors: MirrorReaders;
      indexes: SearchIndexes;
      plugins: RepositoryPlugins;
      credentials: CredentialStore;
      /** The uploaded SCIP indexes (removed with the repository, pruned with its versions). */
      scip?: ScipIndexes;
    },
  ) {
    this.#store = store;
    this.#mirrors = parts.mirrors;
    this.#indexes = parts.indexes;
    this.#plugins = parts.plugins;
    this.#credentials = parts.credentials;
    this.#scip = parts.scip ?? null;
  }

  /** Checks that plugin sandboxes start; the reason when they cannot on this service. */
  probePluginSandbox(): Promise<string | null> {
    return this.#plugins.probeSandbox();
  }

  /** Compiles the default-enabled plugins at every head of `repo` (never running them). */
  precompilePlugins(repo: RepositoryRecord): Promise<number> {
    return this.#plugins.precompile(repo);
  }

  /**
   * Deletes a repository: its registration, its object reader and caches
   * (they must never serve a later repository) and its mirror. REPOSITORY_BUSY
   * while plugins read it (a running plugin holds a lease on its objects).
   */
  async removeRepository(repo: RepositoryRecord): Promise<void> {
    this.#refuseWhileLeased(repo);
    await this.#store.remove(repo.id);
    await this.#credentials.remove(repo.id);
    await this.#indexes.remove(repo);
    this.#scip?.remove(repo.id);
    await this.#mirrors.remove(repo);
  }

  /**
   * Indexes `repo`'s retained versions for search in the background (those
   * not indexed yet) and drops the search and SCIP indexes of pruned ones;
   * resolves when done.
   */
  indexRepository(repo: RepositoryRecord): Promise<void> {
    const retained = this.#store.versions(repo.id).map((version) => version.commit);
    this.#scip?.prune(repo.id, retained);
    return this.#indexes.schedule(repo, retained);
  }

  /**
   * Drops this replica's copy of `repo` (index, SCIP indexes, object reader,
   * mirror) while its registration stays (another replica holds it now);
   * REPOSITORY_BUSY while plugins read it.
   */
  async dropLocalCopy(repo: RepositoryRecord): Promise<void> {
    this.#refuseWhileLeased(repo);
    await this.#indexes.remove(repo);
    this.#scip?.remove(repo.id); // copies of the shared ones: copied again if it holds it again
    await this.#mirrors.remove(repo);
  }

  /** Stops background work (index builds) while requests in flight go on. */
  stopBackground(): Promise<void> {
    return this.#indexes.stopBuilds();
  }

  /** Closes every object reader, sandbox and index. */
  async close(): Promise<void> {
    this.#plugins.close();
    await this.#indexes.close();
    await this.#mirrors.close();
  }

  // A running plugin holds a lease on the repository's objects: its copy stays until it ends.
  #refuseWhileLeased(repo: RepositoryRecord): void {
    if (this.#plugins.leased(repo.id)) {
      throw new SourcegraphError(
        "REPOSITORY_BUSY",
        "plugins are reading this repository; retry shortly",
      );
    }
  }
}
