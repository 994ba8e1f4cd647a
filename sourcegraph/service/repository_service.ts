/**
 * The read side of the service: visibility, revision resolution and reads on
 * the retained versions of registered repositories. Results are structured;
 * the MCP layer renders them.
 *
 * @module
 */

import * as fs from "node:fs";
import type { Caller } from "../access/caller.ts";
import { changedPaths } from "../git/changed_paths.ts";
import { readMany, type ReadManyFile, type ReadManyItem } from "../read/read_many.ts";
import { pageByPath } from "./paging.ts";
import { searchCommit, type SearchOutcome, type SearchRequest } from "../search/code_search.ts";
import { MirrorObjects } from "../git/mirror_objects.ts";
import { CorpusCache } from "../search/search_corpus.ts";
import type { PluginCatalog } from "../plugins/plugin_discovery.ts";
import { type EnhanceRequest, PluginHost, type PluginTarget } from "../plugins/plugin_host.ts";
import type { Enrichment } from "../plugins/attachments.ts";
import { DEFAULT_PLUGIN_SETTINGS, type PluginSettings } from "../plugins/plugin_settings.ts";
import { PathScope } from "../access/path_scope.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";
import { type FileRead, readFile, requestedRange, validatePath } from "../read/file_read.ts";
import { mirrorPath } from "../git/repository_sync.ts";
import { type ResolvedRevision, resolveRevision } from "../access/revisions.ts";
import type { SyncScheduler } from "../git/sync_scheduler.ts";

/** Reads on the registered repositories. */
export class RepositoryService {
  #store: ControlStore;
  #dataDir: string;
  #publicRead: boolean;
  #trees = new Map<number, MirrorObjects>();
  #corpora: CorpusCache;
  #searches = new Map<string, Promise<SearchOutcome>>();
  #onSearchShared: () => void;
  #plugins: PluginHost;

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
    this.#dataDir = dataDir;
    this.#publicRead = options.publicRead;
    this.#plugins = new PluginHost(options.plugins ?? DEFAULT_PLUGIN_SETTINGS, {
      debug: options.debug,
      log: options.log,
    });
    this.#onSearchShared = options.onSearchShared ?? (() => {});
    this.#corpora = new CorpusCache(options.searchCacheBytes ?? 256 * 1024 * 1024);
  }

  /** Whether `caller` may see `repo`. */
  visible(caller: Caller, repo: RepositoryRecord): boolean {
    return caller.kind !== "anonymous" || (this.#publicRead && repo.public_read);
  }

  /** The repository `name`, or REPOSITORY_NOT_FOUND (also when not visible). */
  repository(caller: Caller, name: string): RepositoryRecord {
    const repo = this.#store.repository(name);
    if (!repo || !this.visible(caller, repo)) {
      throw new SourcegraphError("REPOSITORY_NOT_FOUND", "no such repository");
    }
    return repo;
  }

  /** Resolves a revision of a visible repository. */
  resolve(
    caller: Caller,
    name: string,
    revision?: string,
  ): ResolvedRevision & { repo: RepositoryRecord } {
    const repo = this.repository(caller, name);
    return { ...resolveRevision(this.#store, repo, revision), repo };
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
    const { repo, commit } = this.resolve(caller, request.repo, request.revision);
    const coverage = new PathScope(repo);
    coverage.require(request.path);
    const { file } = await readFile(this.#tree(repo), { commit, path: request.path, range });
    coverage.require(file.path); // a symlink may not lead out of the groups
    return file;
  }

  /** Several reads at one resolved revision, sharing one budget, in request order. */
  async readMany(
    caller: Caller,
    request: { repo: string; revision?: string; files: ReadManyFile[] },
  ): Promise<{ commit: string; items: ReadManyItem[] }> {
    const { repo, commit } = this.resolve(caller, request.repo, request.revision);
    const items = await readMany(this.#tree(repo), {
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
  ): Promise<{ repo: string; commit: string; outcome: SearchOutcome; coverage: string[] | null }> {
    const { repo, commit } = this.resolve(caller, request.repo, request.revision);
    const coverage = new PathScope(repo);
    for (const path of request.paths ?? []) validatePath(path.replace(/\/+$/, ""));
    const scoped = { ...request, paths: coverage.scope(request.paths ?? []) };
    const outcome = structuredClone(await this.#searchOnce(repo, commit, scoped));
    if (!coverage.full) {
      outcome.files = outcome.files.filter((file) => coverage.covers(file.path));
      outcome.fileCount = outcome.files.length;
      outcome.matchCount = outcome.files.reduce((sum, file) => sum + file.matchCount, 0);
    }
    return { repo: repo.name, commit, outcome, coverage: coverage.full ? null : coverage.roots };
  }

  /** Identical searches running at the same time share one computation. */
  #searchOnce(
    repo: RepositoryRecord,
    commit: string,
    request: SearchRequest,
  ): Promise<SearchOutcome> {
    const key = JSON.stringify([repo.id, commit, {
      pattern: request.pattern,
      fixed_strings: request.fixed_strings ?? false,
      ignore_case: request.ignore_case ?? false,
      glob: request.glob ?? [],
      paths: request.paths ?? [],
      max_lines_per_file: request.max_lines_per_file ?? 10,
    }]);
    const running = this.#searches.get(key);
    if (running) {
      this.#onSearchShared();
      return running;
    }
    const mirror = mirrorPath(this.#dataDir, repo);
    const search = (async () => {
      const corpus = await this.#corpora.get(mirror, commit).catch(() => null);
      return await searchCommit(mirror, this.#tree(repo), commit, request, corpus);
    })().finally(() => this.#searches.delete(key));
    this.#searches.set(key, search);
    return search;
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
  ): Promise<Record<string, unknown>> {
    const base = this.resolve(caller, request.repo, request.base);
    const head = this.resolve(caller, request.repo, request.head);
    const coverage = new PathScope(base.repo);
    for (const path of request.paths ?? []) validatePath(path.replace(/\/+$/, ""));
    const changes = (await changedPaths(mirrorPath(this.#dataDir, base.repo), {
      base: base.commit,
      head: head.commit,
      pathspecs: coverage.scope(request.paths ?? []),
    })).filter((change) => coverage.covers(change.path));
    const { page, more } = pageByPath(changes, request);
    return { repo: base.repo.name, base: base.commit, head: head.commit, changes: page, ...more };
  }

  /** Directory entries at a commit, paged by name. */
  async list(
    caller: Caller,
    request: { repo: string; revision?: string; path?: string; first: number; after?: string },
  ): Promise<Record<string, unknown>> {
    const path = request.path ?? "";
    if (path !== "") validatePath(path);
    const { repo, commit } = this.resolve(caller, request.repo, request.revision);
    const coverage = new PathScope(repo);
    if (path !== "" && !coverage.leadsInto(path)) coverage.require(path);
    const entries = await this.#tree(repo).directory(commit, path);
    if (entries === null) {
      throw new SourcegraphError(
        "NOT_A_DIRECTORY",
        "the path is not a directory at this commit",
      );
    }
    const listed = entries.map((entry) => ({
      path: path === "" ? entry.name : `${path}/${entry.name}`,
      kind: entry.kind,
    })).filter((entry) => coverage.leadsInto(entry.path));
    const { page, more } = pageByPath(listed, request);
    return { repo: repo.name, commit, path, entries: page, ...more };
  }

  /** Repository summaries visible to `caller`, paged by name (100 per page). */
  repositories(caller: Caller, after?: string): Record<string, unknown> {
    const visible = this.#store.repositories().filter((repo) => this.visible(caller, repo))
      .filter((repo) => after === undefined || repo.name > after);
    const page = visible.slice(0, 100);
    return {
      repositories: page.map((repo) => this.summary(repo)),
      ...(page.length === 100 ? { next_cursor: page[99].name } : {}),
    };
  }

  /** A repository's state, index mode, heads and default branch. */
  summary(repo: RepositoryRecord): Record<string, unknown> {
    const sync = this.#store.syncState(repo.id);
    return {
      repo: repo.name,
      state: repo.disabled ? "disabled" : sync.state,
      ...(sync.last_error !== null ? { last_sync_error: sync.last_error } : {}),
      index_mode: repo.path_groups.length > 0 ? "monorepo" : "full",
      heads: Object.fromEntries(this.#store.heads(repo.id)),
      ...(repo.policy.default_branch ? { default_branch: repo.policy.default_branch } : {}),
      ...(repo.path_groups.length > 0 ? { path_groups: repo.path_groups } : {}),
    };
  }

  /** The plugin catalog of a visible repository at a resolved revision. */
  async pluginCatalog(caller: Caller, name: string, revision?: string): Promise<PluginCatalog> {
    const { repo, commit } = this.resolve(caller, name, revision);
    return (await this.#plugins.catalog(this.#pluginTarget(caller, repo, commit))).catalog;
  }

  /** What the selected plugins add to a read of `request.repo` at `request.commit`. */
  async enhance(
    caller: Caller,
    request: EnhanceRequest & { repo: string; commit: string },
  ): Promise<Enrichment> {
    // Resolved again on purpose: the caller must still be allowed to read this commit.
    const { repo } = this.resolve(caller, request.repo, request.commit);
    return await this.#plugins.enhance(this.#pluginTarget(caller, repo, request.commit), request);
  }

  /** Checks that plugin sandboxes start; the reason when they cannot on this service. */
  probePluginSandbox(): Promise<string | null> {
    return this.#plugins.probeSandbox();
  }

  /** Compiles the default-enabled plugins at every head of `repo` (never running them). */
  async precompilePlugins(repo: RepositoryRecord): Promise<number> {
    let compiled = 0;
    for (const commit of new Set(this.#store.heads(repo.id).values())) {
      const target = this.#pluginTarget({ kind: "service" }, repo, commit);
      compiled += await this.#plugins.precompile(target).catch(() => 0);
    }
    return compiled;
  }

  #pluginTarget(caller: Caller, repo: RepositoryRecord, commit: string): PluginTarget {
    const groups = JSON.stringify(repo.path_groups);
    return {
      store: this.#dataDir,
      repo,
      commit,
      mirror: mirrorPath(this.#dataDir, repo),
      tree: this.#tree(repo),
      coverage: new PathScope(repo),
      recheck: () => {
        // Each host read re-checks that the caller may still read this commit and scope.
        const current = this.#store.repository(repo.name);
        if (
          !current || current.id !== repo.id || current.disabled ||
          !this.visible(caller, current) ||
          JSON.stringify(current.path_groups) !== groups ||
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

  /** Availability of a visible repository: summary plus retained versions (and plugins when asked). */
  async availabilityWithPlugins(
    caller: Caller,
    name: string,
    options: { includePlugins: boolean; revision?: string },
  ): Promise<Record<string, unknown>> {
    const base = this.availability(caller, name);
    if (!options.includePlugins) return base;
    return { ...base, plugins: await this.pluginCatalog(caller, name, options.revision) };
  }

  /** Availability of a visible repository: summary plus retained versions. */
  availability(caller: Caller, name: string): Record<string, unknown> {
    const repo = this.repository(caller, name);
    return {
      ...this.summary(repo),
      versions: this.#store.versions(repo.id).map((version) => ({
        commit: version.commit,
        indexed: true,
        ...(version.committer_time !== null ? { committer_time: version.committer_time } : {}),
      })),
      jobs: [],
    };
  }

  /**
   * Syncs a repository now (service token only). The idempotency key returns
   * the first result again for the same repository.
   */
  async prepare(
    caller: Caller,
    request: { repo: string; idempotency_key: string },
    scheduler: SyncScheduler,
  ): Promise<Record<string, unknown>> {
    if (caller.kind !== "service") {
      throw new SourcegraphError("FORBIDDEN", "prepare needs the service token");
    }
    const repo = this.repository(caller, request.repo);
    const key = request.idempotency_key;
    if (key.length < 8 || new TextEncoder().encode(key).length > 128) {
      throw new SourcegraphError(
        "INVALID_IDEMPOTENCY_KEY",
        "idempotency_key must be 8 to 128 bytes",
      );
    }
    const earlier = this.#store.job(`prepare:${key}`);
    if (earlier) {
      if (earlier.repository_id !== repo.id) {
        throw new SourcegraphError(
          "IDEMPOTENCY_KEY_REUSED",
          "this key was used for another request",
        );
      }
      return JSON.parse(earlier.result);
    }
    let result: Record<string, unknown>;
    try {
      const outcome = await scheduler.sync(repo);
      result = {
        job_id: key,
        repo: repo.name,
        state: "succeeded",
        heads: outcome.heads,
        pruned: outcome.pruned,
      };
    } catch {
      result = { job_id: key, repo: repo.name, state: "failed", code: "SYNC_FAILED" };
    }
    this.#store.saveJob(`prepare:${key}`, repo.id, {
      result: JSON.stringify(result),
      requestHash: null,
    });
    return result;
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
    await this.#forget(repo);
    fs.rmSync(mirrorPath(this.#dataDir, repo), { recursive: true, force: true });
  }

  async #forget(repo: RepositoryRecord): Promise<void> {
    const tree = this.#trees.get(repo.id);
    this.#trees.delete(repo.id);
    this.#corpora.forget(mirrorPath(this.#dataDir, repo));
    await tree?.close();
  }

  /** Closes every object reader. */
  async close(): Promise<void> {
    this.#plugins.close();
    for (const tree of this.#trees.values()) await tree.close();
    this.#trees.clear();
  }

  #tree(repo: RepositoryRecord): MirrorObjects {
    let tree = this.#trees.get(repo.id);
    if (!tree) {
      tree = new MirrorObjects(mirrorPath(this.#dataDir, repo));
      this.#trees.set(repo.id, tree);
    }
    return tree;
  }
}
