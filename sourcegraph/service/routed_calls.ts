/**
 * The calls that read a repository's mirror, defined once: what a cluster
 * routes to a replica that holds the repository, what the internal API
 * accepts from another replica, and what `RepositoryService` offers the
 * edges. `compose.ts` builds the calls that run here (`localCalls`); the
 * router wraps the same object (`routeCalls`), and the names the internal
 * API accepts are its keys (`routedMethods`).
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import type { Visibility } from "../access/visibility.ts";
import { commitSubjects } from "../git/commit_subjects.ts";
import type { MirrorReaders } from "../git/mirror_readers.ts";
import type { Enrichment } from "../plugins/attachments.ts";
import type { PluginCatalog } from "../plugins/plugin_discovery.ts";
import type { EnhanceRequest } from "../plugins/plugin_host.ts";
import type { PluginArgument, UrlPlugins } from "../plugins/selection_parameters.ts";
import type { FileBlame } from "../read/file_blame.ts";
import type { FileHistory } from "../read/file_history.ts";
import { type CommitDetail, commitDetail, type CommitRequest } from "./commit_detail.ts";
import {
  type FolderCommits,
  folderCommits,
  FolderCommitsCache,
  type FolderCommitsRequest,
} from "./folder_commits.ts";
import type { FilePage } from "../read/file_page.ts";
import type { FileRead } from "../read/file_read.ts";
import type { ReadManyItem } from "../read/read_many.ts";
import type { SearchIndexes } from "../search/search_indexes.ts";
import type { SharedSearches } from "../search/shared_searches.ts";
import type { ReferenceParser, ReferencesPage, ReferencesRequest } from "./name_references.ts";
import type { PreciseDefinition } from "./precise_references.ts";
import type { ScipSource } from "../search/scip/scip_derived.ts";
import type { ScipIndexes } from "../search/scip/scip_store.ts";
import { type UnknownFiles, unknownFiles } from "./scip_uploads.ts";
import type { ControlStore } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";
import {
  type BlameRequest,
  type DiffRequest,
  type DirectoryListing,
  type HeldRevision,
  type HistoryRequest,
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
import type { CommitsRequest, CommitsResult, RepositoryCommits } from "./repository_commits.ts";
import type { RepositoryRouter } from "./repository_router.ts";
import {
  type DefinitionAnswer,
  type DefinitionRequest,
  RepositoryDefinitions,
} from "./repository_definitions.ts";
import { GitAnswerCache } from "../git/answer_cache.ts";
import {
  type FileOutline,
  RepositorySymbols,
  type SymbolsPage,
  type SymbolsRequest,
} from "./repository_symbols.ts";
import { repositoryAvailability, type VersionIndex } from "./repository_summaries.ts";

/**
 * The calls that need a repository's mirror, each checked against its
 * caller. Every request names its repository (`repo`), which is what a
 * cluster routes by; requests and results are plain values that survive
 * V8's serialization, since a call may run on another replica.
 */
export interface RoutedCalls {
  /** One read. */
  read(caller: Caller, request: ReadRequest): Promise<FileRead>;
  /** One page of a file for people (up to 5,000 lines from `startLine`). */
  readPage(
    caller: Caller,
    request: HeldRevision & { path: string; startLine: number },
  ): Promise<FilePage>;
  /** A file's bytes as committed, base64 (for the raw route). */
  readRaw(caller: Caller, request: HeldRevision & { path: string }): Promise<RawFile>;
  /** Several reads at one resolved revision, sharing one budget, in request order. */
  readMany(
    caller: Caller,
    request: ReadManyRequest,
  ): Promise<{ commit: string; items: ReadManyItem[] }>;
  /** Searches a visible repository at one resolved commit. */
  search(caller: Caller, request: RepositorySearchRequest): Promise<SearchResult>;
  /** One page of the definitions a symbol lookup selects at one resolved commit. */
  symbols(caller: Caller, request: SymbolsRequest): Promise<SymbolsPage>;
  /** The definitions of one file at one resolved commit, in line order (its page's outline). */
  outline(
    caller: Caller,
    request: { repo: string; revision?: string; path: string },
  ): Promise<FileOutline>;
  /** Changed paths between two resolved revisions, paged by path. */
  diff(caller: Caller, request: DiffRequest): Promise<PathChanges>;
  /** Who last changed each line of a range of a file at one resolved commit. */
  blame(caller: Caller, request: BlameRequest): Promise<FileBlame>;
  /** A page of the commits of a revision, a path or a line range, newest first. */
  history(caller: Caller, request: HistoryRequest): Promise<FileHistory>;
  /** One commit of the retained versions, its changed files and their patches, for its page. */
  commit(caller: Caller, request: CommitRequest): Promise<CommitDetail>;
  /** The latest commit of each entry of a folder page (cached per commit and folder page). */
  folderCommits(caller: Caller, request: FolderCommitsRequest): Promise<FolderCommits>;
  /** A page of the commits of a repository's monitored branches that match a commit search. */
  commits(caller: Caller, request: CommitsRequest): Promise<CommitsResult>;
  /** One page of the search-based references of the name at a position. */
  references(caller: Caller, request: ReferencesRequest): Promise<ReferencesPage>;
  /** What the name at a position refers to, search-based. */
  definition(caller: Caller, request: DefinitionRequest): Promise<DefinitionAnswer>;
  /** Where a cited span is at a later revision (both retained versions). */
  locate(caller: Caller, request: LocateRequest): Promise<LocatedCitation>;
  /** Directory entries at a commit, paged by name. */
  list(caller: Caller, request: ListRequest): Promise<DirectoryListing>;
  /**
   * Retained versions of a visible repository, newest first, with their
   * subjects: `first` of them after skipping `skip`, and how many there are.
   */
  versionHistory(
    caller: Caller,
    request: { repo: string; first: number; skip?: number },
  ): Promise<VersionHistory>;
  /** Whether each retained version's search index serves here. */
  versionIndexes(caller: Caller, request: { repo: string }): Promise<Record<string, VersionIndex>>;
  /** The retained versions with an uploaded SCIP index here, with the tool that made each. */
  versionScip(caller: Caller, request: { repo: string }): Promise<Record<string, ScipSource>>;
  /**
   * The definition of the symbol at a position from the SCIP index of the
   * resolved commit (null: no index, no symbol there, or no visible definition).
   */
  scipDefinition(
    caller: Caller,
    request: { repo: string; path: string; revision?: string; line: number; column: number },
  ): Promise<PreciseDefinition | null>;
  /**
   * The document paths of a SCIP upload that name no file of its (retained)
   * commit: how many, and the first three.
   */
  scipUnknownFiles(
    caller: Caller,
    request: { repo: string; commit: string; paths: string[] },
  ): Promise<UnknownFiles>;
  /** The plugin catalog of a visible repository at a resolved revision. */
  pluginCatalog(
    caller: Caller,
    request: { repo: string; revision?: string },
  ): Promise<PluginCatalog>;
  /** What the selected plugins add to a read of `request.repo` at `request.commit`. */
  enhance(
    caller: Caller,
    request: EnhanceRequest & { repo: string; commit: string },
  ): Promise<Enrichment>;
  /**
   * One read and what the selected plugins add to it, in one call (one hop
   * in a cluster); its item is `readItemId(1)`.
   */
  readWithPlugins(
    caller: Caller,
    request: ReadRequest & { plugins: PluginsRequest },
  ): Promise<{ file: FileRead; enrichment: Enrichment; pluginMs: number }>;
  /**
   * Several reads and what the selected plugins add to the files read, in
   * one call (one hop in a cluster); item `index` is `readItemId(index)`.
   */
  readManyWithPlugins(
    caller: Caller,
    request: ReadManyRequest & { plugins: PluginsRequest },
  ): Promise<{ commit: string; items: ReadManyItem[]; enrichment: Enrichment; pluginMs: number }>;
}

/** The plugins a read runs: the selection and the room its answer leaves them. */
export interface PluginsRequest {
  /** The `plugins` parameter of the MCP URL. */
  url: UrlPlugins;
  /** The `plugins` argument of the call. */
  argument?: PluginArgument;
  /** The answer's explicit byte limit (none: plugin output has its own budget). */
  maxBytes?: number;
}

/**
 * The room a read's answer leaves plugin attachments within an explicit
 * byte limit: it depends on how the edge renders the answer, so the edge
 * supplies it (`compose.ts`).
 */
export interface PluginRoom {
  /** Attachment bytes left by the answer to one read of `repo`. */
  read(at: { repo: string; maxBytes: number }, file: FileRead): number;
  /** Attachment bytes left by the answer to several reads of `repo`. */
  readMany(at: { repo: string; maxBytes: number }, items: ReadManyItem[]): number;
}

/** The enrichment item of the read at 1-based `index` (a single read is index 1). */
export function readItemId(index: number): string {
  return `read-${index - 1}`;
}

/** The name of one routed call. */
export type RoutedMethod = keyof RoutedCalls;

/** The request of routed call `M`. */
export type RoutedRequest<M extends RoutedMethod> = Parameters<RoutedCalls[M]>[1];

// A router finds a call's repository by its request's `repo`: this fails to
// compile when a routed call's request has none.
type RequestsNameTheirRepository = {
  [M in RoutedMethod]: RoutedRequest<M> extends { repo: string } ? true : false;
}[RoutedMethod];
const _requestsNameTheirRepository: RequestsNameTheirRepository = true;

/** Retained versions with their subjects, one page of them. */
export interface VersionHistory {
  total: number;
  versions: { commit: string; committerTime: number | null; subject: string | null }[];
}

/**
 * The routed calls as they run here, over this process's mirrors, indexes
 * and plugins (the target of every route, and of calls other replicas
 * forward). A plain object literal, so its keys are exactly the calls.
 */
export function localCalls(
  store: ControlStore,
  parts: {
    visibility: Visibility;
    mirrors: MirrorReaders;
    indexes: SearchIndexes;
    searches: SharedSearches;
    plugins: RepositoryPlugins;
    pluginRoom: PluginRoom;
    /** Parses files for `references` (off the service's thread). */
    parser: ReferenceParser;
    /** Commit searches (`commits`). */
    commits: RepositoryCommits;
    /** The uploaded SCIP indexes (precise `references`). */
    scip?: ScipIndexes;
  },
): RoutedCalls {
  const { visibility, mirrors, indexes, searches, plugins, pluginRoom, parser, commits, scip } =
    parts;
  const reads = new RepositoryReads(visibility, {
    mirrors,
    searches,
    parser,
    scip,
    versions: (repo) => store.versions(repo.id),
    answers: new GitAnswerCache(),
  });
  const symbols = new RepositorySymbols(visibility, { searches });
  const folderCache = new FolderCommitsCache();
  const definitions = new RepositoryDefinitions(reads, { symbols, parser });
  return {
    read: (caller, request) => reads.read(caller, request),
    readPage: (caller, request) => reads.readPage(caller, request),
    readRaw: (caller, request) => reads.readRaw(caller, request),
    readMany: (caller, request) => reads.readMany(caller, request),
    search: (caller, request) => reads.search(caller, request),
    symbols: (caller, request) => symbols.symbols(caller, request),
    outline: (caller, request) => symbols.outline(caller, request),
    diff: (caller, request) => reads.diff(caller, request),
    locate: (caller, request) => reads.locate(caller, request),
    blame: (caller, request) => reads.blame(caller, request),
    history: (caller, request) => reads.history(caller, request),
    commit: (caller, request) => commitDetail(store, { visibility, mirrors, caller, request }),
    folderCommits: (caller, request) =>
      folderCommits({ visibility, mirrors, cache: folderCache, caller, request }),
    commits: (caller, request) => commits.commits(caller, request),
    references: (caller, request) => reads.references(caller, request),
    definition: (caller, request) => definitions.definition(caller, request),
    list: (caller, request) => reads.list(caller, request),
    versionHistory: (caller, request) =>
      versionHistory(store, { visibility, mirrors, caller, request }),
    ...versionMarks(store, { visibility, indexes, scip }),
    ...scipCalls(reads, { visibility, mirrors }),
    pluginCatalog: (caller, request) => plugins.catalog(caller, request),
    enhance: (caller, request) => plugins.enhance(caller, request),
    ...readsWithPlugins(reads, { plugins, pluginRoom }),
  };
}

// The calls of SCIP uploads and precise answers: a definition from the
// commit's index, and which of an upload's documents name no file there.
function scipCalls(
  reads: RepositoryReads,
  parts: { visibility: Visibility; mirrors: MirrorReaders },
): Pick<RoutedCalls, "scipDefinition" | "scipUnknownFiles"> {
  const { visibility, mirrors } = parts;
  return {
    scipDefinition: (caller, request) => reads.scipDefinition(caller, request),
    scipUnknownFiles: (caller, request) => {
      const { repo, commit } = visibility.resolve(caller, {
        repo: request.repo,
        revision: request.commit,
      });
      return unknownFiles(mirrors, repo, { commit, paths: request.paths });
    },
  };
}

// Which retained versions a search index serves, and which have a SCIP index.
function versionMarks(
  store: ControlStore,
  parts: { visibility: Visibility; indexes: SearchIndexes; scip?: ScipIndexes },
): Pick<RoutedCalls, "versionIndexes" | "versionScip"> {
  const { visibility, indexes, scip } = parts;
  return {
    versionIndexes: (caller, request) => {
      const repo = visibility.repository(caller, request.repo);
      return Promise.resolve(Object.fromEntries(
        store.versions(repo.id).map((version) => [
          version.commit,
          indexes.serves(repo, version.commit) ? "ready" : "not_ready",
        ]),
      ));
    },
    versionScip: (caller, request) => {
      const repo = visibility.repository(caller, request.repo);
      const found = scip?.commits(repo.id) ?? new Map();
      return Promise.resolve(Object.fromEntries(
        store.versions(repo.id).flatMap((version) => {
          const source = found.get(version.commit);
          return source ? [[version.commit, source]] : [];
        }),
      ));
    },
  };
}

// A read and its plugins in one call: the plugins run where the read ran.
function readsWithPlugins(
  reads: RepositoryReads,
  at: { plugins: RepositoryPlugins; pluginRoom: PluginRoom },
): Pick<RoutedCalls, "readWithPlugins" | "readManyWithPlugins"> {
  const { plugins, pluginRoom } = at;
  return {
    readWithPlugins: async (caller, { plugins: selection, ...request }) => {
      const file = await reads.read(caller, request);
      const { maxBytes } = selection;
      const started = performance.now();
      const enrichment = await plugins.enhance(caller, {
        repo: request.repo,
        commit: file.commit,
        operation: "read",
        items: [{ itemId: readItemId(1), file }],
        url: selection.url,
        argument: selection.argument,
        attachmentBytes: maxBytes === undefined
          ? undefined
          : pluginRoom.read({ repo: request.repo, maxBytes }, file),
      });
      return { file, enrichment, pluginMs: performance.now() - started };
    },
    readManyWithPlugins: async (caller, { plugins: selection, ...request }) => {
      const { commit, items } = await reads.readMany(caller, request);
      const { maxBytes } = selection;
      const started = performance.now();
      const enrichment = await plugins.enhance(caller, {
        attachmentBytes: maxBytes === undefined
          ? undefined
          : pluginRoom.readMany({ repo: request.repo, maxBytes }, items),
        repo: request.repo,
        commit,
        operation: "read_many",
        items: items.flatMap((item) =>
          item.file ? [{ itemId: readItemId(item.index), file: item.file }] : []
        ),
        url: selection.url,
        argument: selection.argument,
      });
      return { commit, items, enrichment, pluginMs: performance.now() - started };
    },
  };
}

/**
 * The names of the routed calls: the keys of `calls` (an object built by
 * `localCalls` or `routeCalls`, whose own keys are exactly the calls).
 */
export function routedMethods(calls: RoutedCalls): RoutedMethod[] {
  return Object.keys(calls) as RoutedMethod[];
}

/**
 * Runs the routed call `call.method` of `calls`; INVALID_REQUEST when it
 * names none of them (a name from the network is checked against the own
 * keys, never looked up on the prototype).
 */
export function runRoutedCall(
  calls: RoutedCalls,
  call: { method: string; caller: Caller; request: unknown },
): Promise<unknown> {
  if (!(routedMethods(calls) as string[]).includes(call.method)) {
    throw new SourcegraphError("INVALID_REQUEST", "no such forwarded call");
  }
  const run = calls[call.method as RoutedMethod] as (
    caller: Caller,
    request: unknown,
  ) => Promise<unknown>;
  return run(call.caller, call.request);
}

/**
 * `local`'s calls, each run where `router` decides (here: `local`'s own),
 * built by one loop over its keys, so a call added to `RoutedCalls` is
 * routed with no more code.
 */
export function routeCalls(local: RoutedCalls, router: RepositoryRouter): RoutedCalls {
  const routed: Partial<Record<RoutedMethod, unknown>> = {};
  for (const method of routedMethods(local)) {
    routed[method] = routedCall(local, { router, method });
  }
  return routed as RoutedCalls;
}

function routedCall<M extends RoutedMethod>(
  local: RoutedCalls,
  at: { router: RepositoryRouter; method: M },
): RoutedCalls[M] {
  const run = local[at.method] as (caller: Caller, request: unknown) => Promise<unknown>;
  const routed = (caller: Caller, request: RoutedRequest<M>) =>
    at.router.route(
      { method: at.method, caller, repo: request.repo, request },
      () => run(caller, request),
    );
  return routed as RoutedCalls[M];
}

async function versionHistory(
  store: ControlStore,
  at: {
    visibility: Visibility;
    mirrors: MirrorReaders;
    caller: Caller;
    request: { repo: string; first: number; skip?: number };
  },
): Promise<VersionHistory> {
  const { request } = at;
  const repo = at.visibility.repository(at.caller, request.repo);
  const all = repositoryAvailability(store, repo).versions;
  const skip = request.skip ?? 0;
  const versions = all.slice(skip, skip + request.first);
  const subjects = await commitSubjects(
    at.mirrors.path(repo),
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
