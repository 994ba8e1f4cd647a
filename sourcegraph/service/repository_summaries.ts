/**
 * What a caller can learn about repositories without reading them: the
 * summary (state, index mode, observed heads, default branch, path groups),
 * pages of summaries, and availability (summary plus retained versions).
 *
 * @module
 */

import type { ScipSource } from "../search/scip/scip_derived.ts";
import type { Caller } from "../access/caller.ts";
import type { Visibility, VisibleRevision } from "../access/visibility.ts";
import type { PluginCatalog } from "../plugins/plugin_discovery.ts";
import type { ControlStore, PathGroup, RepositoryRecord } from "../store/control_store.ts";
import type { ServingState } from "./repository_router.ts";

/** Repositories listed per page. */
export const REPOSITORY_PAGE_SIZE = 100;

/** One repository as callers see it. */
export interface RepositorySummary {
  name: string;
  /** `disabled`, or the last sync outcome: `pending` (none yet), `ready` or `failed`. */
  state: string;
  lastSyncError: string | null;
  /** When the last sync outcome was recorded (ms since the epoch), null before the first. */
  lastSyncAt: number | null;
  /** Whether anonymous callers may read it (when public reads are on). */
  publicRead: boolean;
  indexMode: "full" | "monorepo";
  /** Observed head of each monitored branch. */
  heads: Record<string, string>;
  defaultBranch: string | null;
  pathGroups: PathGroup[];
}

/** One page of summaries, by name. */
export interface RepositoryPage {
  repositories: RepositorySummary[];
  /** The cursor of the next page, when there may be one. */
  nextCursor: string | null;
}

/** One retained (readable) version. */
export interface RetainedVersion {
  commit: string;
  committerTime: number | null;
}

/** A repository's summary and retained versions. */
export interface RepositoryAvailability {
  summary: RepositorySummary;
  versions: RetainedVersion[];
  /** Which fetch credential the repository has (never its value), or null. */
  credential: "https" | "ssh" | null;
}

/**
 * Whether searches of a version go through its search index now, in the
 * words of a search's `Index`: `ready`, or `not_ready` while it is being
 * built (or indexes are off) and searches read Git instead.
 */
export type VersionIndex = "ready" | "not_ready";

/** A retained version, whether its search index serves, and its SCIP index when one was uploaded. */
export interface AvailableVersion extends RetainedVersion {
  index: VersionIndex;
  scip?: ScipSource;
}

/** A resolved revision and whether its search index serves. */
export interface IndexedRevision extends VisibleRevision {
  index: VersionIndex;
}

/** Availability, with the plugin catalog when asked for, and in a cluster whether it is served. */
export interface AvailabilityResult extends RepositoryAvailability {
  versions: AvailableVersion[];
  plugins?: PluginCatalog;
  serving?: ServingState;
}

/** The summary of `repo`. */
export function repositorySummary(store: ControlStore, repo: RepositoryRecord): RepositorySummary {
  const sync = store.syncState(repo.id);
  return {
    name: repo.name,
    state: repo.disabled ? "disabled" : sync.state,
    lastSyncError: sync.lastError,
    lastSyncAt: sync.updatedAt,
    publicRead: repo.publicRead,
    indexMode: repo.pathGroups.length > 0 ? "monorepo" : "full",
    heads: Object.fromEntries(store.heads(repo.id)),
    defaultBranch: repo.policy.defaultBranch ?? null,
    pathGroups: repo.pathGroups,
  };
}

/** The summaries `caller` may see with names after `after`, one page. */
export function repositoryPage(
  store: ControlStore,
  options: { visibility: Visibility; caller: Caller; after?: string },
): RepositoryPage {
  const { visibility, caller, after } = options;
  const visible = store.repositories().filter((repo) => visibility.visible(caller, repo))
    .filter((repo) => after === undefined || repo.name > after);
  const page = visible.slice(0, REPOSITORY_PAGE_SIZE);
  return {
    repositories: page.map((repo) => repositorySummary(store, repo)),
    nextCursor: page.length === REPOSITORY_PAGE_SIZE ? page[page.length - 1].name : null,
  };
}

/** The availability of `repo`. */
export function repositoryAvailability(
  store: ControlStore,
  repo: RepositoryRecord,
  options: { credential?: "https" | "ssh" | null } = {},
): RepositoryAvailability {
  return {
    credential: options.credential ?? null,
    summary: repositorySummary(store, repo),
    versions: store.versions(repo.id).map((version) => ({
      commit: version.commit,
      committerTime: version.committerTime,
    })),
  };
}
