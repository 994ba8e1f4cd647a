/**
 * The compact JSON the MCP tools answer with (and the admin API, whose
 * bodies use the same snake_case names), mapped from the domain results.
 * Optional fields are left out rather than sent as null.
 *
 * @module
 */

import { utf8Length } from "../../shared/text.ts";
import type { PluginCatalog } from "../plugins/plugin_discovery.ts";
import { metadataDocument } from "../plugins/wasm/wasm_metadata.ts";
import type { Page } from "../service/paging.ts";
import type { PrepareResult } from "../service/admin_service.ts";
import type { DirectoryListing, PathChanges } from "../service/repository_reads.ts";
import type {
  AvailabilityResult,
  IndexedRevision,
  RepositoryPage,
  RepositorySummary,
} from "../service/repository_summaries.ts";

type Json = Record<string, unknown>;

/** One repository summary. */
export function summaryJson(summary: RepositorySummary): Json {
  return {
    repo: summary.name,
    state: summary.state,
    ...(summary.lastSyncError !== null ? { last_sync_error: summary.lastSyncError } : {}),
    index_mode: summary.indexMode,
    heads: summary.heads,
    ...(summary.defaultBranch !== null ? { default_branch: summary.defaultBranch } : {}),
    ...(summary.pathGroups.length > 0 ? { path_groups: summary.pathGroups } : {}),
  };
}

/** A page of repositories. */
export function repositoryPageJson(page: RepositoryPage): Json {
  return {
    repositories: page.repositories.map(summaryJson),
    ...(page.nextCursor !== null ? { next_cursor: page.nextCursor } : {}),
  };
}

/** Availability, with the catalog when it was asked for. */
export function availabilityJson(availability: AvailabilityResult): Json {
  return {
    ...summaryJson(availability.summary),
    versions: availability.versions.map((version) => ({
      commit: version.commit,
      // `indexed` keeps the field clients know, now true only while the index serves.
      indexed: version.index === "ready",
      index: version.index,
      ...(version.committerTime !== null ? { committer_time: version.committerTime } : {}),
      ...(version.scip ? { scip: { tool: version.scip.tool, version: version.scip.version } } : {}),
    })),
    jobs: [],
    credential_set: availability.credential !== null,
    ...(availability.credential !== null ? { credential_kind: availability.credential } : {}),
    ...(availability.plugins ? { plugins: catalogJson(availability.plugins) } : {}),
    ...(availability.serving
      ? { serving: { state: availability.serving.state, holders: availability.serving.holders } }
      : {}),
  };
}

/** A plugin catalog; each plugin's metadata as its module spells it. */
export function catalogJson(catalog: PluginCatalog): Json {
  return {
    commit: catalog.commit,
    plugins: catalog.plugins.map((plugin) => ({
      name: plugin.name,
      root: plugin.root,
      path: plugin.path,
      oid: plugin.oid,
      metadata: metadataDocument(plugin.metadata),
      ...(plugin.issues ? { issues: plugin.issues } : {}),
    })),
    ...(catalog.issues ? { issues: catalog.issues } : {}),
  };
}

/** A resolved revision, with whether its index serves as `availability` says it. */
export function resolvedJson(resolved: IndexedRevision): Json {
  return {
    commit: resolved.commit,
    indexed: resolved.index === "ready",
    index: resolved.index,
    ...(resolved.committerTime !== null ? { committer_time: resolved.committerTime } : {}),
  };
}

/** A directory page. */
export function listingJson(listing: DirectoryListing): Json {
  return {
    repo: listing.repo,
    commit: listing.commit,
    path: listing.path,
    entries: listing.entries,
    ...pageJson(listing),
  };
}

/**
 * The JSON of a page (a listing, changes, repositories) whose text is within
 * `maxBytes`: items past what fits are left for the next page (`has_more`,
 * and `next_cursor` after the last item kept), as if the page had been
 * shorter.
 */
export function pageWithin<T>(
  page: { items: readonly T[]; hasMore: boolean; nextCursor: string | null },
  options: {
    maxBytes: number;
    json: (page: { items: T[]; hasMore: boolean; nextCursor: string | null }) => Json;
    /** The cursor that continues after `item` (default: its `path`). */
    cursorOf?: (item: T) => string;
  },
): Json {
  const cursorOf = options.cursorOf ?? ((item: T) => (item as { path: string }).path);
  const json = (count: number) => {
    const items = page.items.slice(0, count);
    const cut = count < page.items.length;
    return options.json({
      items,
      hasMore: cut || page.hasMore,
      nextCursor: cut
        ? (items.length > 0 ? cursorOf(items[items.length - 1]) : null)
        : page.nextCursor,
    });
  };
  const text = (count: number) => JSON.stringify(json(count));
  if (utf8Length(text(page.items.length)) <= options.maxBytes) return json(page.items.length);
  let fits = 0;
  let over = page.items.length;
  while (over - fits > 1) {
    const middle = (fits + over) >> 1;
    if (utf8Length(text(middle)) <= options.maxBytes) fits = middle;
    else over = middle;
  }
  return json(fits);
}

/** A page of changed paths. */
export function changesJson(changes: PathChanges): Json {
  return {
    repo: changes.repo,
    base: changes.base,
    head: changes.head,
    changes: changes.changes,
    ...pageJson(changes),
  };
}

/** What a prepare did. */
export function prepareJson(result: PrepareResult): Json {
  const base = { job_id: result.jobId, repo: result.repo, state: result.state };
  return result.state === "succeeded"
    ? { ...base, heads: result.heads, pruned: result.pruned }
    : { ...base, code: result.code };
}

function pageJson(page: Page): Json {
  return {
    has_more: page.hasMore,
    ...(page.nextCursor !== null ? { next_cursor: page.nextCursor } : {}),
  };
}
