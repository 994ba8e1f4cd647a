/**
 * The service composed once, for `main.ts` and the tests alike: the control
 * store, mirrors and their readers, fetch credentials, search indexes and
 * shared searches, plugins, the sync scheduler and the plugin warm-up, the
 * lifecycle of the local copies (`RepositoryLifecycle`: indexing after a
 * sync, plugin precompilation, removal, closing), and the two services the
 * edges call: the read side (`RepositoryService`) and the operator's side
 * (`AdminService`).
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { DEFAULT_PLUGIN_SETTINGS } from "../plugins/plugin_settings.ts";
 *
 * const dataDir = await Deno.makeTempDir(); // a new data folder: no repository yet
 * const services = composeServices({
 *   dataDir,
 *   publicRead: true,
 *   searchIndex: true,
 *   plugins: DEFAULT_PLUGIN_SETTINGS,
 * }, {
 *   log: console.error,
 *   // The room reads leave plugin attachments (the MCP edge passes its own).
 *   pluginRoom: { read: () => 4096, readMany: () => 4096 },
 * });
 * await services.scheduler.syncAll();
 * // … serve services.repositories and services.admin …
 * assert.deepStrictEqual(services.store.repositories(), []);
 * await services.close();
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 *
 * @module
 */

import { ChunkScanner } from "../search/scan/chunk_scanner.ts";
import { ReferenceParser } from "./name_references.ts";
import { join } from "node:path";
import { Visibility } from "../access/visibility.ts";
import { type CredentialStore, FetchCredentials } from "../store/fetch_credentials.ts";
import { CommitLogs } from "../git/commit_log.ts";
import { MirrorReaders } from "../git/mirror_readers.ts";
import { SyncScheduler } from "../git/sync_scheduler.ts";
import type { PluginSettings } from "../plugins/plugin_settings.ts";
import { PluginWarmup } from "../plugins/plugin_warmup.ts";
import { SearchIndexes } from "../search/search_indexes.ts";
import { ScipIndexes } from "../search/scip/scip_store.ts";
import { ScipJobs } from "../search/scip/scip_jobs.ts";
import type {
  BuilderCommand,
  BuilderJob,
  BuilderLauncher,
} from "../search/build/builder_command.ts";
import { SharedSearches } from "../search/shared_searches.ts";
import type { ControlStore } from "../store/control_store.ts";
import { SqliteControlStore } from "../store/sqlite_control_store.ts";
import { AdminService } from "./admin_service.ts";
import { RepositoryLifecycle } from "./repository_lifecycle.ts";
import { RepositoryCommits } from "./repository_commits.ts";
import { RepositoryPlugins } from "./repository_plugins.ts";
import { RepositoryService } from "./repository_service.ts";
import { localCalls, type PluginRoom, type RoutedCalls } from "./routed_calls.ts";

/** What the composition needs to know. */
export interface CompositionSettings {
  /** The data folder (control store, mirrors, indexes, credentials). */
  dataDir: string;
  /** Anonymous reads of public repositories. */
  publicRead: boolean;
  /** Whether searches use (and syncs build) the on-disk trigram index. */
  searchIndex: boolean;
  /** How often local-path sources are checked for moved branches (default 0: never). */
  localCheckMs?: number;
  /** MiB of posting lists the index builder holds before writing them (default `DEFAULT_HELD_POSTINGS_MIB`). */
  indexBuildPostingsMib?: number;
  /** MiB the open index commits may take (default `DEFAULT_INDEX_CACHE_MIB`). */
  indexCacheMib?: number;
  /** How long an index build may report nothing before it is stopped (default `DEFAULT_BUILD_IDLE_MS`). */
  indexBuildIdleMs?: number;
  /** How long a build runs alone before the next repository's starts beside it (default `DEFAULT_BUILD_SLICE_MS`). */
  indexBuildSliceMs?: number;
  /** How long each commit's symbol extraction may take (default `DEFAULT_SYMBOL_BUDGET_MS`). */
  symbolBudgetMs?: number;
  /** The plugin host's limits. */
  plugins: PluginSettings;
}

/** Where the service keeps what it must not lose: the control store and the fetch credentials. */
export interface Stores {
  store: ControlStore;
  credentials: CredentialStore;
}

/**
 * The single process's stores: the SQLite file `control.sqlite3` and the
 * credential files of the data folder (opened, or refused, here).
 */
export function localStores(dataDir: string): Stores {
  return {
    store: new SqliteControlStore(join(dataDir, "control.sqlite3")),
    credentials: new FetchCredentials(dataDir),
  };
}

/** The composed service. */
export interface Services {
  store: ControlStore;
  /** The fetch credentials (files here, or sealed in the shared store). */
  credentials: CredentialStore;
  /** The read side: reads, searches, listings, diffs, availability, pages' data. */
  repositories: RepositoryService;
  /**
   * The local copies' lifecycle: indexing, plugin precompilation and the
   * sandbox probe, removal, dropping a copy, closing.
   */
  lifecycle: RepositoryLifecycle;
  /**
   * The calls that need a mirror as they run here, never routed (what
   * `repositories` routes, and what calls other replicas forward run).
   */
  localCalls: RoutedCalls;
  /** The operator's side: registrations, credentials, syncs, keys, idempotency. */
  admin: AdminService;
  scheduler: SyncScheduler;
  warmup: PluginWarmup;
  /** The uploaded SCIP indexes kept here (in a cluster, copies of the shared ones). */
  scip: ScipIndexes;
  /** Ends background work at once (syncs, index builds, warm-up); requests in flight go on. */
  stopBackground(): Promise<void>;
  /** Closes readers, sandboxes and indexes, then the control store. */
  close(): Promise<void>;
}

/**
 * Builds the service over the data folder of `settings`, with the given
 * stores or, by default, the data folder's own (`localStores`).
 *
 * @param settings The data folder and the behaviour settings.
 * @param options `log` for the operator's log; `debug` adds per-plugin-run
 *   lines; `onSearchShared` hears of searches answered by an identical one;
 *   `stores` replaces the local stores (a shared PostgreSQL one);
 *   `indexBuilder` replaces the index builder's command (default `builderCommand`);
 *   `launchIndexBuilder` starts builders other than as processes (the tests' in-process services);
 *   `pluginRoom` is the room reads' answers leave plugin attachments (the MCP edge's);
 *   `references` replaces the references parse limits (default `REFERENCES_FILE_MS` per file,
 *   `REFERENCES_PARSE_MS` per page, `REFERENCES_QUEUED_MS` waiting for a parsing worker).
 * @returns The services, ready to sync and serve.
 */
// One function on purpose: every collaborator is built here, in the order
// each needs the others, so the wiring reads top to bottom in one place.
// deno-lint-ignore function-length/max-lines
export function composeServices(
  settings: CompositionSettings,
  options: {
    log: (line: string) => void;
    debug?: (line: string) => void;
    onSearchShared?: () => void;
    stores?: Stores;
    indexBuilder?: (job: BuilderJob) => BuilderCommand;
    launchIndexBuilder?: BuilderLauncher;
    pluginRoom: PluginRoom;
    references?: { fileMs?: number; pageMs?: number; queuedMs?: number };
  },
): Services {
  const { dataDir } = settings;
  const { store, credentials } = options.stores ?? localStores(dataDir);
  const visibility = new Visibility(store, { publicRead: settings.publicRead });
  const mirrors = new MirrorReaders(dataDir);
  const indexes = new SearchIndexes(dataDir, {
    enabled: settings.searchIndex,
    heldPostingsMib: settings.indexBuildPostingsMib,
    cacheMib: settings.indexCacheMib,
    buildIdleMs: settings.indexBuildIdleMs,
    buildSliceMs: settings.indexBuildSliceMs,
    symbolBudgetMs: settings.symbolBudgetMs,
    mirrors,
    log: options.log,
    builder: options.indexBuilder,
    launchBuilder: options.launchIndexBuilder,
  });
  const scip = new ScipIndexes(dataDir, { log: options.log });
  // Uploaded SCIP indexes are decoded in a worker of their own.
  const scipJobs = new ScipJobs({ log: options.log });
  // Searches that read many chunks read them in workers (one per core, at most 4).
  const scanner = new ChunkScanner({
    workers: Math.min(4, Math.max(1, navigator.hardwareConcurrency ?? 2)),
    log: options.log,
  });
  const searches = new SharedSearches(mirrors, {
    indexes,
    scanner,
    onShared: options.onSearchShared,
  });
  const plugins = new RepositoryPlugins(store, {
    visibility,
    mirrors,
    dataDir,
    settings: settings.plugins,
    debug: options.debug,
    log: options.log,
  });
  // Files parsed for `references` are parsed in a worker of their own.
  const parser = new ReferenceParser({ ...options.references, log: options.log });
  // Commit searches keep a log per set of heads, read again after a sync once searched.
  const commits = new RepositoryCommits(store, { visibility, mirrors, logs: new CommitLogs() });
  const calls = localCalls(store, {
    visibility,
    mirrors,
    indexes,
    searches,
    plugins,
    pluginRoom: options.pluginRoom,
    parser,
    commits,
    scip,
  });
  const repositories = new RepositoryService(store, { visibility, credentials, calls });
  const lifecycle = new RepositoryLifecycle(store, {
    mirrors,
    indexes,
    plugins,
    credentials,
    scip,
  });
  const warmup = pluginWarmup(store, { lifecycle, settings, log: options.log });
  const scheduler = new SyncScheduler(store, dataDir, {
    credentials,
    log: options.log,
    localCheckMs: settings.localCheckMs,
    onSynced: (repo) => {
      warmup.notify(repo.id);
      void lifecycle.indexRepository(repo);
      commits.refresh(repo);
    },
  });
  const admin = new AdminService(store, {
    lifecycle,
    credentials,
    scheduler,
    visibility,
    scip: {
      mirrors,
      indexes: scip,
      jobs: scipJobs,
      // Checked where the repository is held (in a cluster, perhaps another replica).
      unknownFiles: (caller, request) => repositories.calls.scipUnknownFiles(caller, request),
    },
  });
  return {
    store,
    credentials,
    repositories,
    lifecycle,
    localCalls: calls,
    admin,
    scheduler,
    warmup,
    scip,
    async stopBackground() {
      warmup.stop();
      await Promise.all([scheduler.abort(), lifecycle.stopBackground()]);
    },
    async close() {
      scanner.close();
      parser.close();
      scipJobs.close();
      warmup.stop();
      scheduler.stop();
      await lifecycle.close();
      await store.close(); // SQLite checkpoints its WAL into the store file
    },
  };
}

// Precompiles the default-enabled plugins of a repository after its syncs.
function pluginWarmup(
  store: ControlStore,
  at: {
    lifecycle: RepositoryLifecycle;
    settings: CompositionSettings;
    log: (line: string) => void;
  },
): PluginWarmup {
  return new PluginWarmup(async (id) => {
    const repo = store.repositories().find((candidate) => candidate.id === id);
    if (!repo || repo.disabled || at.settings.plugins.disabled) return;
    const compiled = await at.lifecycle.precompilePlugins(repo);
    if (compiled > 0) at.log(`plugins of ${repo.name} precompiled: ${compiled} module(s)`);
  }, () => store.repositories().map((repo) => repo.id));
}
