/**
 * The search indexes of the service: one file per repository under
 * `<data>/search_index/`, built in the background after each successful
 * sync (one build at a time for the whole service, so memory and CPU stay
 * bounded), never on a request path. Builds index every retained commit
 * that is not indexed yet, then drop commits no longer retained and the
 * blobs none of the rest uses. A file that cannot be read is logged and
 * rebuilt from the mirror (the index holds nothing the mirror does not).
 *
 * @module
 */

import * as fs from "node:fs";
import { join } from "node:path";
import type { MirrorReaders } from "../../git/mirror_readers.ts";
import type { RepositoryRecord } from "../../store/control_store.ts";
import { buildCommitIndex } from "./index_builder.ts";
import { IndexDatabase, IndexUnusable } from "./index_database.ts";
import { IndexedCommit } from "./index_reader.ts";
import { pruneIndex } from "./index_prune.ts";
import { TrigramCollector } from "./trigrams.ts";

/** Where a repository's index lives. */
export function indexPath(dataDir: string, repo: RepositoryRecord): string {
  return join(dataDir, "search_index", `${repo.id}.sqlite3`);
}

/** The indexes of the registered repositories. */
export class SearchIndexes {
  #dataDir: string;
  #mirrors: MirrorReaders;
  #log: (line: string) => void;
  #open = new Map<number, IndexDatabase>();
  #commits = new Map<string, IndexedCommit>();
  #queue: Promise<void> = Promise.resolve();
  #pending = new Map<number, { repo: RepositoryRecord; commits: string[] }>();
  #removed = new Set<number>();
  #collector: TrigramCollector | null = null;
  #closed = false;
  #enabled: boolean;

  /** Indexes below `dataDir` of the mirrors `mirrors` reads. */
  constructor(
    dataDir: string,
    options: { enabled: boolean; mirrors: MirrorReaders; log: (line: string) => void },
  ) {
    this.#dataDir = dataDir;
    this.#enabled = options.enabled;
    this.#mirrors = options.mirrors;
    this.#log = options.log;
  }

  /** The indexed `commit` of `repo`, or null while it is not indexed. */
  commit(repo: RepositoryRecord, commit: string): IndexedCommit | null {
    if (!this.#enabled) return null;
    const key = `${repo.id}\0${commit}`;
    const cached = this.#commits.get(key);
    if (cached) return cached;
    const index = this.#database(repo, { create: false });
    const indexed = index === null ? null : IndexedCommit.open(index, commit);
    if (indexed !== null) {
      this.#commits.set(key, indexed);
      while (this.#commits.size > 64) this.#commits.delete(this.#commits.keys().next().value!);
    }
    return indexed;
  }

  /**
   * Schedules indexing `repo` at `retained` commits (newest first) and
   * dropping the others; returns when that work is done.
   */
  schedule(repo: RepositoryRecord, retained: readonly string[]): Promise<void> {
    if (!this.#enabled) return Promise.resolve();
    this.#removed.delete(repo.id);
    const waiting = this.#pending.has(repo.id);
    this.#pending.set(repo.id, { repo, commits: [...retained] });
    if (waiting) return this.#queue;
    this.#queue = this.#queue.then(() => this.#run(repo.id)).catch((error) =>
      this.#log(`search index build failed unexpectedly: ${(error as Error)?.stack ?? error}`)
    );
    return this.#queue;
  }

  /** Deletes `repo`'s index (a running build of it stops at its next blob). */
  async remove(repo: RepositoryRecord): Promise<void> {
    this.#removed.add(repo.id);
    this.#pending.delete(repo.id);
    await this.#queue;
    this.#forget(repo.id);
    const path = indexPath(this.#dataDir, repo);
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(path + suffix, { force: true });
  }

  /** Closes every index (builds stop at their next blob). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#pending.clear();
    await this.#queue;
    for (const id of [...this.#open.keys()]) this.#forget(id);
  }

  async #run(id: number): Promise<void> {
    const job = this.#pending.get(id);
    this.#pending.delete(id);
    if (!job || this.#closed || this.#removed.has(id)) return;
    const { repo, commits } = job;
    const index = this.#database(repo, { create: true });
    if (index === null) return;
    this.#collector ??= new TrigramCollector();
    const cancelled = () => this.#closed || this.#removed.has(id);
    for (const commit of commits) {
      const stats = await buildCommitIndex(index, {
        mirror: this.#mirrors.path(repo),
        commit,
        collector: this.#collector,
        cancelled,
      }).catch((error) => {
        if (!cancelled()) {
          this.#log(`search index of ${repo.name} at ${commit.slice(0, 12)} failed: ${error}`);
        }
        return null;
      });
      if (stats === null) continue;
      const mib = stats.newBytes / 1024 / 1024;
      this.#log(
        `search index of ${repo.name} at ${commit.slice(0, 12)}: ${stats.files} files, ` +
          `${stats.newBlobs} new blobs (${mib.toFixed(1)} MiB) in ${stats.ms} ms` +
          (stats.ms > 0 ? ` (${(mib / (stats.ms / 1000)).toFixed(1)} MiB/s)` : ""),
      );
    }
    if (cancelled()) return;
    const dropped = pruneIndex(index, { retained: commits });
    for (const commit of dropped) this.#commits.delete(`${id}\0${commit}`);
    if (dropped.length > 0) {
      this.#log(`search index of ${repo.name}: dropped ${dropped.length} pruned version(s)`);
    }
    // Let the builder's 32 MiB of bookkeeping go when nothing else is queued.
    if (this.#pending.size === 0) this.#collector = null;
  }

  #database(repo: RepositoryRecord, options: { create: boolean }): IndexDatabase | null {
    const open = this.#open.get(repo.id);
    if (open) return open;
    const path = indexPath(this.#dataDir, repo);
    if (!options.create && !fs.existsSync(path)) return null;
    fs.mkdirSync(join(this.#dataDir, "search_index"), { recursive: true, mode: 0o700 });
    let index: IndexDatabase;
    try {
      index = new IndexDatabase(path);
    } catch (error) {
      if (!(error instanceof IndexUnusable)) throw error;
      if (!options.create) return null; // searched without it until the next build replaces it
      this.#log(`${error.message}; rebuilding it from the mirror`);
      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(path + suffix, { force: true });
      index = new IndexDatabase(path);
    }
    this.#open.set(repo.id, index);
    return index;
  }

  #forget(id: number): void {
    for (const key of [...this.#commits.keys()]) {
      if (key.startsWith(`${id}\0`)) this.#commits.delete(key);
    }
    this.#open.get(id)?.close();
    this.#open.delete(id);
  }
}
