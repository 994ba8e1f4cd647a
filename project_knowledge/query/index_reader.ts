/**
 * A long-lived read-only connection to the published index, reopened when
 * the published file changes (publication renames a new file over it, so its
 * inode changes). Keeping it open saves the open, the metadata checks and a
 * cold page cache on every search. It also memoizes per-term document
 * frequencies, which search uses to skip terms whose BM25 weight is zero.
 *
 * @module
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";
import { type CacheDir, publishedIndexExists } from "../project/cache_dir.ts";
import { KnowledgeError } from "../errors.ts";
import { type OpenIndex, openIndex, rebuildRequired } from "../index/index_store.ts";

/** The published index, opened for reading. */
export interface ReadableIndex extends OpenIndex {
  /** Number of chunks (FTS rows). */
  chunkCount: number;
  /** In how many chunks a term occurs. */
  documentFrequency(term: string): number;
}

interface OpenState {
  key: string;
  index: ReadableIndex;
}

/** Opens and caches the published index of one cache folder. */
export class IndexReader {
  #cache: CacheDir;
  #rootHash: string;
  #state: OpenState | null = null;

  /** Reads the index published in `cache` for the root with `rootHash`. */
  constructor(cache: CacheDir, rootHash: string) {
    this.#cache = cache;
    this.#rootHash = rootHash;
  }

  /** The published index, or null when there is none. Throws known errors. */
  current(): ReadableIndex | null {
    if (!publishedIndexExists(this.#cache)) {
      this.close();
      return null;
    }
    const key = fileKey(this.#cache.indexPath);
    if (this.#state?.key === key) return this.#state.index;
    this.close();
    const opened = openIndex(this.#cache.indexPath, { readOnly: true, rootHash: this.#rootHash });
    try {
      const index = readable(opened);
      this.#state = { key, index };
      return index;
    } catch (error) {
      opened.db.close();
      throw error;
    }
  }

  /** Closes the connection. */
  close(): void {
    try {
      this.#state?.index.db.close();
    } catch {
      // already closed
    }
    this.#state = null;
  }
}

function readable(opened: OpenIndex): ReadableIndex {
  const db: DatabaseSync = opened.db;
  let vocabulary: StatementSync;
  let chunkCount: number;
  try {
    db.exec("PRAGMA cache_size = -32768");
    db.exec("CREATE VIRTUAL TABLE temp.term_rows USING fts5vocab(main, chunk_terms, 'row')");
    vocabulary = db.prepare("SELECT doc FROM temp.term_rows WHERE term = ?");
    chunkCount = (db.prepare("SELECT count(*) AS n FROM chunks").get() as { n: number }).n;
  } catch {
    throw rebuildRequired("the index cannot be read");
  }
  const frequencies = new Map<string, number>();
  return {
    ...opened,
    chunkCount,
    documentFrequency(term: string): number {
      let frequency = frequencies.get(term);
      if (frequency === undefined) {
        try {
          frequency = (vocabulary.get(term) as { doc: number } | undefined)?.doc ?? 0;
        } catch {
          throw rebuildRequired("the index cannot be searched");
        }
        if (frequencies.size > 100_000) frequencies.clear();
        frequencies.set(term, frequency);
      }
      return frequency;
    },
  };
}

function fileKey(path: string): string {
  try {
    const stat = Deno.lstatSync(path);
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtime?.getTime()}:${stat.ctime?.getTime()}`;
  } catch {
    throw new KnowledgeError("cache_unavailable", "cache file unavailable");
  }
}
