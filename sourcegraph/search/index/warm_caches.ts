/**
 * Larger SQLite page caches for the few indexes searched last. A search
 * reads each candidate chunk's page through SQLite's page cache, which
 * keeps 2 MiB of pages by default: the common literal `deno_core` of the
 * deno tree reads 1,328 chunks from 8 to 12 MiB of 16 KiB pages (a cache of
 * 8 MiB kept none of them from one search to the next, one of 12 MiB all),
 * so every search of it, and every next page of it, read them all from the
 * file again: a system call and a 16 KiB copy a page, 2.4 of the 4.9
 * processor-ms its statements took (2-core AMD EPYC VM, load about 20).
 * The last `count` indexes searched keep `kib` each; an index that drops
 * out of them goes back to SQLite's default, which frees its other pages.
 * Memory stays bounded whatever the number of repositories: at most
 * `count` times `kib` beyond the defaults.
 *
 * @module
 */

import { DEFAULT_CACHE_KIB } from "./index_database.ts";

/** Indexes whose page caches are kept larger, by default. */
export const WARM_INDEXES = 4;
/** KiB of pages a warm index keeps, by default. */
export const WARM_CACHE_KIB = 16 * 1024;

/** What a warm cache is set on: an index's connection (`IndexDatabase`). */
export interface CacheSized {
  cacheKib: number;
}

/** The indexes searched last, whose page caches are larger. */
export class WarmCaches<Index extends CacheSized = CacheSized> {
  #warm = new Set<Index>();
  #count: number;
  #kib: number;

  /** At most `count` warm indexes of `kib` KiB each (defaults `WARM_INDEXES`, `WARM_CACHE_KIB`). */
  constructor(options: { count?: number; kib?: number } = {}) {
    this.#count = options.count ?? WARM_INDEXES;
    this.#kib = options.kib ?? WARM_CACHE_KIB;
  }

  /** `index` is searched: it becomes the last warm one (the oldest cools past `count`). */
  searched(index: Index): void {
    if (this.#warm.delete(index)) {
      this.#warm.add(index);
      return;
    }
    this.#warm.add(index);
    index.cacheKib = this.#kib;
    if (this.#warm.size <= this.#count) return;
    const oldest = this.#warm.values().next().value!;
    this.#warm.delete(oldest);
    oldest.cacheKib = DEFAULT_CACHE_KIB;
  }

  /** `index` is closed: it no longer counts. */
  forget(index: Index): void {
    this.#warm.delete(index);
  }

  /** The warm indexes, oldest first. */
  get warm(): Index[] {
    return [...this.#warm];
  }
}
