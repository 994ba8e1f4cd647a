/**
 * A map that holds at most a fixed number of entries and forgets the least
 * recently used one first: the bounded cache the services keep of things
 * that are dear to make again (compiled searches, parsed trees, sessions,
 * counts). Reading an entry with {@linkcode RecentMap.get} makes it the most
 * recently used; {@linkcode RecentMap.peek} reads without that.
 *
 * @example
 * ```ts
 * import { RecentMap } from "./recent_map.ts";
 *
 * const kept = new RecentMap<string, number>(2);
 * kept.set("a", 1);
 * kept.set("b", 2);
 * kept.get("a"); // "a" is now the most recently used
 * kept.set("c", 3); // forgets "b"
 * if ([...kept.keys()].join() !== "a,c") throw new Error([...kept.keys()].join());
 * ```
 *
 * @module
 */

/** A map of at most `limit` entries that forgets the least recently used first. */
export class RecentMap<K, V> {
  // A Map iterates in insertion order: the first key is the least recently used.
  #entries = new Map<K, V>();
  #limit: number;

  #forgotten: ((key: K, value: V) => void) | undefined;

  /**
   * A map that holds at most `limit` (at least 1) entries; `forgotten` hears
   * of each entry it forgets to make room (to close what the value holds).
   */
  constructor(limit: number, options: { forgotten?: (key: K, value: V) => void } = {}) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`a RecentMap holds at least one entry, not ${limit}`);
    }
    this.#limit = limit;
    this.#forgotten = options.forgotten;
  }

  /** How many entries it holds. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value kept under `key`, now the most recently used; undefined if none. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** The value kept under `key` without making it the most recently used. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /**
   * Keeps `value` under `key` as the most recently used entry, forgetting
   * the least recently used one when that passes the limit.
   */
  set(key: K, value: V): this {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#limit) {
      const [oldest, forgotten] = this.#entries.entries().next().value!;
      this.#entries.delete(oldest);
      this.#forgotten?.(oldest, forgotten);
    }
    return this;
  }

  /** Forgets `key`; whether it was kept. */
  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Forgets every entry. */
  clear(): void {
    this.#entries.clear();
  }

  /** The keys, least recently used first. */
  keys(): MapIterator<K> {
    return this.#entries.keys();
  }
}
