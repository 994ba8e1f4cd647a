/**
 * The PostgreSQL store's copy of what reads need: registrations, observed
 * heads, retained versions, sync outcomes and personal keys (hashes). A
 * snapshot of one topic (a repository, or all keys) replaces that topic's
 * entries only if it was read later than the one applied before: every
 * load takes a number when it starts, and an older load that finishes late
 * is dropped, so a full refresh racing a single write never brings back
 * what the write changed.
 *
 * @module
 */

import type { RepositoryRecord, SyncStateRecord, VersionRecord } from "../control_store.ts";

/** What the store holds of one repository (`record` null: it is gone). */
export interface RepositorySnapshot {
  id: number;
  record: RepositoryRecord | null;
  heads: Map<string, string>;
  versions: VersionRecord[];
  syncState: SyncStateRecord | null;
}

/** The cached tables. */
export class ControlCache {
  #repositories = new Map<number, RepositoryRecord>();
  #byName = new Map<string, number>();
  #sorted: RepositoryRecord[] | null = null;
  #heads = new Map<number, Map<string, string>>();
  #versions = new Map<number, readonly VersionRecord[]>();
  #syncStates = new Map<number, SyncStateRecord>();
  #keys = new Map<string, string>();
  #keyIds = new Set<string>();
  #loads = 0;
  #appliedAt = new Map<string, number>();

  /** A number for a load about to start (later loads get larger ones). */
  beginLoad(): number {
    return ++this.#loads;
  }

  /** All repositories, by name (binary order of the name, as SQLite sorts). */
  repositories(): RepositoryRecord[] {
    this.#sorted ??= [...this.#repositories.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0
    );
    return [...this.#sorted];
  }

  /** One repository by name. */
  repository(name: string): RepositoryRecord | null {
    const id = this.#byName.get(name);
    return id === undefined ? null : this.#repositories.get(id) ?? null;
  }

  /** A repository's observed heads (a copy). */
  heads(id: number): Map<string, string> {
    return new Map(this.#heads.get(id) ?? []);
  }

  /** A repository's retained versions, newest observation first (a copy). */
  versions(id: number): VersionRecord[] {
    return [...(this.#versions.get(id) ?? [])];
  }

  /** A repository's last sync outcome, if one was recorded. */
  syncState(id: number): SyncStateRecord | null {
    return this.#syncStates.get(id) ?? null;
  }

  /** The key id of a hash. */
  keyByHash(hash: string): string | null {
    return this.#keys.get(hash) ?? null;
  }

  /** Whether a key id exists. */
  hasKey(id: string): boolean {
    return this.#keyIds.has(id);
  }

  /** Applies a repository's snapshot read by load `load`, unless a later one was applied. */
  applyRepository(snapshot: RepositorySnapshot, load: number): void {
    if (!this.#newer(`repository:${snapshot.id}`, load)) return;
    const { id, record } = snapshot;
    const previous = this.#repositories.get(id);
    if (previous) this.#byName.delete(previous.name);
    this.#sorted = null;
    if (record === null) {
      for (const table of [this.#repositories, this.#heads, this.#versions, this.#syncStates]) {
        table.delete(id);
      }
      return;
    }
    this.#repositories.set(id, deepFreeze(record));
    this.#byName.set(record.name, id);
    this.#heads.set(id, snapshot.heads);
    this.#versions.set(id, deepFreeze(snapshot.versions));
    if (snapshot.syncState) this.#syncStates.set(id, Object.freeze(snapshot.syncState));
    else this.#syncStates.delete(id);
  }

  /**
   * Applies a full read by load `load`: every repository in `snapshots`,
   * and the removal of cached ones it no longer has.
   */
  applyAll(snapshots: RepositorySnapshot[], load: number): void {
    const present = new Set(snapshots.map((snapshot) => snapshot.id));
    for (const snapshot of snapshots) this.applyRepository(snapshot, load);
    for (const id of [...this.#repositories.keys()]) {
      if (!present.has(id)) {
        this.applyRepository(
          { id, record: null, heads: new Map(), versions: [], syncState: null },
          load,
        );
      }
    }
  }

  /** Applies the personal keys (hash → id) read by load `load`. */
  applyKeys(keys: Map<string, string>, load: number): void {
    if (!this.#newer("keys", load)) return;
    this.#keys = keys;
    this.#keyIds = new Set(keys.values());
  }

  #newer(topic: string, load: number): boolean {
    if ((this.#appliedAt.get(topic) ?? 0) > load) return false;
    this.#appliedAt.set(topic, load);
    return true;
  }
}

// Cached records are shared by every reader: frozen, so none can change another's.
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
