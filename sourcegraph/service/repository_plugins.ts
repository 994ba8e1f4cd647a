/**
 * Plugins of visible repositories: the catalog at a resolved revision,
 * enrichment of reads (each host read re-checks that the caller may still
 * read that commit and scope), the sandbox probe and warm-up compiles.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import { PathScope } from "../access/path_scope.ts";
import type { Visibility } from "../access/visibility.ts";
import type { MirrorReaders } from "../git/mirror_readers.ts";
import type { Enrichment } from "../plugins/attachments.ts";
import type { PluginCatalog } from "../plugins/plugin_discovery.ts";
import { type EnhanceRequest, PluginHost } from "../plugins/plugin_host.ts";
import type { PluginTarget } from "../plugins/plugin_runs.ts";
import type { PluginSettings } from "../plugins/plugin_settings.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";

/** The plugin host over the registered repositories. */
export class RepositoryPlugins {
  #store: ControlStore;
  #visibility: Visibility;
  #mirrors: MirrorReaders;
  #dataDir: string;
  #host: PluginHost;

  /** Runs plugins of `store`'s repositories read through `mirrors`. */
  constructor(
    store: ControlStore,
    options: {
      visibility: Visibility;
      mirrors: MirrorReaders;
      /** The data folder (catalog and instance caches are keyed per store). */
      dataDir: string;
      settings: PluginSettings;
      debug?: (line: string) => void;
      log?: (line: string) => void;
    },
  ) {
    this.#store = store;
    this.#visibility = options.visibility;
    this.#mirrors = options.mirrors;
    this.#dataDir = options.dataDir;
    this.#host = new PluginHost(options.settings, { debug: options.debug, log: options.log });
  }

  /** The catalog of the visible repository `request.repo` at a resolved revision. */
  async catalog(
    caller: Caller,
    request: { repo: string; revision?: string },
  ): Promise<PluginCatalog> {
    const { repo, commit } = this.#visibility.resolve(caller, request);
    return (await this.#host.catalog(this.#target(caller, repo, commit))).catalog;
  }

  /** What the selected plugins add to a read of `request.repo` at `request.commit`. */
  async enhance(
    caller: Caller,
    request: EnhanceRequest & { repo: string; commit: string },
  ): Promise<Enrichment> {
    // Resolved again on purpose: the caller must still be allowed to read this commit.
    const { repo } = this.#visibility.resolve(caller, {
      repo: request.repo,
      revision: request.commit,
    });
    return await this.#host.enhance(this.#target(caller, repo, request.commit), request);
  }

  /** Whether plugins are reading repository `id` (it may not be deleted meanwhile). */
  leased(id: number): boolean {
    return this.#host.leased(id);
  }

  /** Checks that plugin sandboxes start; the reason when they cannot on this service. */
  probeSandbox(): Promise<string | null> {
    return this.#host.probeSandbox();
  }

  /** Compiles the default-enabled plugins at every head of `repo` (never running them). */
  async precompile(repo: RepositoryRecord): Promise<number> {
    let compiled = 0;
    for (const commit of new Set(this.#store.heads(repo.id).values())) {
      const target = this.#target({ kind: "service" }, repo, commit);
      compiled += await this.#host.precompile(target).catch(() => 0);
    }
    return compiled;
  }

  /** Kills every sandbox process. */
  close(): void {
    this.#host.close();
  }

  #target(caller: Caller, repo: RepositoryRecord, commit: string): PluginTarget {
    const groups = JSON.stringify(repo.pathGroups);
    return {
      store: this.#dataDir,
      repo,
      commit,
      tree: this.#mirrors.objects(repo),
      scope: new PathScope(repo),
      recheck: () => {
        // Each host read re-checks that the caller may still read this commit and scope.
        const current = this.#store.repository(repo.name);
        if (
          !current || current.id !== repo.id || current.disabled ||
          !this.#visibility.visible(caller, current) ||
          JSON.stringify(current.pathGroups) !== groups ||
          !this.#store.versions(repo.id).some((version) => version.commit === commit)
        ) {
          throw new SourcegraphError(
            "PLUGIN_SCOPE_CHANGED",
            "the repository scope changed during the run",
          );
        }
      },
    };
  }
}
