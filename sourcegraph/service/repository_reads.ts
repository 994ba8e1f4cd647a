/**
 * Reads on visible repositories at resolved commits: one file, several
 * files under one budget, search, a directory page and the changed paths
 * between two revisions. Path groups apply to each; results are structured.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import { folderPath, PathScope } from "../access/path_scope.ts";
import type { Visibility } from "../access/visibility.ts";
import { type ChangedPath, changedPaths } from "../git/changed_paths.ts";
import { commitPaths } from "../git/commit_paths.ts";
import type { EntryKind, MirrorObjects } from "../git/mirror_objects.ts";
import type { MirrorReaders } from "../git/mirror_readers.ts";
import type { GitAnswerCache } from "../git/answer_cache.ts";
import {
  type FileRead,
  READ_MAX_BYTES,
  READ_MAX_LINES,
  readFile,
  requestedRange,
  validatePath,
} from "../read/file_read.ts";
import { utf8Length } from "../../shared/text.ts";
import { type FilePage, readFilePage } from "../read/file_page.ts";
import {
  READ_MANY_BUDGET,
  readMany,
  type ReadManyFile,
  type ReadManyItem,
} from "../read/read_many.ts";
import { type CitationLocation, locateCitation } from "../read/citation_location.ts";
import { blameFile, type FileBlame, IGNORE_REVS_PATH } from "../read/file_blame.ts";
import { type FileHistory, fileHistory, type HistoryPosition } from "../read/file_history.ts";
import { SEARCH_VIEW_BYTES, type SearchOutcome } from "../search/code_search.ts";
import {
  compileSearch,
  type SearchPosition,
  type SearchRequest,
} from "../search/query/compiled_search.ts";
import { type ContextLine, matchContext } from "../search/match_context.ts";
import type { SharedSearches } from "../search/shared_searches.ts";
import { CompiledSearches } from "../search/compiled_searches.ts";
import { quotedNames, SourcegraphError } from "../errors.ts";
import { nearestNames } from "../../shared/nearest_names.ts";
import { type Page, pageByPath } from "./paging.ts";
import { pinnedLookup } from "./pinned_lookup.ts";
import {
  isCodeAt,
  nameAt,
  ownFileOf,
  type ReferenceFile,
  ReferenceParser,
  REFERENCES_FILES_PER_PAGE,
  REFERENCES_MAX_FILE_BYTES,
  referencesOf,
  type ReferencesOfOptions,
  type ReferencesPage,
  type ReferencesRequest,
  wholeWordPattern,
} from "./name_references.ts";
import { searchableText } from "../search/searchable_text.ts";
import type { ScipIndexes } from "../search/scip/scip_store.ts";
import type { DerivedScip } from "../search/scip/scip_derived.ts";
import {
  type PreciseDefinition,
  preciseDefinition,
  preciseReferences,
} from "./precise_references.ts";
import {
  isScriptPath,
  NameResolver,
  resolveAt,
  type ResolvedDeclaration,
} from "./name_resolution.ts";
import { REFERENCES_SHARED_TEXTS, ReferenceTexts } from "./reference_texts.ts";
import { KeptBlobs } from "./kept_blobs.ts";
import { searchSymbols } from "../search/symbol_search.ts";
import { grammarLanguageOf } from "../symbols/languages.ts";
import type { RepositoryRecord } from "../store/control_store.ts";
import { retainedHolder } from "./commit_detail.ts";

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
  /** Lines around the shown matches, by path, when context was asked for. */
  context?: Map<string, ContextLine[]>;
}

/** Most bytes the raw route serves of one file. */
export const RAW_MAX_BYTES = 8 * 1024 * 1024;

/** A file's bytes at one commit, base64 (`content`). */
export interface RawFile {
  path: string;
  commit: string;
  content: string;
}

/**
 * A page's revision: `held` also takes a full SHA that a retained version
 * holds (itself or an ancestor of one, as a commit page links to its files).
 */
export interface HeldRevision {
  repo: string;
  revision?: string;
  held?: boolean;
}

/** One read: `path` at `revision` (omitted: the default branch), optionally a line range. */
export interface ReadRequest {
  repo: string;
  path: string;
  revision?: string;
  startLine?: number;
  endLine?: number;
  /** Most bytes of the rendered answer (the content is capped to fit); default: the per-read caps only. */
  maxBytes?: number;
}

/** A blame of lines of `path` at `revision` (omitted: the default branch; `held`: see `HeldRevision`). */
export interface BlameRequest extends HeldRevision {
  repo: string;
  path: string;
  revision?: string;
  startLine?: number;
  endLine?: number;
  /** Most bytes of the rendered answer (the lines blamed are capped to fit). */
  maxBytes: number;
}

/**
 * A page of the commits of `revision` (omitted: the default branch), of
 * `path` when given, or of its lines `startLine..endLine` when either is given.
 */
export interface HistoryRequest extends HeldRevision {
  repo: string;
  revision?: string;
  path?: string;
  startLine?: number;
  endLine?: number;
  first: number;
  /** Continue after a previous page (its commit replaces `revision`). */
  after?: HistoryPosition;
}

/** Several reads at one revision. */
export interface ReadManyRequest {
  /** Most bytes of the rendered answer, all items together; default: the shared budget only. */
  maxBytes?: number;
  repo: string;
  revision?: string;
  files: ReadManyFile[];
}

/** A search of one repository at one revision. */
export interface RepositorySearchRequest extends Omit<SearchRequest, "after"> {
  repo: string;
  revision?: string;
  /** Continue a search after a page's last match, at that page's commit. */
  after?: SearchPosition & { commit: string };
  /** Lines of context shown before and after each shown match (0 to 20; default 0). */
  context?: { before: number; after: number };
}

/** A citation to follow: lines of `path` at the retained `commit`, to `revision` (default branch). */
export interface LocateRequest {
  repo: string;
  commit: string;
  path: string;
  startLine: number;
  endLine: number;
  revision?: string;
}

/** A citation followed to a later commit. */
export interface LocatedCitation extends CitationLocation {
  repo: string;
  /** The cited commit. */
  cited: string;
  /** The later commit it was followed to. */
  commit: string;
}

/** One page of a directory at a revision. */
export interface ListRequest {
  repo: string;
  revision?: string;
  path?: string;
  first: number;
  after?: string;
}

/** One page of the paths changed from `base` to `head`. */
export interface DiffRequest {
  repo: string;
  base: string;
  head: string;
  first: number;
  paths?: string[];
  after?: string;
}

/** The name at a position, and how the files of its commit are read (`nameOrigin`). */
export interface NameOrigin {
  /** The repository's name as registered. */
  repo: string;
  /** The position's line, read as `read` reads it. */
  origin: FileRead;
  name: string;
  /** UTF-16 offset of the name in its line. */
  offset: number;
  /** A file's text at the commit; for paths already checked against the path groups. */
  fileText: (path: string) => Promise<string | null>;
  /** A file's text at the commit, null outside the caller's path groups. */
  visibleText: (path: string) => Promise<string | null>;
  /** Whether a file is at the path at the commit, inside the caller's path groups. */
  visible: (path: string) => Promise<boolean>;
}

/** Reads through `mirrors` of the repositories `visibility` lets a caller see. */
export class RepositoryReads {
  #visibility: Visibility;
  #mirrors: MirrorReaders;
  #searches: SharedSearches;
  #parser: ReferenceParser;
  #scip: ScipIndexes | null;
  #versions: ((repo: RepositoryRecord) => readonly { commit: string }[]) | null;
  #answers: GitAnswerCache | undefined;
  // A search across repositories compiles the same request for each of them.
  #compiled = new CompiledSearches();
  // The large files whose line `references` read, by repository and blob id (`KEPT_BLOBS`).
  #keptBlobs = new KeptBlobs();
  // The texts `references` reads, by repository and blob id, kept across calls (`REFERENCES_SHARED_TEXTS`);
  // each call reads through it with its own repository's reader.
  #blobTexts = new ReferenceTexts(() => Promise.resolve(null), {
    maxBytes: REFERENCES_SHARED_TEXTS.bytes,
    maxEntries: REFERENCES_SHARED_TEXTS.entries,
  });

  /**
   * Reads with these collaborators (`parser`: the references' parses, in its
   * worker; `scip`: the uploaded SCIP indexes, for precise references;
   * `versions`: a repository's retained versions, newest first, which a
   * held revision is looked for in; `answers`: Git's blames, histories and
   * commits' listings kept, so a repeated one runs no Git).
   */
  constructor(
    visibility: Visibility,
    options: {
      mirrors: MirrorReaders;
      searches: SharedSearches;
      parser: ReferenceParser;
      scip?: ScipIndexes;
      versions?: (repo: RepositoryRecord) => readonly { commit: string }[];
      answers?: GitAnswerCache;
    },
  ) {
    this.#visibility = visibility;
    this.#mirrors = options.mirrors;
    this.#searches = options.searches;
    this.#parser = options.parser;
    this.#scip = options.scip ?? null;
    this.#versions = options.versions ?? null;
    this.#answers = options.answers;
  }

  // A revision resolved as every read resolves it, or, for a page that asks
  // (`held`), a full SHA a retained version holds: the commits a commit page
  // shows, whose files it links to at both sides. Anything else keeps the
  // refusal resolution gave.
  async #resolveHeld(
    caller: Caller,
    request: HeldRevision,
  ): Promise<{ repo: RepositoryRecord; commit: string }> {
    try {
      return this.#visibility.resolve(caller, request);
    } catch (error) {
      const revision = request.revision ?? "";
      if (
        !request.held || this.#versions === null || !(error instanceof SourcegraphError) ||
        error.code !== "REVISION_NOT_ELIGIBLE" || !/^[0-9a-f]{40}$/.test(revision)
      ) throw error;
      const repo = this.#visibility.repository(caller, request.repo);
      const holder = await retainedHolder(this.#mirrors.path(repo), {
        commit: revision,
        versions: this.#versions(repo),
      });
      if (holder === null) throw error;
      return { repo, commit: revision };
    }
  }

  // `#visiblePath` at a revision `#resolveHeld` resolves.
  async #visibleHeldPath(
    caller: Caller,
    request: HeldRevision & { path: string },
  ): Promise<{ commit: string; scope: PathScope; objects: MirrorObjects }> {
    validatePath(request.path);
    const { repo, commit } = await this.#resolveHeld(caller, request);
    const scope = new PathScope(repo);
    scope.require(request.path);
    return { commit, scope, objects: this.#mirrors.objects(repo) };
  }

  // A path checked as every read checks it: well formed, in a repository and at a revision the
  // caller may see, inside the caller's path groups; with the repository's object reader.
  #visiblePath(
    caller: Caller,
    request: { repo: string; path: string; revision?: string },
  ): { commit: string; scope: PathScope; objects: MirrorObjects; repo: RepositoryRecord } {
    validatePath(request.path);
    const { repo, commit } = this.#visibility.resolve(caller, request);
    const scope = new PathScope(repo);
    scope.require(request.path);
    return { commit, scope, objects: this.#mirrors.objects(repo), repo };
  }

  /** One read. */
  async read(caller: Caller, request: ReadRequest): Promise<FileRead> {
    return (await this.#readBytes(caller, request)).file;
  }

  // One read, with the file's bytes when it is one (a symlink's target's), through `kept` when
  // given; with the repository read and its object reader.
  async #readBytes(
    caller: Caller,
    request: ReadRequest,
    kept?: KeptBlobs,
  ): Promise<
    { file: FileRead; bytes?: Uint8Array; repo: RepositoryRecord; objects: MirrorObjects }
  > {
    const range = requestedRange(request.startLine, request.endLine);
    const { commit, scope, objects, repo } = this.#visiblePath(caller, request);
    // Kept by repository and blob id: an identical blob of another repository must not make a
    // caller's read of its own faster (nor tell that another repository holds it).
    const blob = kept === undefined
      ? undefined
      : (oid: string, maxBytes: number) =>
        kept.bytes(keptKey(repo.id, oid), () => objects.blob(oid, maxBytes));
    const caps = request.maxBytes === undefined
      ? undefined
      : { lines: READ_MAX_LINES, bytes: contentBytes(request.maxBytes, request.path) };
    const read = await readFile(objects, { commit, path: request.path, range, caps, blob }).catch(
      (error) =>
        missingFile(error, { objects, commit, path: request.path, scope, answers: this.#answers }),
    );
    scope.require(read.file.path); // a symlink may not lead out of the groups
    return { file: read.file, bytes: read.bytes, repo, objects };
  }

  /**
   * Who last changed each line of a range of a file, checked as a read is;
   * the ignore-revs file is honoured when the caller may see it.
   */
  async blame(caller: Caller, request: BlameRequest): Promise<FileBlame> {
    const range = requestedRange(request.startLine, request.endLine);
    const { commit, scope, objects } = await this.#visibleHeldPath(caller, request);
    return await blameFile(objects, {
      commit,
      path: request.path,
      range,
      caps: { lines: READ_MAX_LINES, bytes: blameContentBytes(request.maxBytes, request.path) },
      ignoreRevs: scope.covers(IGNORE_REVS_PATH),
      cache: this.#answers,
    }).catch((error) =>
      missingFile(error, { objects, commit, path: request.path, scope, answers: this.#answers })
    );
  }

  /**
   * A page of a history, checked as a read is; under path groups it lists
   * only commits of the visible paths (`read/file_history.ts`).
   */
  async history(caller: Caller, request: HistoryRequest): Promise<FileHistory> {
    const lines = request.startLine !== undefined || request.endLine !== undefined;
    const range = lines ? requestedRange(request.startLine, request.endLine) : null;
    const path = request.path === undefined ? null : folderPath(request.path);
    if (path !== null) validatePath(path);
    const revision = request.after?.commit ?? request.revision;
    const { repo, commit } = await this.#resolveHeld(caller, {
      repo: request.repo,
      revision,
      held: request.held,
    });
    const scope = new PathScope(repo);
    const objects = this.#mirrors.objects(repo);
    return await fileHistory(objects, {
      commit,
      path,
      range,
      scope,
      skip: request.after?.skip ?? 0,
      first: request.first,
      cache: this.#answers,
    }).catch((error) =>
      path === null
        ? Promise.reject(error)
        : missingFile(error, { objects, commit, path, scope, answers: this.#answers })
    );
  }

  /** One page of a file for people (up to 5,000 lines from `startLine`). */
  async readPage(
    caller: Caller,
    request: HeldRevision & { path: string; startLine: number },
  ): Promise<FilePage> {
    validatePath(request.path);
    requestedRange(request.startLine);
    const { repo, commit } = await this.#resolveHeld(caller, request);
    const scope = new PathScope(repo);
    scope.require(request.path);
    const objects = this.#mirrors.objects(repo);
    const page = await readFilePage(objects, {
      commit,
      path: request.path,
      startLine: request.startLine,
    }).catch((error) =>
      missingFile(error, { objects, commit, path: request.path, scope, answers: this.#answers })
    );
    if (page.target !== null) scope.require(page.target); // a symlink may not lead out of the groups
    return page;
  }

  /**
   * A file's bytes as committed (a symlink's are its target path, not
   * followed), for the raw route; FILE_NOT_FOUND for a folder or a
   * submodule, READ_SCAN_LIMIT past `RAW_MAX_BYTES`.
   */
  async readRaw(
    caller: Caller,
    request: HeldRevision & { path: string },
  ): Promise<RawFile> {
    const { commit, objects } = await this.#visibleHeldPath(caller, request);
    const entry = await objects.lookup(commit, request.path);
    if (entry === null || (entry.kind !== "file" && entry.kind !== "symlink")) {
      throw new SourcegraphError("FILE_NOT_FOUND", "no such file at this commit");
    }
    const bytes = await objects.blob(entry.oid, RAW_MAX_BYTES);
    if (bytes === null) {
      throw new SourcegraphError(
        "READ_SCAN_LIMIT",
        `the file is over ${RAW_MAX_BYTES / 1024 / 1024} MiB`,
        { hint: "Read it by line ranges with the read tool." },
      );
    }
    // Base64: the bytes cross the cluster's forwarding as JSON.
    return { path: request.path, commit, content: bytes.toBase64() };
  }

  /** Several reads at one resolved revision, sharing one budget, in request order. */
  async readMany(
    caller: Caller,
    request: ReadManyRequest,
  ): Promise<{ commit: string; items: ReadManyItem[] }> {
    const { repo, commit } = this.#visibility.resolve(caller, request);
    const objects = this.#mirrors.objects(repo);
    const scope = new PathScope(repo);
    const items = await readMany(objects, {
      commit,
      files: request.files,
      scope,
      bytes: request.maxBytes === undefined ? undefined : Math.max(
        1024,
        request.maxBytes - request.files.reduce(
          (sum, file) => sum + READ_HEADER_BYTES + 2 * utf8Length(file.path),
          READ_MANY_BUDGET.lines * READ_ROW_PREFIX_BYTES,
        ),
      ),
    });
    return {
      commit,
      items: await withPathHints(items, { objects, commit, scope, answers: this.#answers }),
    };
  }

  /** Searches a visible repository at one resolved commit. */
  async search(caller: Caller, request: RepositorySearchRequest): Promise<SearchResult> {
    const { after } = request;
    const { repo, commit, scope, paths } = pinnedLookup(this.#visibility, caller, request);
    // Compiled once, with its paths within the path groups; every later step reads it.
    const search = this.#compiled.compile({
      ...request,
      paths,
      groups: scope.full ? [] : scope.roots,
      after: after && { path: after.path, line: after.line, tier: after.tier },
    });
    const outcome = await this.#searches.search(repo, { search, commit, scope });
    const result = { repo: repo.name, commit, outcome, scope: scope.full ? null : scope.roots };
    const { before = 0, after: behind = 0 } = request.context ?? {};
    if (before + behind === 0 || search.output === "files") return result;
    const context = await matchContext(this.#mirrors.objects(repo), {
      commit,
      files: outcome.files,
    }, { before, after: behind, maxBytes: SEARCH_VIEW_BYTES });
    return { ...result, context };
  }

  /**
   * One page of the search-based references of the name at a position: the
   * position is read as `read` reads it (the same refusals), the candidates
   * are a search's whole-word matches (the same path groups and paging).
   */
  async references(caller: Caller, request: ReferencesRequest): Promise<ReferencesPage> {
    const origin = await this.nameOrigin(caller, request);
    const { name, fileText } = origin;
    const precise = await this.#scipReferences(caller, request, origin);
    if (precise !== null) return precise;
    const resolver = new NameResolver(this.#parser, {
      text: origin.visibleText,
      exists: origin.visible,
    });
    // The name is resolved (its files' parses posted to the workers) while the candidates'
    // search runs: neither needs the other.
    const resolving = resolveAt(resolver, {
      path: request.path,
      name,
      line: request.line,
      column: origin.offset,
    });
    const candidates = candidatesSearch(request, { name, commit: origin.origin.commit });
    const searching = this.search(caller, candidates);
    searching.catch(() => {}); // awaited below, unless the resolution fails first
    const resolved = await resolving;
    const target = resolved?.member === true
      ? { ...resolved, shared: this.#sharedMember(caller, { ...request, name, resolved }) }
      : resolved;
    // A local (or a name private to its file) has rows in its own file only: its candidates
    // are that file's lines, not pages of other files' matches with no rows before it (a test
    // file's local comes after every other file naming the word); an exported declaration's are
    // also the files naming it as exported under another name or importing it by default.
    const look = { candidates, name, target, resolver };
    const { scoped, aliases, importers } = await this.#candidatesOf(caller, look);
    const found = scoped === candidates ? await searching : await this.search(caller, scoped);
    const { last, files, full } = await this.#rowsFrom(caller, found, {
      candidates: scoped,
      look: {
        name,
        includeDeclaration: request.includeDeclaration ?? true,
        text: fileText,
        resolved: target === null ? undefined : { resolver, target },
        maxBytes: request.maxBytes,
        aliases,
        importers,
      },
    });
    const { files: _matched, ...search } = last.outcome;
    // Files after a full page were not looked at: the next page resumes at them.
    if (full) search.truncated = true;
    return {
      repo: found.repo,
      commit: found.commit,
      name,
      origin: { path: origin.origin.path, line: request.line },
      files,
      search,
      scope: found.scope,
      target,
    };
  }

  // The references in a search page's candidate files; while none of them holds a row and the
  // page's parse budget lasts, in the search's next pages too (a page of no rows would only hand
  // its caller a cursor to call again with). `last` is the last search page looked at.
  async #rowsFrom(
    caller: Caller,
    first: SearchResult,
    at: { candidates: RepositorySearchRequest; look: ReferencesOfOptions },
  ): Promise<{ last: SearchResult; files: ReferenceFile[]; full: boolean }> {
    const deadline = this.#parser.now() + this.#parser.pageMs;
    const files: ReferenceFile[] = [];
    for (let found = first;;) {
      const page = await referencesOf(this.#parser, found.outcome.files, { ...at.look, deadline });
      // A later page whose first file came past the budget ends the answer before it (its
      // lines would be whole-word text, comments included): the cursor resumes there.
      if (files.length > 0 && page.files[0]?.parse === "budget") {
        return { last: found, files, full: true };
      }
      files.push(...page.files);
      const end = page.files.at(-1);
      const { truncated, partial, ranked } = found.outcome;
      if (
        page.full || !truncated || partial || end === undefined || this.#parser.now() >= deadline ||
        page.files.some((file) => file.lines.length > 0)
      ) {
        return { last: found, files, full: page.full };
      }
      // After the page's last file, as the page's cursor would continue.
      const tier = ranked === true && end.tier !== undefined ? { tier: end.tier } : {};
      const after = { path: end.path, line: null, ...tier, commit: found.commit };
      found = await this.search(caller, { ...at.candidates, revision: found.commit, after });
    }
  }

  // The search a resolved name's candidates come from: its own file's lines for a local (or a
  // name private to its file), else the whole-word matches, of the other names it is exported as
  // too (`export { NOTHING as nothing }`: where they are imported, it is used under them).
  async #candidatesOf(
    caller: Caller,
    at: {
      candidates: RepositorySearchRequest;
      name: string;
      target: ResolvedDeclaration | null;
      resolver: NameResolver;
    },
  ): Promise<{
    scoped: RepositorySearchRequest;
    aliases: string[];
    importers: Map<string, string[]>;
  }> {
    const { candidates, name, target } = at;
    const none = new Map<string, string[]>();
    const own = target === null ? null : ownFileOf(target);
    if (own !== null) {
      return { scoped: { ...candidates, paths: [own] }, aliases: [], importers: none };
    }
    if (target === null || !exportable(target)) {
      return { scoped: candidates, aliases: [], importers: none };
    }
    const [exported, imported] = await Promise.all([
      this.#exportAliases(caller, { candidates, name }),
      this.#defaultImports(caller, { candidates, target, resolver: at.resolver }),
    ]);
    const aliases = [...new Set([...exported, ...imported.reexported])];
    const { importers } = imported;
    const names = new Set([name, ...aliases, ...[...importers.values()].flat()]);
    // `default` is a row only on a line re-exporting the default (not every `export default`).
    const reexports = names.delete("default") ? [DEFAULT_REEXPORT_LINE] : [];
    if (names.size === 1 && reexports.length === 0) {
      return { scoped: candidates, aliases, importers };
    }
    const pattern = [wordsPattern([...names]), ...reexports].join("|");
    return { scoped: { ...candidates, pattern }, aliases, importers };
  }

  // When the target is its file's default export (`export default function preset`, `export
  // default preset`, `export { preset as default }`): by file, the names an import of that file
  // gives it (`import plugin from "./preset"`: used under that name in that file only), and the
  // names a re-export gives it (`export { default as plugin } from "./preset"`: used anywhere; a
  // re-export as the default, `export { default } from`, is a row of its file), found on the
  // import and export lines naming the module (the file's name, or an index file's folder's).
  async #defaultImports(
    caller: Caller,
    at: {
      candidates: RepositorySearchRequest;
      target: ResolvedDeclaration;
      resolver: NameResolver;
    },
  ): Promise<{ importers: Map<string, string[]>; reexported: string[] }> {
    const { target } = at;
    const importers = new Map<string, string[]>();
    const reexported = new Set<string>();
    const found = { importers, reexported: [] };
    const stem = moduleStem(target.path);
    if (stem === null || !(await at.resolver.mentions(target.path, "default"))) return found;
    const exported = await at.resolver.exported(target.path, "default", 1);
    if (exported?.path !== target.path || exported.line !== target.line) return found;
    const module = `["'/]${escapedPattern(stem)}(?:\\.[A-Za-z]+)?["']`;
    const lines = await this.search(caller, {
      ...at.candidates,
      pattern: `^\\s*(?:import|export)\\b.*${module}`,
      after: undefined,
      maxFiles: REFERENCES_FILES_PER_PAGE,
    });
    for (const file of lines.outcome.files) {
      if (!isScriptPath(file.path)) continue;
      const names = new Set<string>();
      for (const { text } of file.lines) {
        const local = DEFAULT_IMPORT.exec(text);
        if (local !== null && local[1] !== "type") names.add(local[1]);
        const exporting = /^\s*export\b/.test(text);
        for (const [, alias] of text.matchAll(DEFAULT_AS)) {
          (exporting ? reexported : names).add(alias);
        }
        // `export { default } from "./preset"`: the module's default is this one's, on that line.
        if (exporting && DEFAULT_REEXPORT.test(text)) names.add("default");
      }
      if (names.size > 0) importers.set(file.path, [...names].slice(0, MAX_EXPORT_ALIASES));
    }
    return { importers, reexported: [...reexported].sort().slice(0, MAX_EXPORT_ALIASES) };
  }

  // The other names a declaration named `name` may be exported as (`export { name as alias }`,
  // written in a file spelling the name): every `name as alias` of the files (an import's among
  // them: its alias's uses resolve to what that import names, so they are kept only when they
  // refer to the target), `default` aside.
  async #exportAliases(
    caller: Caller,
    at: { candidates: RepositorySearchRequest; name: string },
  ): Promise<string[]> {
    const written = new RegExp(
      `(?:^|[^A-Za-z0-9_$])${escapedName(at.name)}\\s+as\\s+([A-Za-z_$][A-Za-z0-9_$]*)`,
      "g",
    );
    const found = await this.search(caller, {
      ...at.candidates,
      pattern: `(?:^|[^A-Za-z0-9_$])${escapedName(at.name)}\\s+as\\s+[A-Za-z_$]`,
      after: undefined,
      maxFiles: REFERENCES_FILES_PER_PAGE,
    });
    const aliases = new Set<string>();
    for (const file of found.outcome.files) {
      if (!isScriptPath(file.path)) continue;
      for (const line of file.lines) {
        for (const [, alias] of line.text.matchAll(written)) {
          if (alias !== at.name && alias !== "default") aliases.add(alias);
        }
      }
    }
    return [...aliases].sort().slice(0, MAX_EXPORT_ALIASES);
  }

  // The precise page when the origin's commit has a SCIP index recording a symbol there, else null.
  async #scipReferences(
    caller: Caller,
    request: ReferencesRequest,
    origin: NameOrigin,
  ): Promise<ReferencesPage | null> {
    const { repo } = this.#visibility.resolve(caller, {
      repo: request.repo,
      revision: origin.origin.commit,
    });
    const scip = this.#scip?.get(repo.id, origin.origin.commit) ?? null;
    if (scip === null) return null;
    return await this.#preciseReferences(caller, {
      request,
      scip,
      name: origin.name,
      at: {
        path: origin.origin.path,
        commit: origin.origin.commit,
        offset: origin.offset,
        fileText: origin.fileText,
      },
    });
  }

  // The page of references from the commit's SCIP index (null: it records no symbol there).
  async #preciseReferences(caller: Caller, parts: {
    request: ReferencesRequest;
    scip: DerivedScip;
    name: string;
    at: {
      path: string;
      commit: string;
      offset: number;
      fileText: (path: string) => Promise<string | null>;
    };
  }): Promise<ReferencesPage | null> {
    const { request, scip, name, at } = parts;
    const { repo, commit, scope } = pinnedLookup(this.#visibility, caller, {
      repo: request.repo,
      revision: at.commit,
    });
    // The search's own path filter (path groups and globs), so both kinds of page name the same files.
    const { keep } = compileSearch({
      pattern: wholeWordPattern(name),
      glob: request.glob,
      groups: scope.full ? [] : scope.roots,
    });
    const found = await preciseReferences(scip, {
      path: at.path,
      line: request.line - 1,
      character: at.offset,
      includeDeclaration: request.includeDeclaration ?? true,
      keep: (path) => scope.covers(path) && keep(path),
      after: request.after,
      text: at.fileText,
    });
    if (found === null) return null;
    return {
      repo: repo.name,
      commit,
      name,
      origin: { path: at.path, line: request.line },
      files: found.files,
      search: {
        fileCount: found.fileCount,
        matchCount: found.matchCount,
        truncated: found.truncated,
        partial: false,
        index: "ready",
      },
      scope: scope.full ? null : scope.roots,
      target: null,
      precise: scip.source,
    };
  }

  /**
   * The definition of the symbol at a position (1-based line and column in
   * characters), from the SCIP index of the resolved commit, checked as a
   * read is; null when the commit has no SCIP index, the index records no
   * symbol there, or its definition is outside the index or the caller's
   * path groups.
   */
  async scipDefinition(
    caller: Caller,
    request: { repo: string; path: string; revision?: string; line: number; column: number },
  ): Promise<PreciseDefinition | null> {
    const origin = await this.read(caller, {
      ...request,
      startLine: request.line,
      endLine: request.line,
    });
    const { repo } = this.#visibility.resolve(caller, {
      repo: request.repo,
      revision: origin.commit,
    });
    const scip = this.#scip?.get(repo.id, origin.commit) ?? null;
    if (scip === null) return null;
    const points = Array.from(origin.content.replace(/\r?\n$/, ""));
    const character = points.slice(0, request.column - 1).join("").length;
    const found = preciseDefinition(scip, { path: origin.path, line: request.line - 1, character });
    return found !== null && new PathScope(repo).covers(found.path) ? found : null;
  }

  /**
   * The name at a request's position, read as `read` reads it (the same
   * refusals), checked to be code when the file parses; with how files of
   * the same commit are read: `fileText` for paths a search named (already
   * inside the path groups), `visibleText` and `visible` for any path, which
   * answer for a path outside the caller's path groups as for a missing one.
   */
  async nameOrigin(caller: Caller, request: ReferencesRequest): Promise<NameOrigin> {
    // A large file's bytes are kept across calls, not read from Git for one line each time.
    const { file: origin, bytes, repo, objects } = await this.#readBytes(caller, {
      repo: request.repo,
      path: request.path,
      revision: request.revision ?? request.after?.commit,
      startLine: request.line,
      endLine: request.line,
    }, this.#keptBlobs);
    const language = grammarLanguageOf(request.path);
    const { name, offset } = nameAt(origin.content.replace(/\r?\n$/, ""), {
      ...request,
      sigil: language === "php",
      instance: language === "ruby",
    });
    const scope = new PathScope(repo);
    const readText = async (path: string): Promise<string | null> => {
      const entry = await objects.lookup(origin.commit, path);
      if (entry === null || entry.kind !== "file") return null;
      return await this.#blobTexts.text(keptKey(repo.id, entry.oid), async () => {
        const bytes = await objects.blob(entry.oid, REFERENCES_MAX_FILE_BYTES);
        return bytes === null ? null : searchableText(bytes);
      });
    };
    // The position's file is read from Git once: its text is that of the bytes just read (a
    // file the read took as text; past the parse limit, none).
    if (bytes !== undefined && origin.kind === "file") {
      await this.#blobTexts.text(
        keptKey(repo.id, origin.blobOid),
        () =>
          Promise.resolve(bytes.length > REFERENCES_MAX_FILE_BYTES ? null : searchableText(bytes)),
      );
    }
    // Each file is read once per call while kept, within `REFERENCES_TEXT_BYTES`.
    const texts = new ReferenceTexts(readText);
    const fileText = (path: string): Promise<string | null> => texts.text(path);
    const visible = async (path: string): Promise<boolean> => {
      if (!scope.covers(path)) return false;
      return (await objects.lookup(origin.commit, path))?.kind === "file";
    };
    const visibleText = (path: string) =>
      scope.covers(path) ? fileText(path) : Promise.resolve(null);
    const whole = await fileText(origin.path);
    const at = { name, line: request.line, offset };
    if (whole !== null && !await isCodeAt(this.#parser, { path: origin.path, text: whole }, at)) {
      throw new SourcegraphError(
        "NOT_AN_IDENTIFIER",
        "the name there is in a comment or a string",
        {
          hint: "Pass the position of the name where it is code, e.g. at its definition or a call.",
        },
      );
    }
    return { repo: repo.name, origin, name, offset, fileText, visibleText, visible };
  }

  // Whether the commit's symbol index (within the caller's path groups) has members named like
  // the resolved one in other types; true when the index is not built yet.
  #sharedMember(
    caller: Caller,
    request: ReferencesRequest & { name: string; resolved: ResolvedDeclaration },
  ): boolean {
    const { repo, commit } = this.#visibility.resolve(caller, {
      repo: request.repo,
      revision: request.revision ?? request.after?.commit,
    });
    const index = this.#searches.indexedCommit(repo, commit);
    if (index === null) return true;
    const scope = new PathScope(repo);
    const { symbols } = searchSymbols(index, {
      query: request.name,
      groups: scope.full ? [] : scope.roots,
    });
    return symbols.some((symbol) =>
      symbol.container !== request.resolved.container &&
      (scope.full || scope.covers(symbol.path))
    );
  }

  /** Where a cited span is at a later revision (both retained versions). */
  async locate(caller: Caller, request: LocateRequest): Promise<LocatedCitation> {
    validatePath(request.path);
    const span = requestedRange(request.startLine, request.endLine);
    const cited = this.#visibility.resolve(caller, {
      repo: request.repo,
      revision: request.commit,
    });
    const later = this.#visibility.resolve(caller, {
      repo: request.repo,
      revision: request.revision,
    });
    const scope = new PathScope(cited.repo);
    scope.require(request.path);
    const objects = this.#mirrors.objects(cited.repo);
    const location = await locateCitation(objects, {
      cited: cited.commit,
      later: later.commit,
      path: request.path,
      span,
      // Renames are looked for among visible files only: a hidden file is no one's new name.
      within: scope.full ? undefined : scope.roots,
    }).catch((error) =>
      missingFile(error, {
        objects,
        commit: cited.commit,
        path: request.path,
        scope,
        answers: this.#answers,
      })
    );
    const commits = { repo: cited.repo.name, cited: cited.commit, commit: later.commit };
    // Renamed out of the caller's path groups: gone, as far as the caller can see.
    if (location.path !== null && !scope.covers(location.path)) {
      return {
        ...commits,
        status: "deleted",
        path: null,
        startLine: null,
        endLine: null,
        lines: [],
      };
    }
    return { ...commits, ...location };
  }

  /** Changed paths between two resolved revisions, paged by path. */
  async diff(caller: Caller, request: DiffRequest): Promise<PathChanges> {
    const base = this.#visibility.resolve(caller, { repo: request.repo, revision: request.base });
    const head = this.#visibility.resolve(caller, { repo: request.repo, revision: request.head });
    const scope = new PathScope(base.repo);
    for (const path of request.paths ?? []) validatePath(folderPath(path));
    const changes = (await changedPaths(this.#mirrors.path(base.repo), {
      base: base.commit,
      head: head.commit,
      pathspecs: scope.scope(request.paths ?? []),
    })).filter((change) => scope.covers(change.path));
    const { items, ...page } = pageByPath(changes, request);
    return { repo: base.repo.name, base: base.commit, head: head.commit, changes: items, ...page };
  }

  /** Directory entries at a commit, paged by name. */
  async list(caller: Caller, request: ListRequest): Promise<DirectoryListing> {
    const path = request.path ?? "";
    if (path !== "") validatePath(path);
    const { repo, commit } = this.#visibility.resolve(caller, request);
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
}

// read_many items that failed with FILE_NOT_FOUND get the nearest paths as a
// hint (one listing of the commit for all of them).
async function withPathHints(
  items: ReadManyItem[],
  at: ListedAt,
): Promise<ReadManyItem[]> {
  if (!items.some((item) => item.error?.code === "FILE_NOT_FOUND")) return items;
  const paths = await visiblePaths(at);
  return items.map((item) => {
    if (item.error?.code !== "FILE_NOT_FOUND") return item;
    const near = nearestNames(item.path, paths);
    return near.length === 0
      ? item
      : { ...item, error: { ...item.error, hint: nearestPathsHint(near) } };
  });
}

// Where the nearest paths are looked for: a commit, the caller's path groups,
// and the cache its listing is kept in (many pages of missing files, one Git run).
type ListedAt = {
  objects: MirrorObjects;
  commit: string;
  scope: PathScope;
  answers: GitAnswerCache | undefined;
};

// The paths of the commit within the caller's path groups; none when they
// cannot be listed (a hint is left out rather than failing the answer).
async function visiblePaths(at: ListedAt): Promise<string[]> {
  const paths = await commitPaths(at.objects.path, {
    commit: at.commit,
    pathspecs: at.scope.scope([]),
    cache: at.answers,
  }).catch(() => []);
  return paths.filter((path) => at.scope.covers(path));
}

const NEAREST_PATHS = "Nearest paths at this commit: ";
const NEAREST_PATHS_END = ". Call `list` to browse folders.";

function nearestPathsHint(near: string[]): string {
  return `${NEAREST_PATHS}${quotedNames(near)}${NEAREST_PATHS_END}`;
}

/**
 * The paths a FILE_NOT_FOUND's hint names as nearest (the hint is what
 * crosses replicas), whole names only; none for any other hint.
 */
export function nearestPathsOfHint(hint: string | undefined): string[] {
  if (hint === undefined || !hint.startsWith(NEAREST_PATHS) || !hint.endsWith(NEAREST_PATHS_END)) {
    return [];
  }
  try {
    const names: unknown = JSON.parse(
      `[${hint.slice(NEAREST_PATHS.length, hint.length - NEAREST_PATHS_END.length)}]`,
    );
    if (!Array.isArray(names)) return [];
    // A name cut short for the hint ends in "…": it names no file.
    return names.filter((name): name is string => typeof name === "string" && !name.endsWith("…"));
  } catch {
    return [];
  }
}

// A FILE_NOT_FOUND from a read, rethrown with the paths nearest to the missing
// one at that commit (within the caller's path groups); other errors as they are.
async function missingFile(
  error: unknown,
  at: ListedAt & { path: string },
): Promise<never> {
  if (!(error instanceof SourcegraphError) || error.code !== "FILE_NOT_FOUND") throw error;
  const near = nearestNames(at.path, await visiblePaths(at));
  if (near.length === 0) throw error;
  throw new SourcegraphError(error.code, error.message, { hint: nearestPathsHint(near) });
}

// What a rendered read adds to its content: the header (the path twice at
// most) and `N: ` before each of up to 500 lines.
const READ_HEADER_BYTES = 1024;
const READ_ROW_PREFIX_BYTES = 8;

// The content bytes that keep a read's answer within `maxBytes` (at least 1 KiB).
function contentBytes(maxBytes: number, path: string): number {
  const overhead = READ_HEADER_BYTES + 2 * utf8Length(path) +
    READ_MAX_LINES * READ_ROW_PREFIX_BYTES;
  return Math.max(1024, Math.min(READ_MAX_BYTES, maxBytes - overhead));
}

// What a rendered blame adds to its lines: the header, and before each of up
// to 500 lines its number and short SHA (a run's first row says more, which
// the rendering measures).
const BLAME_ROW_PREFIX_BYTES = 20;

// The line bytes that keep a blame's answer within `maxBytes` (at least 1 KiB).
function blameContentBytes(maxBytes: number, path: string): number {
  const overhead = READ_HEADER_BYTES + 2 * utf8Length(path) +
    READ_MAX_LINES * BLAME_ROW_PREFIX_BYTES;
  return Math.max(1024, Math.min(READ_MAX_BYTES, maxBytes - overhead));
}

// The search whose whole-word matches are a references page's candidate files.
function candidatesSearch(
  request: ReferencesRequest,
  at: { name: string; commit: string },
): RepositorySearchRequest {
  return {
    repo: request.repo,
    revision: at.commit,
    pattern: wholeWordPattern(at.name, { sigil: grammarLanguageOf(request.path) === "php" }),
    glob: request.glob,
    output: "content",
    maxLinesPerFile: 1000,
    maxFiles: REFERENCES_FILES_PER_PAGE,
    after: request.after,
    testsLast: true,
  };
}

// Most other names a declaration's references look for under (`#exportAliases`).
const MAX_EXPORT_ALIASES = 8;

// Whether a resolved declaration may be exported under another name: a TypeScript or JavaScript
// file's own top-level declaration (not a member, a local or another language's name).
function exportable(target: ResolvedDeclaration): boolean {
  return target.member !== true && target.scope === undefined && target.container === null &&
    target.via !== "scope" && isScriptPath(target.path);
}

// `import name from`, `import name, { ... } from`: the default export's local name.
const DEFAULT_IMPORT = /^\s*import\s+(?:type\s+)?([A-Za-z_$][A-Za-z0-9_$]*)\s*(?:,|from\b)/;
// `{ default as name }`, of an import or a re-export.
const DEFAULT_AS = /\bdefault\s+as\s+([A-Za-z_$][A-Za-z0-9_$]*)/g;
// `export { default } from`, `export { default, other } from`: the default re-exported as such.
const DEFAULT_REEXPORT = /^\s*export\s*(?:type\s*)?\{[^}]*\bdefault\b(?!\s+as\b)/;
// The search's pattern for those lines (`default as name` among them: their files are parsed).
const DEFAULT_REEXPORT_LINE = "^\\s*export\\s*\\{[^}]*\\bdefault\\b";

// The last part of the module specifiers naming a file: its name without extension, or for an
// index file its folder's name; null for an index file at the root.
function moduleStem(path: string): string | null {
  const parts = path.split("/");
  const stem = parts[parts.length - 1].replace(/\.(d\.)?[cm]?[jt]sx?$/, "");
  if (stem !== "index") return stem;
  return parts.length > 1 ? parts[parts.length - 2] : null;
}

// Text as a regular expression matching it literally.
function escapedPattern(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
}

// The name as a regular expression (its `$` escaped).
function escapedName(name: string): string {
  return name.replaceAll("$", "\\$");
}

// Any of the names as a whole word.
function wordsPattern(names: string[]): string {
  return `(?:^|[^A-Za-z0-9_$])(?:${names.map(escapedName).join("|")})(?:[^A-Za-z0-9_$]|$)`;
}

// The key of a blob kept across calls: its repository's and its own id.
function keptKey(repoId: number, oid: string): string {
  return `${repoId}:${oid}`;
}
