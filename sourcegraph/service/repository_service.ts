/**
 * The read side of the service for the edges (MCP tools, the plain HTTP
 * API, the pages): every call is checked against what its caller may see and
 * handed to the module that does the work (`compose.ts` builds the
 * collaborators). Results are structured, camelCase domain values; each edge
 * maps them to its own wire. It only reads: what happens to the local copies
 * (indexing, plugin precompilation, removal, closing) is
 * `repository_lifecycle.ts`.
 *
 * @module
 */

import type { ScipSource } from "../search/scip/scip_derived.ts";
import {
  type FanoutCharge,
  type FanoutSearchRequest,
  type FanoutSearchResult,
  RepositoryFanout,
} from "./repository_fanout.ts";
import { CommitFanout, type CommitSearchPage, type CommitSearchRequest } from "./commit_fanout.ts";
import {
  type FanoutSymbolsPage,
  type FanoutSymbolsRequest,
  SymbolFanout,
} from "./symbol_fanout.ts";
import type { Caller } from "../access/caller.ts";
import type { Visibility, VisibleRevision } from "../access/visibility.ts";
import type { CredentialStore } from "../store/fetch_credentials.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";
import { LOCAL_ROUTER, type RepositoryRouter } from "./repository_router.ts";
import { routeCalls, type RoutedCalls } from "./routed_calls.ts";
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
 * calls it with the request's `Caller`. The calls that need a mirror are
 * `calls` (`routed_calls.ts`), each run where the router decides.
 *
 * @example
 * ```ts ignore
 * const { repositories } = composeServices(settings, { log: console.error });
 * const caller: Caller = { kind: "anonymous" };
 * const { commit } = repositories.resolve(caller, { repo: "org/app" });
 * const file = await repositories.calls.read(caller, {
 *   repo: "org/app",
 *   revision: commit,
 *   path: "src/main.ts",
 *   startLine: 1,
 *   endLine: 40,
 * });
 * const found = await repositories.calls.search(caller, { repo: "org/app", pattern: "TODO" });
 * ```
 */
export class RepositoryService {
  #store: ControlStore;
  #visibility: Visibility;
  #fanout: RepositoryFanout;
  #symbolFanout: SymbolFanout;
  #commitFanout: CommitFanout;
  #credentials: CredentialStore;
  #router: RepositoryRouter;
  #local: RoutedCalls;
  #calls: RoutedCalls;

  /**
   * Serves `store`'s repositories through collaborators built once
   * (`compose.ts`); `calls` are the mirror reads as they run here, and
   * `router` decides where they run (default: here).
   */
  constructor(
    store: ControlStore,
    parts: {
      visibility: Visibility;
      credentials: CredentialStore;
      calls: RoutedCalls;
      router?: RepositoryRouter;
    },
  ) {
    this.#store = store;
    this.#visibility = parts.visibility;
    this.#credentials = parts.credentials;
    this.#fanout = new RepositoryFanout(store, {
      visibility: parts.visibility,
      searchOne: (caller, request) => this.#calls.search(caller, request),
    });
    this.#symbolFanout = new SymbolFanout(store, {
      visibility: parts.visibility,
      lookUpOne: (caller, request) => this.#calls.symbols(caller, request),
    });
    this.#commitFanout = new CommitFanout(store, {
      visibility: parts.visibility,
      one: (caller, request) => this.#calls.commits(caller, request),
    });
    this.#local = parts.calls;
    this.#router = parts.router ?? LOCAL_ROUTER;
    this.#calls = routeCalls(this.#local, this.#router);
  }

  /** Replaces the router (a cluster's is built after the service it forwards for). */
  useRouter(router: RepositoryRouter): void {
    this.#router = router;
    this.#calls = routeCalls(this.#local, router);
  }

  /**
   * The calls that need a repository's mirror (reads, searches, symbols,
   * listings, diffs, history, plugins), each run where the router decides.
   */
  get calls(): RoutedCalls {
    return this.#calls;
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

  /**
   * One page of a commit search over one repository, several (names and
   * globs) or every visible one (null), each through `commits`; `charge` is
   * paid for each repository of a selection before it is searched.
   */
  searchCommits(
    caller: Caller,
    request: CommitSearchRequest,
    options: FanoutCharge = {},
  ): Promise<CommitSearchPage> {
    return this.#commitFanout.commits(caller, request, options);
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
    const scip = await this.#versionScip(caller, request);
    const availability: AvailabilityResult = {
      ...retained,
      versions: retained.versions.map((version) => ({
        ...version,
        index: indexes[version.commit] ?? "not_ready",
        ...(scip[version.commit] ? { scip: scip[version.commit] } : {}),
      })),
      ...(serving ? { serving } : {}),
    };
    if (request.includePlugins !== true) return availability;
    return { ...availability, plugins: await this.#calls.pluginCatalog(caller, request) };
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
   * Whether each retained version's search index serves, where searches of
   * the repository run (so `availability` and `search` agree); in a cluster
   * with no live replica holding it, none does.
   */
  // The versions with a SCIP index where the repository's reads run (none when no replica holds it).
  async #versionScip(
    caller: Caller,
    request: { repo: string },
  ): Promise<Record<string, ScipSource>> {
    try {
      return await this.#calls.versionScip(caller, { repo: request.repo });
    } catch (error) {
      if (error instanceof SourcegraphError && error.code === "DEPENDENCY_UNAVAILABLE") return {};
      throw error;
    }
  }

  async #versionIndexesServed(
    caller: Caller,
    request: { repo: string },
  ): Promise<Record<string, VersionIndex>> {
    try {
      return await this.#calls.versionIndexes(caller, request);
    } catch (error) {
      if (error instanceof SourcegraphError && error.code === "DEPENDENCY_UNAVAILABLE") return {};
      throw error;
    }
  }
}
