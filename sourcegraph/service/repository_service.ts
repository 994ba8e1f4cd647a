/**
 * The service's domain operations in one place for the edges (MCP tools,
 * the plain HTTP API, the admin API): each call checks the caller's
 * visibility, resolves the revision once and hands the work to the module
 * that does it. Results are structured, camelCase domain values; each edge
 * maps them to its own wire.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import { PathScope } from "../access/path_scope.ts";
import { Visibility, type VisibleRevision } from "../access/visibility.ts";
import { type ChangedPath, changedPaths } from "../git/changed_paths.ts";
import type { EntryKind } from "../git/mirror_objects.ts";
import { MirrorReaders } from "../git/mirror_readers.ts";
import type { SyncScheduler } from "../git/sync_scheduler.ts";
import type { Enrichment } from "../plugins/attachments.ts";
import type { PluginCatalog } from "../plugins/plugin_discovery.ts";
import type { EnhanceRequest } from "../plugins/plugin_host.ts";
import { DEFAULT_PLUGIN_SETTINGS, type PluginSettings } from "../plugins/plugin_settings.ts";
import { type FileRead, readFile, requestedRange, validatePath } from "../read/file_read.ts";
import { readMany, type ReadManyFile, type ReadManyItem } from "../read/read_many.ts";
import type { SearchOutcome, SearchRequest } from "../search/code_search.ts";
import { SharedSearches } from "../search/shared_searches.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";
import { type Page, pageByPath } from "./paging.ts";
import { prepareRepository, type PrepareResult } from "./prepare_jobs.ts";
import { RepositoryPlugins } from "./repository_plugins.ts";
import {
  type RepositoryAvailability,
  repositoryAvailability,
  type RepositoryPage,
  repositoryPage,
  type RepositorySummary,
  repositorySummary,
} from "./repository_summaries.ts";

/** One directory's entries at a commit, one page. */
export interface DirectoryListing extends Page {
  repo: string;
  commit: string;
  path: string;
  entries: { path: string; kind: EntryKind }[];
}

/** The paths changed between two commits, one page. */
export interface PathChanges extends Page {
  repo: string;
  base: string;
  head: string;
  changes: ChangedPath[];
}

/** A search's outcome at the commit it ran on. */
export interface SearchResult {
  repo: string;
  commit: string;
  outcome: SearchOutcome;
  /** The searched folders when path groups limit the repository, else null. */
  scope: string[] | null;
}

/** Availability, with the plugin catalog when asked for. */
export interface AvailabilityResult extends RepositoryAvailability {
  plugins?: PluginCatalog;
}

/** Operations on the registered repositories. */
export class RepositoryService {
  #store: ControlStore;
  #visibility: Visibility;
  #mirrors: MirrorReaders;
  #searches: SharedSearches;
  #plugins: RepositoryPlugins;

  /** Serves `store`'s repositories from mirrors in `dataDir`. */
  constructor(
    store: ControlStore,
    dataDir: string,
    options: {
      publicRead: boolean;
      searchCacheBytes?: number;
      plugins?: PluginSettings;
      debug?: (line: string) => void;
      log?: (line: string) => void;
      /** Hears of each search answered by joining an identical one already running. */
      onSearchShared?: () => void;
    },
  ) {
    this.#store = store;
    this.#visibility = new Visibility(store, { publicRead: options.publicRead });
    this.#mirrors = new MirrorReaders(dataDir);
    this.#searches = new SharedSearches(this.#mirrors, {
      cacheBytes: options.searchCacheBytes ?? 256 * 1024 * 1024,
      onShared: options.onSearchShared,
    });
    this.#plugins = new RepositoryPlugins(store, {
      visibility: this.#visibility,
      mirrors: this.#mirrors,
      dataDir,
      settings: options.plugins ?? DEFAULT_PLUGIN_SETTINGS,
      debug: options.debug,
      log: options.log,
    });
  }

  /** Whether `caller` may see `repo`. */
  visible(caller: Caller, repo: RepositoryRecord): boolean {
    return this.#visibility.visible(caller, repo);
  }

  /** Resolves a revision (omitted: the default branch) of a visible repository. */
  resolve(caller: Caller, request: { repo: string; revision?: string }): VisibleRevision {
    return this.#visibility.resolve(caller, request);
  }

  /** One read. */
  async read(
    caller: Caller,
    request: {
      repo: string;
      path: string;
      revision?: string;
      startLine?: number;
      endLine?: number;
    },
  ): Promise<FileRead> {
    const range = requestedRange(request.startLine, request.endLine);
    validatePath(request.path);
    const { repo, commit } = this.resolve(caller, request);
    const scope = new PathScope(repo);
    scope.require(request.path);
    const { file } = await readFile(this.#mirrors.objects(repo), {
      commit,
      path: request.path,
      range,
    });
    scope.require(file.path); // a symlink may not lead out of the groups
    return file;
  }

  /** Several reads at one resolved revision, sharing one budget, in request order. */
  async readMany(
    caller: Caller,
    request: { repo: string; revision?: string; files: ReadManyFile[] },
  ): Promise<{ commit: string; items: ReadManyItem[] }> {
    const { repo, commit } = this.resolve(caller, request);
    const items = await readMany(this.#mirrors.objects(repo), {
      commit,
      files: request.files,
      scope: new PathScope(repo),
    });
    return { commit, items };
  }

  /** Searches a visible repository at one resolved commit. */
  async search(
    caller: Caller,
    request: SearchRequest & { repo: string; revision?: string },
  ): Promise<SearchResult> {
    const { repo, commit } = this.resolve(caller, request);
    const scope = new PathScope(repo);
    for (const path of request.paths ?? []) validatePath(path.replace(/\/+$/, ""));
    const outcome = await this.#searches.search(repo, { ...request, commit, scope });
    return { repo: repo.name, commit, outcome, scope: scope.full ? null : scope.roots };
  }

  /** Changed paths between two resolved revisions, paged by path. */
  async diff(
    caller: Caller,
    request: {
      repo: string;
      base: string;
      head: string;
      first: number;
      paths?: string[];
      after?: string;
    },
  ): Promise<PathChanges> {
    const base = this.resolve(caller, { repo: request.repo, revision: request.base });
    const head = this.resolve(caller, { repo: request.repo, revision: request.head });
    const scope = new PathScope(base.repo);
    for (const path of request.paths ?? []) validatePath(path.replace(/\/+$/, ""));
    const changes = (await changedPaths(this.#mirrors.path(base.repo), {
      base: base.commit,
      head: head.commit,
      pathspecs: scope.scope(request.paths ?? []),
    })).filter((change) => scope.covers(change.path));
    const { items, ...page } = pageByPath(changes, request);
    return { repo: base.repo.name, base: base.commit, head: head.commit, changes: items, ...page };
  }

  /** Directory entries at a commit, paged by name. */
  async list(
    caller: Caller,
    request: { repo: string; revision?: string; path?: string; first: number; after?: string },
  ): Promise<DirectoryListing> {
    const path = request.path ?? "";
    if (path !== "") validatePath(path);
    const { repo, commit } = this.resolve(caller, request);
    const scope = new PathScope(repo);
    if (path !== "" && !scope.leadsInto(path)) scope.require(path);
    const entries = await this.#mirrors.objects(repo).directory(commit, path);
    if (entries === null) {
      throw new SourcegraphError("NOT_A_DIRECTORY", "the path is not a directory at this commit");
    }
    const listed = entries.map((entry) => ({
      path: path === "" ? entry.name : `${path}/${entry.name}`,
      kind: entry.kind,
    })).filter((entry) => scope.leadsInto(entry.path));
    const { items, ...page } = pageByPath(listed, request);
    return { repo: repo.name, commit, path, entries: items, ...page };
  }

  /** Repository summaries visible to `caller`, paged by name. */
  repositories(caller: Caller, options: { after?: string } = {}): RepositoryPage {
    return repositoryPage(this.#store, {
      visibility: this.#visibility,
      caller,
      after: options.after,
    });
  }

  /** A repository's summary (for callers that already hold its record). */
  summary(repo: RepositoryRecord): RepositorySummary {
    return repositorySummary(this.#store, repo);
  }

  /** Availability of a visible repository: summary, retained versions, plugins when asked. */
  async availability(
    caller: Caller,
    request: { repo: string; includePlugins?: boolean; revision?: string },
  ): Promise<AvailabilityResult> {
    const availability = repositoryAvailability(
      this.#store,
      this.#visibility.repository(caller, request.repo),
    );
    if (request.includePlugins !== true) return availability;
    return { ...availability, plugins: await this.#plugins.catalog(caller, request) };
  }

  /** The plugin catalog of a visible repository at a resolved revision. */
  pluginCatalog(
    caller: Caller,
    request: { repo: string; revision?: string },
  ): Promise<PluginCatalog> {
    return this.#plugins.catalog(caller, request);
  }

  /** What the selected plugins add to a read of `request.repo` at `request.commit`. */
  enhance(
    caller: Caller,
    request: EnhanceRequest & { repo: string; commit: string },
  ): Promise<Enrichment> {
    return this.#plugins.enhance(caller, request);
  }

  /** Checks that plugin sandboxes start; the reason when they cannot on this service. */
  probePluginSandbox(): Promise<string | null> {
    return this.#plugins.probeSandbox();
  }

  /** Compiles the default-enabled plugins at every head of `repo` (never running them). */
  precompilePlugins(repo: RepositoryRecord): Promise<number> {
    return this.#plugins.precompile(repo);
  }

  /** Syncs a repository now (service token only), idempotent per key. */
  prepare(
    caller: Caller,
    request: { repo: string; idempotencyKey: string; scheduler: SyncScheduler },
  ): Promise<PrepareResult> {
    return prepareRepository(caller, {
      ...request,
      store: this.#store,
      visibility: this.#visibility,
    });
  }

  /**
   * Deletes a repository: its registration, its object reader and caches
   * (they must never serve a later repository) and its mirror. REPOSITORY_BUSY
   * while plugins read it (a running plugin holds a lease on its objects).
   */
  async removeRepository(repo: RepositoryRecord): Promise<void> {
    if (this.#plugins.leased(repo.id)) {
      throw new SourcegraphError(
        "REPOSITORY_BUSY",
        "plugins are reading this repository; retry shortly",
      );
    }
    this.#store.remove(repo.id);
    this.#searches.forget(repo);
    await this.#mirrors.remove(repo);
  }

  /** Closes every object reader and sandbox. */
  async close(): Promise<void> {
    this.#plugins.close();
    await this.#mirrors.close();
  }
}
