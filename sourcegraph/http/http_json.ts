/**
 * The plain HTTP API's JSON, mapped from the domain results. Every field
 * name is Go-style PascalCase: the File JSON and the search result keep the
 * names compatible clients already parse, and everything else the API
 * returns follows the same convention; a field without a value is `null`
 * rather than missing. Values that are data rather than fields (branch
 * names in `Heads`, a plugin's own metadata document) pass through unchanged.
 *
 * @module
 */

import type { FanoutSearchResult } from "../service/repository_fanout.ts";
import { encodeFanoutCursor, nextFanoutPosition } from "../render/fanout_search_text.ts";
import type { SymbolsPage } from "../service/repository_symbols.ts";
import {
  encodeFanoutSymbolCursor,
  encodeSymbolCursor,
  missesHint,
} from "../render/symbols_json.ts";
import type { FanoutSymbolsPage } from "../service/symbol_fanout.ts";
import type { SkippedRepository } from "../service/repository_pins.ts";
import type { SignedDefinition, SymbolMisses } from "../search/symbol_search.ts";
import type { PluginCatalog, PluginIssue } from "../plugins/plugin_discovery.ts";
import { metadataDocument } from "../plugins/wasm/wasm_metadata.ts";
import type { FileRead } from "../read/file_read.ts";
import type { DirectoryListing, PathChanges, SearchResult } from "../service/repository_reads.ts";
import type {
  AvailabilityResult,
  IndexedRevision,
  RepositoryPage,
  RepositorySummary,
} from "../service/repository_summaries.ts";
import type { Page } from "../service/paging.ts";
import { encodeBase64 } from "./base64.ts";

/** The protocol name every answer's `Meta` carries. */
export const HTTP_PROTOCOL = "zoekt-single-repo-v1";

type Json = Record<string, unknown>;

/** The File JSON of one read. */
export function fileJson(file: FileRead): Json {
  return {
    Path: file.path,
    BlobOID: file.blobOid,
    Commit: file.commit,
    Kind: file.kind,
    Encoding: file.encoding,
    Content: file.content,
    ReturnedStartLine: file.returnedStartLine,
    ReturnedEndLine: file.returnedEndLine,
    NextStartLine: file.nextStartLine,
    Truncated: file.truncated,
    HasMore: file.hasMore,
    IsLFSPointer: file.isLfsPointer,
    Via: file.via,
    FollowError: file.followError,
  };
}

/**
 * A resolved revision; `Indexed` is true exactly when its search index
 * serves (`Index` is `"ready"`), as availability says.
 */
export function resolvedJson(resolved: IndexedRevision): Json {
  return {
    Commit: resolved.commit,
    Indexed: resolved.index === "ready",
    Index: resolved.index,
    CommitterTime: resolved.committerTime,
  };
}

/** One repository summary. */
export function summaryJson(summary: RepositorySummary): Json {
  return {
    Repo: summary.name,
    State: summary.state,
    LastSyncError: summary.lastSyncError,
    IndexMode: summary.indexMode,
    Heads: summary.heads,
    DefaultBranch: summary.defaultBranch,
    PathGroups: summary.pathGroups.map((group) => ({ Name: group.name, Paths: group.paths })),
  };
}

/** A page of repositories. */
export function repositoryPageJson(page: RepositoryPage): Json {
  return { Repositories: page.repositories.map(summaryJson), NextCursor: page.nextCursor };
}

/**
 * Availability: the summary and the retained versions, each with whether its
 * search index serves (`Index`, and `Indexed` true exactly when it is `"ready"`).
 */
export function availabilityJson(availability: AvailabilityResult): Json {
  return {
    ...summaryJson(availability.summary),
    Versions: availability.versions.map((version) => ({
      Commit: version.commit,
      Indexed: version.index === "ready",
      Index: version.index,
      CommitterTime: version.committerTime,
      ...(version.scip ? { Scip: { Tool: version.scip.tool, Version: version.scip.version } } : {}),
    })),
    Jobs: [],
    CredentialSet: availability.credential !== null,
    CredentialKind: availability.credential,
  };
}

/** A plugin catalog; each plugin's `Metadata` is the document its module carries. */
export function catalogJson(catalog: PluginCatalog): Json {
  const issues = (list: readonly PluginIssue[] | undefined) =>
    (list ?? []).map((issue) => ({ Code: issue.code, Message: issue.message }));
  return {
    Commit: catalog.commit,
    Plugins: catalog.plugins.map((plugin) => ({
      Name: plugin.name,
      Root: plugin.root,
      Path: plugin.path,
      Metadata: metadataDocument(plugin.metadata),
      Issues: issues(plugin.issues),
    })),
    Issues: issues(catalog.issues),
  };
}

/** A directory page. */
export function listingJson(listing: DirectoryListing): Json {
  return {
    Repo: listing.repo,
    Commit: listing.commit,
    Path: listing.path,
    Entries: listing.entries.map((entry) => ({ Path: entry.path, Kind: entry.kind })),
    ...pageJson(listing),
  };
}

/** A page of changed paths. */
export function changesJson(changes: PathChanges): Json {
  return {
    Repo: changes.repo,
    Base: changes.base,
    Head: changes.head,
    Changes: changes.changes.map((change) => ({ Path: change.path, Status: change.status })),
    ...pageJson(changes),
  };
}

function pageJson(page: Page): Json {
  return { HasMore: page.hasMore, NextCursor: page.nextCursor };
}

/** A search result in the zoekt-compatible shape (line text base64 as zoekt sends it). */
export function searchJson(found: SearchResult, options: { requestId: string }): Json {
  return {
    Meta: {
      Status: "ok",
      Partial: found.outcome.partial,
      Truncated: found.outcome.truncated,
      Index: found.outcome.index,
      Ranked: found.outcome.ranked === true,
      Commit: found.commit,
      Repository: found.repo,
      Coverage: found.scope === null
        ? { Mode: "full" }
        : { Mode: "path_groups", Paths: found.scope },
      Protocol: HTTP_PROTOCOL,
      RequestID: options.requestId,
    },
    Result: {
      Files: found.outcome.files.map((file) => ({
        FileName: file.path,
        Defines: file.defines ?? null,
        LineMatches: file.lines.map((match) => ({
          LineNumber: match.number,
          Line: encodeBase64(new TextEncoder().encode(match.text)),
        })),
      })),
      FileCount: found.outcome.fileCount,
      MatchCount: found.outcome.matchCount,
    },
  };
}

/**
 * A search across repositories: each searched repository's answer as the
 * single-repository search JSON (in the ranked order of the pins), the skipped ones with
 * their reason, and the continuation.
 */
export function fanoutSearchJson(found: FanoutSearchResult, options: { requestId: string }): Json {
  const next = nextFanoutPosition(found);
  return {
    Meta: {
      Status: "ok",
      Partial: found.partial,
      Truncated: next !== null,
      Repositories: found.pins.length,
      Searched: found.results.length,
      Skipped: found.skipped.map(skippedJson),
      NotSearchedYet: found.unsearched,
      NextCursor: next === null ? null : encodeFanoutCursor(next),
      Protocol: HTTP_PROTOCOL,
      RequestID: options.requestId,
    },
    Results: found.results.map((result) => searchJson(result, options)),
  };
}

function skippedJson(skipped: SkippedRepository): Json {
  return { Repo: skipped.repo, Code: skipped.code, Message: skipped.message };
}

// What a lookup that found nothing may have meant (null when it found something).
function missesJson(misses: SymbolMisses | null): Json | null {
  return misses === null ? null : {
    IgnoreCaseNames: misses.ignoreCase,
    PrefixNames: misses.prefix,
    NearestNames: misses.nearest,
    Hint: missesHint(misses),
  };
}

function definitionJson(symbol: SignedDefinition): Json {
  return {
    Name: symbol.name,
    Kind: symbol.kind,
    Container: symbol.container,
    Language: symbol.language,
    Path: symbol.path,
    StartLine: symbol.startLine,
    EndLine: symbol.endLine,
    Signature: symbol.signature,
  };
}

/**
 * A page of definitions across repositories, each with its `Repo` and
 * `Commit`; `Skipped` and `NotSearchedYet` name the repositories it could
 * not cover, `SymbolsPartial` those whose symbols are only some of their
 * files'; `NextCursor` continues after its last one.
 */
export function fanoutSymbolsPageJson(page: FanoutSymbolsPage): Json {
  return {
    Repos: page.pins.map((pin) => ({ Name: pin.repo, Commit: pin.commit })),
    Symbols: page.symbols.map(({ repo, commit, symbol }) => ({
      Repo: repo,
      Commit: commit,
      ...definitionJson(symbol),
    })),
    Total: page.total,
    Truncated: page.truncated,
    SymbolsPartial: page.partial,
    Skipped: page.skipped.map(skippedJson),
    NotSearchedYet: page.unsearched,
    HasMore: page.nextOffset !== null,
    NextCursor: page.nextOffset === null
      ? null
      : encodeFanoutSymbolCursor({ pins: page.pins, offset: page.nextOffset }),
    NoResults: missesJson(page.misses),
  };
}

/**
 * A page of definitions; `NextCursor` continues after its last one;
 * `SymbolsPartial` counts the commit's files left without symbols (null
 * when none are).
 */
export function symbolsPageJson(page: SymbolsPage): Json {
  return {
    Repo: page.repo,
    Commit: page.commit,
    Symbols: page.symbols.map(definitionJson),
    Total: page.total,
    Truncated: page.truncated,
    SymbolsPartial: page.partial === null
      ? null
      : { SkippedFiles: page.partial.skippedFiles, Files: page.partial.files },
    HasMore: page.nextOffset !== null,
    NextCursor: page.nextOffset === null
      ? null
      : encodeSymbolCursor({ commit: page.commit, offset: page.nextOffset }),
    NoResults: missesJson(page.misses),
  };
}

/** An error answer. */
export function errorJson(error: { code: string; message: string }, requestId: string): Json {
  return {
    Error: error.message,
    Meta: { Protocol: HTTP_PROTOCOL, RequestID: requestId, Status: "error", Code: error.code },
  };
}
