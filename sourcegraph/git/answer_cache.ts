/**
 * Answers of Git commands whose inputs never change (a full commit SHA, a
 * path, a line range), kept by key so a repeated blame or history costs no
 * Git at all. The cache is bounded by an estimate of the bytes it holds:
 * the least recently used answers are dropped first, and an answer over an
 * eighth of the bound is never kept.
 *
 * @module
 */

/** The bound of the service's cache of blames, histories and commits' listings. */
export const ANSWER_CACHE_BYTES = 32 * 1024 * 1024;

/** Answers kept by key within a byte bound (least recently used dropped first). */
export class GitAnswerCache {
  #entries = new Map<string, { value: unknown; bytes: number }>();
  #bytes = 0;
  /** Hits and misses, for tests and benchmarks. */
  readonly counts = { hits: 0, misses: 0 };

  /** A cache of at most `maxBytes` (estimated; default `ANSWER_CACHE_BYTES`). */
  constructor(readonly maxBytes: number = ANSWER_CACHE_BYTES) {}

  /** The estimated bytes held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The answer kept for `key`, now the most recently used. */
  get<T>(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      this.counts.misses++;
      return undefined;
    }
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    this.counts.hits++;
    return entry.value as T;
  }

  /** Keeps `value` (a plain JSON value) for `key`, dropping the oldest past the bound. */
  set(key: string, value: unknown): void {
    // UTF-16 strings: two bytes a character, for the key and the value alike.
    const bytes = 2 * (key.length + JSON.stringify(value).length) + 64;
    if (bytes > this.maxBytes / 8) return;
    const old = this.#entries.get(key);
    if (old !== undefined) {
      this.#entries.delete(key);
      this.#bytes -= old.bytes;
    }
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.bytes;
    }
  }
}

/**
 * `answer` from `cache` under `key`, else `compute`d and kept (failures are
 * not kept); no cache: computed.
 */
export async function cachedAnswer<T>(
  cache: GitAnswerCache | undefined,
  key: string,
  compute: () => Promise<T>,
): Promise<T> {
  if (cache === undefined) return await compute();
  const kept = cache.get<T>(key);
  if (kept !== undefined) return structuredClone(kept);
  const answer = await compute();
  cache.set(key, answer);
  return answer;
}
