/**
 * The read side of the service for the edges (MCP tools, the plain HTTP
 * API, the pages): every call is checked against what its caller may see and
 * handed to the module that does the work (`compose.ts` builds the
 * collaborators). Results are structured, camelCase domain values; each edge
 * maps them to its own wire.
 *
 * @module
 */

import {
  type FanoutCharge,
  type FanoutSearchRequest,
  type FanoutSearchResult,
  RepositoryFanout,
} from "./repository_fanout.ts";
import { RepositorySymbols, type SymbolsPage, type SymbolsRequest } from "./repository_symbols.ts";
import {
  type FanoutSymbolsPage,
  type FanoutSymbolsRequest,
  SymbolFanout,
} from "./symbol_fanout.ts";
import type { Caller } from "../access/caller.ts";
import type { Visibility, VisibleRevision } from "../access/visibility.ts";
import { commitSubjects } from "../git/commit_subjects.ts";
import type { CredentialStore } from "../store/fetch_credentials.ts";
import type { MirrorReaders } from "../git/mirror_readers.ts";
import type { Enrichment } from "../plugins/attachments.ts";
import type { PluginCatalog } from "../plugins/plugin_discovery.ts";
import type { EnhanceRequest } from "../plugins/plugin_host.ts";
import type { FilePage } from "../read/file_page.ts";
import type { FileRead } from "../read/file_read.ts";
import type { ReadManyItem } from "../read/read_many.ts";
import type { SharedSearches } from "../search/shared_searches.ts";
import type { SearchIndexes } from "../search/search_indexes.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";
import {
  type DiffRequest,
  type DirectoryListing,
  type ListRequest,
  type LocatedCitation,
  type LocateRequest,
  type PathChanges,
  type RawFile,
  type ReadManyRequest,
  type ReadRequest,
  RepositoryReads,
  type RepositorySearchRequest,
  type SearchResult,
} from "./repository_reads.ts";
import type { RepositoryPlugins } from "./repository_plugins.ts";
import {
  LOCAL_ROUTER,
  type RepositoryRouter,
  ROUTED_METHODS,
  type RoutedMethod,
} from "./repository_router.ts";
import {
  type AvailabilityResult,
  type IndexedRevision,
  repositoryAvailability,
  type RepositoryPage,
  repositoryPage,
  type RepositorySummary,
  repositorySummary,
  type RetainedVersion,
  type VersionIndex,
} from "./repository_summaries.ts";

/**
 * The read side: what a caller may see of the registered repositories and
 * reads at resolved commits, each checked against the caller and the path
 * groups. Built by `compose.ts`; every edge (MCP, the HTTP API, the pages)
 * calls it with the request's `Caller`.
 *
 * @example
 * ```ts ignore
 * const { repositories } = composeServices(settings, { log: console.error });
 * const caller: Caller = { kind: "anonymous" };
 * const { commit } = repositories.resolve(caller, { repo: "org/app" });
 * const file = await repositories.read(caller, {
 *   repo: "org/app",
 *   revision: commit,
 *   path: "src/main.ts",
 *   startLine: 1,
 *   endLine: 40,
 * });
 * const found = await repositories.search(caller, { repo: "org/app", pattern: "TODO" });
 * ```
 */
export class RepositoryService {
  #store: ControlStore;
  #visibility: Visibility;
  #mirrors: MirrorReaders;
  #searches: SharedSearches;
  #indexes: SearchIndexes;
  #reads: RepositoryReads;
  #symbols: RepositorySymbols;
  #fanout: RepositoryFanout;
  #symbolFanout: SymbolFanout;
  #plugins: RepositoryPlugins;
  #credentials: CredentialStore;
  #router: RepositoryRouter;
  #local: RoutedCalls;

  /**
   * Serves `store`'s repositories through collaborators built once
   * (`compose.ts`); `router` decides where mirror reads run (default: here).
   */
  constructor(
    store: ControlStore,
    parts: {
      visibility: Visibility;
      mirrors: MirrorReaders;
      indexes: SearchIndexes;
      searches: SharedSearches;
      plugins: RepositoryPlugins;
      credentials: CredentialStore;
      router?: RepositoryRouter;
    },
  ) {
    this.#store = store;
    this.#visibility = parts.visibility;
    this.#mirrors = parts.mirrors;
    this.#indexes = parts.indexes;
    this.#searches = parts.searches;
    this.#plugins = parts.plugins;
    this.#credentials = parts.credentials;
    this.#reads = new RepositoryReads(parts.visibility, {
      mirrors: parts.mirrors,
      searches: parts.searches,
    });
    this.#symbols = new RepositorySymbols(parts.visibility, { searches: parts.searches });
    this.#fanout = new RepositoryFanout(store, {
      visibility: parts.visibility,
      searchOne: (caller, request) => this.search(caller, request),
    });
    this.#symbolFanout = new SymbolFanout(store, {
      visibility: parts.visibility,
      lookUpOne: (caller, request) => this.symbols(caller, request),
    });
    this.#router = parts.router ?? LOCAL_ROUTER;
    this.#local = this.#localCalls();
  }

  /** Replaces the router (a cluster's is built after the service it forwards for). */
  useRouter(router: RepositoryRouter): void {
    this.#router = router;
  }

  /**
   * Runs a call another replica forwarded, here and only here (never
   * forwarded again); INVALID_REQUEST for a method that is not routed.
   */
  serveForwarded(method: string, caller: Caller, request: unknown): Promise<unknown> {
    if (!(ROUTED_METHODS as readonly string[]).includes(method)) {
      throw new SourcegraphError("INVALID_REQUEST", "no such forwarded call");
    }
    // deno-lint-ignore no-explicit-any
    return (this.#local[method as RoutedMethod] as any)(caller, request);
  }

  #route<T>(
    method: RoutedMethod,
    caller: Caller,
    request: { repo: string },
    local: () => Promise<T>,
  ): Promise<T> {
    return this.#router.route({ method, caller, repo: request.repo, request }, local);
  }

  /** Whether `caller` may see `repo`. */
  visible(caller: Caller, repo: RepositoryRecord): boolean {
    return this.#visibility.visible(caller, repo);
  }

  /** Which fetch credential `repo` has, never its value. */
  credentialKind(repo: RepositoryRecord): "https" | "ssh" | null {
    return this.#credentials.kind(repo.id);
  }

  /** Resolves a revision (omitted: the default branch) of a visible repository. */
  resolve(caller: Caller, request: { repo: string; revision?: string }): VisibleRevision {
    return this.#visibility.resolve(caller, request);
  }

  /**
   * Resolves a revision as `resolve` does, and says whether its search index
   * serves, asked where the repository's searches run (as `availability`).
   */
  async resolveIndexed(
    caller: Caller,
    request: { repo: string; revision?: string },
  ): Promise<IndexedRevision> {
    const resolved = this.resolve(caller, request);
    const indexes = await this.#versionIndexesServed(caller, { repo: request.repo });
    return { ...resolved, index: indexes[resolved.commit] ?? "not_ready" };
  }

  /** One read. */
  read(caller: Caller, request: ReadRequest): Promise<FileRead> {
    return this.#route("read", caller, request, () => this.#local.read(caller, request));
  }

  /** One page of a file for people (up to 5,000 lines from `startLine`). */
  readPage(
    caller: Caller,
    request: { repo: string; path: string; revision?: string; startLine: number },
  ): Promise<FilePage> {
    return this.#route("readPage", caller, request, () => this.#local.readPage(caller, request));
  }

  /** A file's bytes as committed, base64 (for the raw route). */
  readRaw(
    caller: Caller,
    request: { repo: string; path: string; revision?: string },
  ): Promise<RawFile> {
    return this.#route("readRaw", caller, request, () => this.#local.readRaw(caller, request));
  }

  /** Several reads at one resolved revision, sharing one budget, in request order. */
  readMany(
    caller: Caller,
    request: ReadManyRequest,
  ): Promise<{ commit: string; items: ReadManyItem[] }> {
    return this.#route("readMany", caller, request, () => this.#local.readMany(caller, request));
  }

  /** Searches a visible repository at one resolved commit. */
  search(caller: Caller, request: RepositorySearchRequest): Promise<SearchResult> {
    return this.#route("search", caller, request, () => this.#local.search(caller, request));
  }

  /**
   * Searches several repositories (names and globs; none: every visible
   * one), each through `search` at its pinned commit; `charge` is paid for
   * each repository before it is searched.
   */
  searchRepositories(
    caller: Caller,
    request: FanoutSearchRequest,
    options: FanoutCharge = {},
  ): Promise<FanoutSearchResult> {
    return this.#fanout.search(caller, request, options);
  }

  /** One page of the definitions a symbol lookup selects at one resolved commit. */
  symbols(caller: Caller, request: SymbolsRequest): Promise<SymbolsPage> {
    return this.#route("symbols", caller, request, () => this.#local.symbols(caller, request));
  }

  /**
   * One page of the definitions a symbol lookup selects across several
   * repositories (names and globs; none: every visible one), each through
   * `symbols` at its pinned commit; `charge` is paid for each repository
   * before it is looked up.
   */
  symbolsAcrossRepositories(
    caller: Caller,
    request: FanoutSymbolsRequest,
    options: FanoutCharge = {},
  ): Promise<FanoutSymbolsPage> {
    return this.#symbolFanout.symbols(caller, request, options);
  }

  /** Changed paths between two resolved revisions, paged by path. */
  diff(caller: Caller, request: DiffRequest): Promise<PathChanges> {
    return this.#route("diff", caller, request, () => this.#local.diff(caller, request));
  }

  /** Where a cited span is at a later revision (both retained versions). */
  locate(caller: Caller, request: LocateRequest): Promise<LocatedCitation> {
    return this.#route("locate", caller, request, () => this.#local.locate(caller, request));
  }

  /** Directory entries at a commit, paged by name. */
  list(caller: Caller, request: ListRequest): Promise<DirectoryListing> {
    return this.#route("list", caller, request, () => this.#local.list(caller, request));
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
    const repo = this.#visibility.repository(caller, request.repo);
    const serving = this.#router.serving(repo);
    const retained = repositoryAvailability(this.#store, repo, {
      credential: this.#credentials.kind(repo.id),
    });
    const indexes = await this.#versionIndexesServed(caller, request);
    const availability: AvailabilityResult = {
      ...retained,
      versions: retained.versions.map((version) => ({
        ...version,
        index: indexes[version.commit] ?? "not_ready",
      })),
      ...(serving ? { serving } : {}),
    };
    if (request.includePlugins !== true) return availability;
    return { ...availability, plugins: await this.pluginCatalog(caller, request) };
  }

  /** The retained versions of a visible repository, newest first. */
  retainedVersions(caller: Caller, request: { repo: string }): RetainedVersion[] {
    const repo = this.#visibility.repository(caller, request.repo);
    return repositoryAvailability(this.#store, repo).versions;
  }

  /** The monitored branches of a visible repository. */
  monitoredBranches(caller: Caller, request: { repo: string }): string[] {
    return [...this.#visibility.repository(caller, request.repo).policy.branches];
  }

  /**
   * Retained versions of a visible repository, newest first, with their
   * subjects: `first` of them after skipping `skip`, and how many there are.
   */
  versionHistory(
    caller: Caller,
    request: { repo: string; first: number; skip?: number },
  ): Promise<VersionHistory> {
    return this.#route(
      "versionHistory",
      caller,
      request,
      () => this.#local.versionHistory(caller, request),
    );
  }

  /**
   * Whether each retained version's search index serves, where searches of
   * the repository run (so `availability` and `search` agree); in a cluster
   * with no live replica holding it, none does.
   */
  async #versionIndexesServed(
    caller: Caller,
    request: { repo: string },
  ): Promise<Record<string, VersionIndex>> {
    try {
      return await this.#route(
        "versionIndexes",
        caller,
        request,
        () => this.#local.versionIndexes(caller, request),
      );
    } catch (error) {
      if (error instanceof SourcegraphError && error.code === "DEPENDENCY_UNAVAILABLE") return {};
      throw error;
    }
  }

  /** The plugin catalog of a visible repository at a resolved revision. */
  pluginCatalog(
    caller: Caller,
    request: { repo: string; revision?: string },
  ): Promise<PluginCatalog> {
    return this.#route(
      "pluginCatalog",
      caller,
      request,
      () => this.#local.pluginCatalog(caller, request),
    );
  }

  /** What the selected plugins add to a read of `request.repo` at `request.commit`. */
  enhance(
    caller: Caller,
    request: EnhanceRequest & { repo: string; commit: string },
  ): Promise<Enrichment> {
    return this.#route("enhance", caller, request, () => this.#local.enhance(caller, request));
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
    if (this.#plugins.leased(repo.id)) {
      throw new SourcegraphError(
        "REPOSITORY_BUSY",
        "plugins are reading this repository; retry shortly",
      );
    }
    await this.#store.remove(repo.id);
    await this.#credentials.remove(repo.id);
    await this.#indexes.remove(repo);
    await this.#mirrors.remove(repo);
  }

  /**
   * Indexes `repo`'s retained versions for search in the background (those
   * not indexed yet) and drops the index of pruned ones; resolves when done.
   */
  indexRepository(repo: RepositoryRecord): Promise<void> {
    return this.#indexes.schedule(
      repo,
      this.#store.versions(repo.id).map((version) => version.commit),
    );
  }

  /**
   * Drops this replica's copy of `repo` (index, object reader, mirror) while
   * its registration stays (another replica holds it now); REPOSITORY_BUSY
   * while plugins read it.
   */
  async dropLocalCopy(repo: RepositoryRecord): Promise<void> {
    if (this.#plugins.leased(repo.id)) {
      throw new SourcegraphError(
        "REPOSITORY_BUSY",
        "plugins are reading this repository; retry shortly",
      );
    }
    await this.#indexes.remove(repo);
    await this.#mirrors.remove(repo);
  }

  #versionIndexes(caller: Caller, request: { repo: string }): Record<string, VersionIndex> {
    const repo = this.#visibility.repository(caller, request.repo);
    return Object.fromEntries(
      this.#store.versions(repo.id).map((version) => [
        version.commit,
        this.#indexes.serves(repo, version.commit) ? "ready" : "not_ready",
      ]),
    );
  }

  async #versionHistory(
    caller: Caller,
    request: { repo: string; first: number; skip?: number },
  ): Promise<VersionHistory> {
    const repo = this.#visibility.repository(caller, request.repo);
    const all = repositoryAvailability(this.#store, repo).versions;
    const skip = request.skip ?? 0;
    const versions = all.slice(skip, skip + request.first);
    const subjects = await commitSubjects(
      this.#mirrors.path(repo),
      versions.map((version) => version.commit),
    ).catch(() => new Map<string, string>()); // a version pruned meanwhile: shown without one
    return {
      total: all.length,
      versions: versions.map((version) => ({
        commit: version.commit,
        committerTime: version.committerTime,
        subject: subjects.get(version.commit) ?? null,
      })),
    };
  }

  // The mirror reads, run here: the targets of `#route` and of forwarded calls.
  #localCalls(): RoutedCalls {
    return {
      read: (caller, request) => this.#reads.read(caller, request),
      readPage: (caller, request) => this.#reads.readPage(caller, request),
      readRaw: (caller, request) => this.#reads.readRaw(caller, request),
      readMany: (caller, request) => this.#reads.readMany(caller, request),
      search: (caller, request) => this.#reads.search(caller, request),
      symbols: (caller, request) => this.#symbols.symbols(caller, request),
      diff: (caller, request) => this.#reads.diff(caller, request),
      locate: (caller, request) => this.#reads.locate(caller, request),
      list: (caller, request) => this.#reads.list(caller, request),
      versionHistory: (caller, request) => this.#versionHistory(caller, request),
      versionIndexes: (caller, request) => Promise.resolve(this.#versionIndexes(caller, request)),
      pluginCatalog: (caller, request) => this.#plugins.catalog(caller, request),
      enhance: (caller, request) => this.#plugins.enhance(caller, request),
    };
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
}

/** Retained versions with their subjects, one page of them. */
export interface VersionHistory {
  total: number;
  versions: { commit: string; committerTime: number | null; subject: string | null }[];
}

// The signature of each routed call.
interface RoutedCalls {
  read(caller: Caller, request: ReadRequest): Promise<FileRead>;
  readPage(
    caller: Caller,
    request: { repo: string; path: string; revision?: string; startLine: number },
  ): Promise<FilePage>;
  readRaw(
    caller: Caller,
    request: { repo: string; path: string; revision?: string },
  ): Promise<RawFile>;
  readMany(
    caller: Caller,
    request: ReadManyRequest,
  ): Promise<{ commit: string; items: ReadManyItem[] }>;
  search(caller: Caller, request: RepositorySearchRequest): Promise<SearchResult>;
  symbols(caller: Caller, request: SymbolsRequest): Promise<SymbolsPage>;
  diff(caller: Caller, request: DiffRequest): Promise<PathChanges>;
  locate(caller: Caller, request: LocateRequest): Promise<LocatedCitation>;
  list(caller: Caller, request: ListRequest): Promise<DirectoryListing>;
  versionHistory(
    caller: Caller,
    request: { repo: string; first: number; skip?: number },
  ): Promise<VersionHistory>;
  versionIndexes(caller: Caller, request: { repo: string }): Promise<Record<string, VersionIndex>>;
  pluginCatalog(
    caller: Caller,
    request: { repo: string; revision?: string },
  ): Promise<PluginCatalog>;
  enhance(
    caller: Caller,
    request: EnhanceRequest & { repo: string; commit: string },
  ): Promise<Enrichment>;
}
