/**
 * Searches of visible repositories at resolved commits: path-group scope
 * applied before and after the search, the commit's index when it is
 * built (its chunks scanned by `scanner`'s workers when a search reads
 * many), and identical searches running at the same time answered by one
 * computation.
 *
 * @module
 */

import type { PathScope } from "../access/path_scope.ts";
import type { MirrorReaders } from "../git/mirror_readers.ts";
import type { RepositoryRecord } from "../store/control_store.ts";
import { searchCommit, type SearchOutcome } from "./code_search.ts";
import type { CompiledSearch } from "./query/compiled_search.ts";
import type { IndexedCommit } from "./index/index_reader.ts";
import type { SearchIndexes } from "./search_indexes.ts";
import type { ChunkScanner } from "./scan/chunk_scanner.ts";

/** Searches with one computation per identical concurrent request. */
export class SharedSearches {
  #mirrors: MirrorReaders;
  #indexes: SearchIndexes;
  #scanner: ChunkScanner | undefined;
  #running = new Map<string, Promise<SearchOutcome>>();
  #onShared: () => void;

  /** Searches `mirrors`, through `indexes` where they are built. */
  constructor(
    mirrors: MirrorReaders,
    options: { indexes: SearchIndexes; scanner?: ChunkScanner; onShared?: () => void },
  ) {
    this.#mirrors = mirrors;
    this.#indexes = options.indexes;
    this.#scanner = options.scanner;
    this.#onShared = options.onShared ?? (() => {});
  }

  /**
   * Runs `search` (compiled with its paths already within `scope`) on `repo`
   * at `commit`; the outcome is the caller's own (its file entries are shared: read them only).
   */
  async search(
    repo: RepositoryRecord,
    request: { search: CompiledSearch; commit: string; scope: PathScope },
  ): Promise<SearchOutcome> {
    const { commit, scope, search } = request;
    // The caller's own outcome and list of files; the file entries are shared
    // with identical searches and never changed (a deep copy of a thousand
    // files cost about 4 ms a search).
    const shared = await this.#once(repo, { commit, search });
    const outcome = { ...shared, files: [...shared.files] };
    if (!scope.full) {
      outcome.files = outcome.files.filter((file) => scope.covers(file.path));
      outcome.fileCount = outcome.files.length;
      outcome.matchCount = outcome.files.reduce((sum, file) => sum + file.matchCount, 0);
    }
    return outcome;
  }

  /** The index of `repo` at `commit`, or null while it is not built (or indexes are off). */
  indexedCommit(repo: RepositoryRecord, commit: string): IndexedCommit | null {
    return this.#indexes.commit(repo, commit);
  }

  #once(
    repo: RepositoryRecord,
    at: { commit: string; search: CompiledSearch },
  ): Promise<SearchOutcome> {
    const key = JSON.stringify([repo.id, at.commit, at.search.key]);
    const running = this.#running.get(key);
    if (running) {
      this.#onShared();
      return running;
    }
    const search = searchCommit(this.#mirrors.objects(repo), {
      search: at.search,
      commit: at.commit,
      index: this.#indexes.commit(repo, at.commit),
      scanner: this.#scanner,
    }).finally(() => this.#running.delete(key));
    this.#running.set(key, search);
    return search;
  }
}
