/**
 * Plugin catalogs by (store, repository, commit, scope), with the module
 * bytes discovery read. Empty catalogs are cached; catalogs with
 * catalog-level issues (a transient scan or read failure) are not.
 * Concurrent misses of one key share one discovery. At most 64 snapshots
 * and 128 MiB of module bytes are kept (least recently used go first);
 * snapshots idle for 10 minutes are swept. Callers get copies.
 *
 * @module
 */

import type { PluginCatalog } from "./plugin_discovery.ts";

/** A module's bytes and their SHA-256 (the compile cache key), computed once per snapshot. */
export interface Artifact {
  bytes: Uint8Array;
  digest: string;
}

/** A catalog and the modules by plugin path. */
export interface CatalogSnapshot {
  catalog: PluginCatalog;
  artifacts: Map<string, Artifact>;
}

interface Entry {
  snapshot: CatalogSnapshot;
  bytes: number;
  usedAt: number;
}

/** Cache limits. */
export const CATALOG_LIMITS = {
  snapshots: 64,
  artifactBytes: 128 * 1024 * 1024,
  idleMs: 10 * 60_000,
};

/** The catalog cache. */
export class CatalogCache {
  #entries = new Map<string, Entry>();
  #pending = new Map<string, Promise<CatalogSnapshot>>();
  #bytes = 0;
  #timer: ReturnType<typeof setInterval>;
  /** Discoveries run (misses that were not coalesced). */
  discoveries = 0;

  /** Starts the idle sweep. */
  constructor() {
    this.#timer = setInterval(() => this.sweep(performance.now()), 60_000);
    Deno.unrefTimer(this.#timer);
  }

  /** The snapshot of `key`, discovering it with `discover` on a miss. */
  async get(key: string, discover: () => Promise<CatalogSnapshot>): Promise<CatalogSnapshot> {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      entry.usedAt = performance.now();
      return copy(entry.snapshot);
    }
    let pending = this.#pending.get(key);
    if (!pending) {
      this.discoveries++;
      pending = discover().then((snapshot) => {
        if (!snapshot.catalog.issues?.length) this.#store(key, snapshot);
        return snapshot;
      }).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return copy(await pending);
  }

  /** Whether `key` is cached. */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** Drops snapshots unused since `now - idleMs`. */
  sweep(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (now - entry.usedAt > CATALOG_LIMITS.idleMs) this.#drop(key);
    }
  }

  /** Stops the sweep. */
  close(): void {
    clearInterval(this.#timer);
  }

  #store(key: string, snapshot: CatalogSnapshot): void {
    const bytes = [...snapshot.artifacts.values()].reduce((sum, a) => sum + a.bytes.length, 0);
    if (bytes > CATALOG_LIMITS.artifactBytes) return;
    this.#drop(key);
    this.#entries.set(key, { snapshot, bytes, usedAt: performance.now() });
    this.#bytes += bytes;
    while (
      this.#entries.size > CATALOG_LIMITS.snapshots || this.#bytes > CATALOG_LIMITS.artifactBytes
    ) {
      this.#drop(this.#entries.keys().next().value!);
    }
  }

  #drop(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}

function copy(snapshot: CatalogSnapshot): CatalogSnapshot {
  return { catalog: structuredClone(snapshot.catalog), artifacts: snapshot.artifacts };
}
