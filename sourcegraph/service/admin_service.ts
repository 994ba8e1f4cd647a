/**
 * The operator's side of the service, for the admin API, the MCP `prepare`
 * tool and the start-up registrations: registering, updating and deleting
 * repositories, their fetch credentials, syncing now, and personal keys.
 * Requests that create something are idempotent (`idempotency.ts`); the
 * edges render answers, this module decides what happens.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import { keyHash } from "../access/credentials.ts";
import type { Visibility } from "../access/visibility.ts";
import { SourcegraphError } from "../errors.ts";
import type { CredentialStore, FetchCredential } from "../store/fetch_credentials.ts";
import { type FetchFailureCode, syncFailureCode } from "../git/fetch_failures.ts";
import type { SyncScheduler } from "../git/sync_scheduler.ts";
import {
  type ControlStore,
  type NewRepository,
  RepositoryNameTaken,
  type RepositoryRecord,
  type RepositoryUpdate,
} from "../store/control_store.ts";
import { registrationProblem } from "../store/registration.ts";
import { encodeHex } from "../../shared/text.ts";
import { IdempotencyRecords, type IdempotentRequest } from "./idempotency.ts";
import type { RepositoryLifecycle } from "./repository_lifecycle.ts";
import type { MirrorReaders } from "../git/mirror_readers.ts";
import type { ScipIndexes } from "../search/scip/scip_store.ts";
import type { ScipJobs } from "../search/scip/scip_jobs.ts";
import {
  type ScipShare,
  type ScipUpload,
  type ScipUploadParts,
  type UploadBody,
  uploadScip,
} from "./scip_uploads.ts";
import { type RepositorySummary, repositorySummary } from "./repository_summaries.ts";

/** What one `prepare` did. */
export type PrepareResult =
  & { jobId: string; repo: string }
  & (
    | { state: "succeeded"; heads: Record<string, string>; pruned: number }
    | { state: "failed"; code: FetchFailureCode | "SYNC_FAILED" }
  );

/** What a sync started by the operator did. */
export type SyncNowResult =
  | { state: "succeeded"; heads: Record<string, string> }
  | { state: "failed"; code: FetchFailureCode | "SYNC_FAILED" };

/** A personal key: its id and name, and its secret when it was just created. */
export interface PersonalKey {
  id: string;
  name: string;
  /** Shown once: absent in a replay. */
  secret?: string;
}

/**
 * The operator's side: registrations, fetch credentials, syncs now,
 * personal keys, and the idempotency records that make a retried request
 * answer as the first did. The admin API and the MCP admin tools call it;
 * neither reaches the store.
 *
 * @example
 * ```ts ignore
 * const { admin } = composeServices(settings, { log: console.error });
 * const { summary } = await admin.register({
 *   name: "org/app",
 *   source: "https://git.example/org/app.git",
 *   publicRead: false,
 *   policy: { branches: ["main"] },
 *   pathGroups: [],
 *   syncIntervalMinutes: 5,
 * }, { kind: "https", username: "bot", token });
 * const outcome = await admin.syncNow(summary.name);
 * const key = await admin.createKey("ci agent"); // key.secret is shown once
 * ```
 */
/** Where pins are kept and applied (a cluster). */
export interface Placement {
  pin(repositoryId: number, replicas: readonly string[] | null): Promise<void>;
}

/** What SCIP uploads need: the mirrors, the store, the worker and where files are checked. */
export interface AdminScip {
  mirrors: MirrorReaders;
  indexes: ScipIndexes;
  jobs: ScipJobs;
  /** The document paths naming no file of the commit (by default, in this service's mirror). */
  unknownFiles?: ScipUploadParts["unknownFiles"];
}

export class AdminService {
  #store: ControlStore;
  #placement: Placement | null = null;
  #lifecycle: RepositoryLifecycle;
  #credentials: CredentialStore;
  #scheduler: SyncScheduler;
  #visibility: Visibility;
  #scip: AdminScip | null;
  #scipShare: ScipShare | null = null;
  /** The stored answers of idempotent requests. */
  readonly idempotency: IdempotencyRecords;

  /** Administers `store`'s repositories. */
  constructor(
    store: ControlStore,
    options: {
      lifecycle: RepositoryLifecycle;
      credentials: CredentialStore;
      scheduler: SyncScheduler;
      visibility: Visibility;
      /** The mirrors and the store of uploaded SCIP indexes (none: uploads are refused). */
      scip?: AdminScip;
    },
  ) {
    this.#store = store;
    this.#lifecycle = options.lifecycle;
    this.#credentials = options.credentials;
    this.#scheduler = options.scheduler;
    this.#visibility = options.visibility;
    this.#scip = options.scip ?? null;
    this.idempotency = new IdempotencyRecords(store);
  }

  /**
   * Registers a repository (with its credential, if any) and starts its first
   * sync in the background; REPOSITORY_EXISTS for a taken name.
   */
  async register(
    repository: NewRepository,
    credential?: FetchCredential,
  ): Promise<{ repositoryId: number; summary: RepositorySummary }> {
    checkPolicy(repository.policy);
    if (this.#store.repository(repository.name)) {
      throw new SourcegraphError("REPOSITORY_EXISTS", "a repository with this name exists");
    }
    const repo = await this.#store.register(repository).catch((error) => {
      throw error instanceof RepositoryNameTaken
        ? new SourcegraphError("REPOSITORY_EXISTS", "a repository with this name exists")
        : error;
    });
    if (credential) await this.#credentials.set(repo.id, credential);
    void this.#scheduler.sync(repo).catch(() => {});
    return { repositoryId: repo.id, summary: repositorySummary(this.#store, repo) };
  }

  /** Applies `changes` to a registered repository. */
  async update(name: string, changes: RepositoryUpdate): Promise<RepositorySummary> {
    const repo = this.existing(name);
    if (changes.policy) checkPolicy(changes.policy);
    const updated = await this.#store.update(repo.name, changes);
    if (updated === null) throw new SourcegraphError("REPOSITORY_NOT_FOUND", "no such repository");
    return repositorySummary(this.#store, updated);
  }

  /** Deletes a repository with its mirror, index and credential (REPOSITORY_BUSY while plugins read it). */
  async remove(name: string): Promise<void> {
    await this.#lifecycle.removeRepository(this.existing(name));
  }

  /** Stores (replacing any) a repository's fetch credential; the next sync uses it. */
  async setCredential(name: string, credential: FetchCredential): Promise<void> {
    await this.#credentials.set(this.existing(name).id, credential);
  }

  /** Removes a repository's fetch credential (CREDENTIAL_NOT_FOUND when it has none). */
  async removeCredential(name: string): Promise<void> {
    if (!(await this.#credentials.remove(this.existing(name).id))) {
      throw new SourcegraphError("CREDENTIAL_NOT_FOUND", "the repository has no credential");
    }
  }

  /** Syncs a repository now and says how it went. */
  async syncNow(name: string): Promise<SyncNowResult> {
    try {
      return { state: "succeeded", heads: (await this.#scheduler.sync(this.existing(name))).heads };
    } catch (error) {
      if (error instanceof SourcegraphError) throw error;
      return { state: "failed", code: syncFailureCode(error) };
    }
  }

  /**
   * `prepare` (service token only): syncs a visible repository now; the same
   * idempotency key returns the first result again for the same repository
   * and is refused for another.
   */
  async prepare(
    caller: Caller,
    request: { repo: string; idempotencyKey: string },
  ): Promise<PrepareResult> {
    const key = request.idempotencyKey;
    if (caller.kind !== "service") {
      throw new SourcegraphError("FORBIDDEN", "prepare needs the service token");
    }
    const repo = this.#visibility.repository(caller, request.repo);
    if (key.length < 8 || new TextEncoder().encode(key).length > 128) {
      throw new SourcegraphError(
        "INVALID_IDEMPOTENCY_KEY",
        "idempotency_key must be 8 to 128 bytes",
      );
    }
    const once: IdempotentRequest = {
      scope: "prepare",
      key,
      fingerprint: `repository:${repo.id}`,
      repositoryId: repo.id,
    };
    const { answer } = await this.idempotency.once(once, async () => {
      let result: PrepareResult;
      try {
        const outcome = await this.#scheduler.sync(repo);
        result = {
          jobId: key,
          repo: repo.name,
          state: "succeeded",
          heads: outcome.heads,
          pruned: outcome.pruned,
        };
      } catch (error) {
        result = { jobId: key, repo: repo.name, state: "failed", code: syncFailureCode(error) };
      }
      return { repositoryId: repo.id, answer: JSON.stringify(result) };
    });
    return storedPrepare(answer);
  }

  /** Creates a read-only personal key (`sgk_…`, stored only as a SHA-256 hash). */
  async createKey(name: string): Promise<PersonalKey> {
    const secret = `sgk_${randomHex(24)}`;
    const id = `key_${randomHex(8)}`;
    await this.#store.addKey(id, { keyHash: keyHash(secret), name });
    return { id, name, secret };
  }

  /**
   * Whether a personal key exists (it was not revoked), as the store itself
   * says: in a cluster the key may have been created on another replica a
   * moment ago.
   */
  keyExistsNow(id: string): Promise<boolean> {
    return this.#store.keyExistsNow(id);
  }

  /** Revokes a personal key (KEY_NOT_FOUND when there is none). */
  async revokeKey(id: string): Promise<void> {
    if (!(await this.#store.removeKey(id))) {
      throw new SourcegraphError("KEY_NOT_FOUND", "no such key");
    }
  }

  /** Uses `placement` for pins (a replica of a cluster; the single process has none). */
  usePlacement(placement: Placement): void {
    this.#placement = placement;
  }

  /**
   * Pins a repository to `replicas` (null: placed by the hash again);
   * the pin as stored. INVALID_REQUEST in the single process.
   */
  async pin(name: string, replicas: readonly string[] | null): Promise<string[] | null> {
    const repo = this.existing(name);
    if (this.#placement === null) {
      throw new SourcegraphError(
        "INVALID_REQUEST",
        "pins place repositories on replicas of a cluster; this service is a single process",
      );
    }
    const unique = replicas === null ? null : [...new Set(replicas)];
    await this.#placement.pin(repo.id, unique);
    return unique;
  }

  /**
   * Checks and stores the SCIP index of a retained commit of a repository
   * (`scip_uploads.ts`), replacing an earlier one of that commit; in a
   * cluster, for every owner of the repository (`useScipShare`).
   */
  async uploadScip(
    name: string,
    upload: { commit: string; body: Uint8Array | UploadBody },
  ): Promise<ScipUpload> {
    const repo = this.existing(name);
    if (this.#scip === null) {
      throw new SourcegraphError("INVALID_REQUEST", "this service does not keep SCIP indexes");
    }
    return await uploadScip(repo, upload, {
      visibility: this.#visibility,
      mirrors: this.#scip.mirrors,
      scip: this.#scip.indexes,
      jobs: this.#scip.jobs,
      unknownFiles: this.#scip.unknownFiles,
      share: this.#scipShare,
    });
  }

  /** Shares SCIP uploads between the replicas of a cluster (set once by the cluster). */
  useScipShare(share: ScipShare): void {
    this.#scipShare = share;
  }

  /** A registered repository by name (REPOSITORY_NOT_FOUND otherwise). */
  existing(name: string): RepositoryRecord {
    const repo = this.#store.repository(name);
    if (!repo) throw new SourcegraphError("REPOSITORY_NOT_FOUND", "no such repository");
    return repo;
  }
}

function checkPolicy(policy: NewRepository["policy"]): void {
  const problem = registrationProblem(policy);
  if (problem !== null) throw new SourcegraphError("INVALID_REQUEST", problem);
}

// Results stored by earlier versions spell the job id `job_id`.
function storedPrepare(text: string): PrepareResult {
  const { job_id: legacyId, ...rest } = JSON.parse(text);
  return legacyId === undefined ? rest : { ...rest, jobId: legacyId };
}

function randomHex(bytes: number): string {
  return encodeHex(crypto.getRandomValues(new Uint8Array(bytes)));
}
