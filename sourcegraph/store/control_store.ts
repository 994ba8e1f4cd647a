/**
 * The control store: registered repositories, the observed head of each
 * monitored branch, the retained versions, sync outcomes, personal keys
 * (hashes), idempotency records, web sign-in sessions and OAuth clients, codes and tokens. Two
 * implementations keep the same contract: the SQLite file of the single
 * process (`sqlite_control_store.ts`, the default) and PostgreSQL shared by
 * replicas (`postgres/postgres_control_store.ts`).
 *
 * Reads answer at once, without waiting on a database server: SQLite reads
 * its file, PostgreSQL answers from a cache that every replica keeps
 * current through `LISTEN`/`NOTIFY`. Writes (and the lookups that only
 * writes need: idempotency records and sessions) are asynchronous, and a
 * write is visible to the writer's own reads when its promise resolves.
 *
 * @module
 */

import type { OAuthStore } from "./oauth_records.ts";
import type { SessionStore } from "./session_records.ts";

/** How many versions to keep, by count and/or age. */
export interface RetentionPolicy {
  /** Monitored branches; empty: the source's default branch. */
  branches: string[];
  /** The branch an omitted revision means (the default-branch policy). */
  defaultBranch?: string;
  /** Keep at most this many versions (default 20). */
  count?: number;
  /** Keep versions observed within this many days. */
  days?: number;
}

/** A named set of folders of a monorepo registration. */
export interface PathGroup {
  name: string;
  paths: string[];
}

/** A registered repository. */
export interface RepositoryRecord {
  id: number;
  name: string;
  source: string;
  publicRead: boolean;
  disabled: boolean;
  policy: RetentionPolicy;
  pathGroups: PathGroup[];
  syncIntervalMinutes: number;
}

/**
 * What registering a repository takes (the store numbers it; it starts
 * enabled). `commandLine`: registered from the service's command line, which
 * a later command line that no longer names it unregisters.
 */
export type NewRepository = Omit<RepositoryRecord, "id" | "disabled"> & { commandLine?: boolean };

/** The fields of a registered repository that may change. */
export type RepositoryUpdate = Partial<Omit<RepositoryRecord, "id" | "name">>;

/** A retained version. */
export interface VersionRecord {
  commit: string;
  committerTime: number | null;
  observedAt: number;
}

/** A remembered idempotent request: its repository, stored result and request digest. */
export interface JobRecord {
  repositoryId: number;
  result: string;
  requestHash: string | null;
}

/** How long idempotency keys (admin API and `prepare`) are remembered. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The last sync outcome of a repository. */
export interface SyncStateRecord {
  state: string;
  lastError: string | null;
  /** When it was recorded (ms since the epoch; null: never). */
  updatedAt: number | null;
}

/** A branch head as a sync observed it. */
export interface ObservedHead {
  branch: string;
  commit: string;
  committerTime: number | null;
}

/** The control store (SQLite or PostgreSQL). */
export interface ControlStore {
  /** Which implementation this is. */
  readonly kind: "sqlite" | "postgres";
  /** The web sign-in sessions. */
  readonly sessions: SessionStore;
  /** OAuth clients, codes and tokens. */
  readonly oauth: OAuthStore;
  /** All repositories, by name. */
  repositories(): RepositoryRecord[];
  /** One repository by name, or null. */
  repository(name: string): RepositoryRecord | null;
  /** Observed heads of a repository's branches. */
  heads(repositoryId: number): Map<string, string>;
  /** Retained versions, newest observation first. */
  versions(repositoryId: number): VersionRecord[];
  /** The retained version `commit`, or null. */
  isRetained(repositoryId: number, commit: string): VersionRecord | null;
  /** The last sync outcome (state `pending` and no time when there was none). */
  syncState(repositoryId: number): SyncStateRecord;
  /** The id of the personal key with this hash, or null. */
  keyByHash(keyHash: string): string | null;
  /** Whether the personal key `id` exists (was not revoked). */
  hasKey(id: string): boolean;
  /**
   * Whether the personal key `id` exists, read from the store itself rather
   * than a replica's copy: a key another replica created a moment ago is
   * there before its change notification arrives.
   */
  keyExistsNow(id: string): Promise<boolean>;
  /** Registers a repository (ids are never reused); `RepositoryNameTaken` for a taken name. */
  register(input: NewRepository): Promise<RepositoryRecord>;
  /** Records a branch head and its version. */
  observe(repositoryId: number, head: ObservedHead): Promise<void>;
  /** Drops versions no longer retained. */
  forget(repositoryId: number, commits: readonly string[]): Promise<void>;
  /** Records the outcome of a sync. */
  setSyncState(
    repositoryId: number,
    outcome: { state: string; lastError: string | null },
  ): Promise<void>;
  /** Updates a repository's mutable fields; null when there is no such repository. */
  update(name: string, changes: RepositoryUpdate): Promise<RepositoryRecord | null>;
  /** Deletes a repository and its bookkeeping. */
  remove(repositoryId: number): Promise<void>;
  /**
   * The ids of the repositories registered from the service's command line
   * (never those of the admin API or `sourcegraph.toml`).
   */
  commandLineRepositories(): Promise<number[]>;
  /** Stores a personal key's hash. */
  addKey(id: string, key: { keyHash: string; name: string }): Promise<void>;
  /** Deletes a personal key; resolves whether it existed. */
  removeKey(id: string): Promise<boolean>;
  /** The stored job of an idempotency key within the retention, or null. */
  job(key: string): Promise<JobRecord | null>;
  /** Stores an idempotent job's result unless the key has one (and forgets jobs past the retention). */
  saveJob(
    key: string,
    job: { repositoryId: number; result: string; requestHash?: string | null },
  ): Promise<void>;
  /** Closes the store. */
  close(): Promise<void>;
}

/** A registration raced another for the same name (the other won). */
export class RepositoryNameTaken extends Error {
  override readonly name = "RepositoryNameTaken";

  /** For repository `repositoryName`. */
  constructor(repositoryName: string) {
    super(`a repository named ${repositoryName} is registered`);
  }
}

// The policy column keeps the registration's snake_case JSON (stores written
// by earlier versions hold it that way).
/** A retention policy as the stores keep it (snake_case JSON). */
export function policyColumn(policy: RetentionPolicy): string {
  const { defaultBranch, ...rest } = policy;
  return JSON.stringify({
    ...rest,
    ...(defaultBranch !== undefined ? { default_branch: defaultBranch } : {}),
  });
}

/** A retention policy from its stored JSON (text or already parsed). */
export function policyFromColumn(column: string | Record<string, unknown>): RetentionPolicy {
  const parsed = typeof column === "string" ? JSON.parse(column) : column;
  const { default_branch: defaultBranch, ...rest } = parsed;
  return {
    ...rest,
    ...(defaultBranch !== undefined ? { defaultBranch } : {}),
  } as RetentionPolicy;
}
