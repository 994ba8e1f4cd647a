/**
 * This replica's view of the cluster: who is alive (heartbeat rows younger
 * than the expiry), which replicas own each repository (`placement.ts`),
 * and which replicas hold which retained versions of it. The view is kept
 * in memory, refreshed by this replica's own heartbeat (every interval it
 * writes its row and reads the live ones) and by notifications (a join, a
 * clean leave, a holding recorded), so routing a read asks PostgreSQL
 * nothing. While the database is unreachable the last view stays in use.
 *
 * @module
 */

import type { RepositoryRecord } from "../store/control_store.ts";
import type {
  ClusterTables,
  HoldingRows,
  ReplicaRow,
} from "../store/postgres/pg_cluster_tables.ts";
import { ownersOf, rankedReplicas } from "./placement.ts";

/** A replica as others reach it. */
export interface Replica {
  name: string;
  /** Base URL of its internal listener. */
  internalUrl: string;
}

/** The cluster settings of this replica. */
export interface ClusterSettings {
  replicaName: string;
  internalUrl: string;
  heartbeatMs: number;
  expiryMs: number;
  /** Owners per repository (fewer while fewer replicas are alive). */
  replication: number;
}

/** What a replica holds of one repository, as routing sees it. */
export interface Holder extends Replica {
  /** Whether it holds every retained version the store lists now. */
  complete: boolean;
  owner: boolean;
}

/** The cluster as this replica sees it. */
export class Cluster {
  readonly settings: ClusterSettings;
  #tables: ClusterTables;
  #live: ReplicaRow[] = [];
  #holdings: HoldingRows = new Map();
  #pins = new Map<number, string[]>();
  #startedAt = Date.now();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #listeners: (() => void)[] = [];
  #log: (line: string) => void;
  #stopped = false;
  #unreachableSince: number | null = null;
  #recoveredAt = -Infinity;
  #applying: Promise<void> = Promise.resolve();

  /** The cluster of `tables`, as replica `settings.replicaName`. */
  constructor(
    tables: ClusterTables,
    settings: ClusterSettings,
    options: { log: (line: string) => void },
  ) {
    this.#tables = tables;
    this.settings = settings;
    this.#log = options.log;
  }

  /** This replica's name. */
  get self(): string {
    return this.settings.replicaName;
  }

  /** Announces this replica, loads the view and starts the heartbeat. */
  async join(): Promise<void> {
    await this.#beat();
    [this.#holdings, this.#pins] = await Promise.all([
      this.#tables.holdings(),
      this.#tables.pins(),
    ]);
    this.#schedule();
  }

  /** Calls `listener` whenever membership, pins or holdings change. */
  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Applies a notified change (`replicas`, `pins`, `holding:<id>`, `all`;
   * others change nothing here) after the ones notified before it, so what
   * waits for a change is decided on a view that has every earlier one: a
   * repository registered just after a join is placed among the replicas
   * that include the one that joined.
   */
  changed(topic: string): Promise<void> {
    const applied = this.#applying.then(() => this.#apply(topic));
    this.#applying = applied.catch(() => {});
    return applied;
  }

  async #apply(topic: string): Promise<void> {
    if (topic === "replicas") await this.#readLive();
    else if (topic === "pins") this.#pins = await this.#tables.pins();
    else if (topic.startsWith("holding:")) {
      const id = Number(topic.slice("holding:".length));
      const one = await this.#tables.holdings(id);
      this.#holdings.set(id, one.get(id) ?? new Map());
    } else if (topic === "all") {
      [this.#holdings, this.#pins] = await Promise.all([
        this.#tables.holdings(),
        this.#tables.pins(),
      ]);
    } else return;
    this.#emit();
  }

  /** The live replicas, by name. */
  live(): Replica[] {
    return this.#live.map((row) => ({ name: row.name, internalUrl: row.internalUrl }));
  }

  /** The owners of `repo` among the live replicas, best first. */
  owners(repo: RepositoryRecord): string[] {
    const names = this.#liveNames();
    return ownersOf(repo.name, {
      replicas: names,
      replication: this.settings.replication,
      pins: this.#pins.get(repo.id),
    });
  }

  /** Whether this replica owns `repo`. */
  owns(repo: RepositoryRecord): boolean {
    return this.owners(repo).includes(this.self);
  }

  /** The commits replica `name` holds of a repository (empty: none). */
  held(repositoryId: number, name = this.self): string[] {
    return this.#holdings.get(repositoryId)?.get(name) ?? [];
  }

  /**
   * The live replicas holding `repo`, in the order to ask them: complete
   * holders before partial ones, owners before the rest, then by rank.
   */
  holders(repo: RepositoryRecord, retained: readonly string[]): Holder[] {
    const owners = new Set(this.owners(repo));
    const urls = new Map(this.#live.map((row) => [row.name, row.internalUrl]));
    const holding = this.#holdings.get(repo.id) ?? new Map<string, string[]>();
    return rankedReplicas(repo.name, this.#liveNames())
      .filter((name) => (holding.get(name)?.length ?? 0) > 0)
      .map((name) => {
        const commits = new Set(holding.get(name));
        return {
          name,
          internalUrl: urls.get(name)!,
          owner: owners.has(name),
          complete: retained.every((commit) => commits.has(commit)),
        };
      })
      .sort((a, b) => Number(b.complete) - Number(a.complete) || Number(b.owner) - Number(a.owner));
  }

  /** Records (and publishes) what this replica holds of a repository. */
  async hold(repositoryId: number, commits: readonly string[]): Promise<void> {
    // An unchanged holding is not written again: every write wakes every replica's rebalancer.
    const before = this.held(repositoryId);
    if (before.length === commits.length && commits.every((commit, i) => before[i] === commit)) {
      return;
    }
    await this.#tables.hold(repositoryId, this.self, commits);
    const holding = this.#holdings.get(repositoryId) ?? new Map<string, string[]>();
    if (commits.length === 0) holding.delete(this.self);
    else holding.set(this.self, [...commits]);
    this.#holdings.set(repositoryId, holding);
  }

  /** Pins a repository to `replicas` (null: placed by the hash again). */
  async pin(repositoryId: number, replicas: readonly string[] | null): Promise<void> {
    await this.#tables.setPin(repositoryId, replicas);
    this.#pins = await this.#tables.pins();
    this.#emit();
  }

  /** Stops the heartbeat and removes this replica's rows, so the others take over at once. */
  async leave(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    await this.#tables.leave(this.self).catch(() => {
      this.#log("could not announce the leave; the others see it when the heartbeat expires");
    });
  }

  #liveNames(): string[] {
    const names = this.#live.map((row) => row.name);
    // This replica counts itself alive even while its heartbeat cannot be written.
    return names.includes(this.self) ? names : [...names, this.self].sort();
  }

  async #beat(): Promise<void> {
    await this.#tables.heartbeat({
      name: this.self,
      internalUrl: this.settings.internalUrl,
      startedAt: this.#startedAt,
    });
    await this.#readLive();
  }

  async #readLive(): Promise<void> {
    let live = await this.#tables.liveReplicas(this.settings.expiryMs);
    // Right after an outage nobody could beat: the last view holds until an expiry has
    // passed, so replicas are not declared dead (and their repositories moved) for it.
    if (Date.now() - this.#recoveredAt < this.settings.expiryMs) {
      const names = new Set(live.map((row) => row.name));
      live = [...live, ...this.#live.filter((row) => !names.has(row.name))].sort((a, b) =>
        a.name < b.name ? -1 : 1
      );
    }
    const before = this.#live.map((row) => `${row.name}@${row.internalUrl}`).join(",");
    this.#live = live;
    if (live.map((row) => `${row.name}@${row.internalUrl}`).join(",") !== before) this.#emit();
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(async () => {
      // A failed beat keeps the last view: the database may be away for a while.
      try {
        if (this.#unreachableSince !== null) this.#recoveredAt = Date.now();
        await this.#beat();
        this.#unreachableSince = null;
      } catch {
        this.#unreachableSince ??= Date.now();
        this.#recoveredAt = -Infinity;
      }
      this.#schedule();
    }, this.settings.heartbeatMs);
  }

  #emit(): void {
    for (const listener of this.#listeners) listener();
  }
}

/** Whether `held` has every commit of `retained` (and is not empty). */
export function covers(held: readonly string[], retained: readonly string[]): boolean {
  if (held.length === 0) return false;
  const set = new Set(held);
  return retained.every((commit) => set.has(commit));
}
