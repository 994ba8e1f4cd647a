/**
 * Syncing a repository among its owners. One owner at a time fetches from
 * upstream, under the repository's sync lease in PostgreSQL, and decides
 * the retained versions in the store (heads observed, old versions
 * forgotten), so every owner serves the same versions. The other owners
 * follow: they make their mirror hold exactly the store's retained
 * versions, fetching missing objects from a live holder over the internal
 * listener (Git's smart HTTP protocol, authenticated by the cluster
 * secret) and from upstream only when no holder has them. An owner that
 * waited for the lease while another fetched does not fetch again: it
 * follows. A replica publishes what it holds only once its mirror has it
 * (and its copies of the repository's SCIP indexes), so it is never routed
 * to before.
 *
 * @module
 */

import { runGit } from "../../shared/git.ts";
import type { CredentialStore } from "../store/fetch_credentials.ts";
import {
  ensureMirror,
  FETCH_COMMAND,
  fetchBranches,
  mirrorPath,
  type SyncOutcome,
  syncRepository,
} from "../git/repository_sync.ts";
import type { RepositoryRecord } from "../store/control_store.ts";
import type { ClusterTables } from "../store/postgres/pg_cluster_tables.ts";
import type { PostgresControlStore } from "../store/postgres/postgres_control_store.ts";
import type { Cluster, Replica } from "./cluster.ts";

const PEER_FETCH_TIMEOUT_MS = 10 * 60 * 1000;

// The transports of a fetch from another replica's internal listener.
const PEER_TRANSPORTS = ["http", "https"];

// The Git path of a repository's mirror on a replica's internal listener.
function peerGitUrl(replica: Replica, repositoryId: number): string {
  return `${replica.internalUrl.replace(/\/+$/, "")}/internal/v1/git/${repositoryId}`;
}

/** Syncs and follows repositories as one owner among several. */
export class ReplicaSync {
  #store: PostgresControlStore;
  #cluster: Cluster;
  #tables: ClusterTables;
  #dataDir: string;
  #credentials: CredentialStore;
  #secret: string;
  #log: (line: string) => void;
  #beforeHold: (repo: RepositoryRecord) => Promise<void>;

  /**
   * Syncs into mirrors below `dataDir`; `secret` authenticates fetches from
   * peers; `beforeHold` brings what else a holder keeps (the SCIP indexes)
   * before this replica says it holds a repository.
   */
  constructor(
    store: PostgresControlStore,
    parts: {
      cluster: Cluster;
      tables: ClusterTables;
      dataDir: string;
      credentials: CredentialStore;
      secret: string;
      log: (line: string) => void;
      beforeHold?: (repo: RepositoryRecord) => Promise<void>;
    },
  ) {
    this.#store = store;
    this.#cluster = parts.cluster;
    this.#tables = parts.tables;
    this.#dataDir = parts.dataDir;
    this.#credentials = parts.credentials;
    this.#secret = parts.secret;
    this.#log = parts.log;
    this.#beforeHold = parts.beforeHold ?? (() => Promise.resolve());
  }

  /**
   * Syncs `repo` from upstream under its lease, unless a sync by any owner
   * succeeded at or after `since` (then this replica follows it); either
   * way this replica then holds the store's retained versions.
   */
  async sync(
    repo: RepositoryRecord,
    options: { since: number; signal?: AbortSignal },
  ): Promise<SyncOutcome> {
    return await this.#tables.withSyncLease(repo.id, {
      signal: options.signal,
      onWait: () => this.#log(`sync of ${repo.name} waits: another replica is syncing it`),
    }, async () => {
      const last = await this.#tables.lastSuccessfulSync(repo.id);
      // Retention is decided on the newest rows, not on a cache a notification has yet to reach.
      await this.#store.refresh(`repository:${repo.id}`);
      if (last !== null && last >= options.since) return await this.follow(repo, options);
      const outcome = await syncRepository(this.#store, repo, {
        dataDir: this.#dataDir,
        credentials: this.#credentials,
        signal: options.signal,
      });
      await this.#hold(repo);
      return outcome;
    });
  }

  /**
   * Makes this replica's mirror hold exactly the store's retained versions
   * of `repo` (from holders first, upstream if none has them) and
   * publishes what it holds.
   */
  async follow(
    repo: RepositoryRecord,
    options: { signal?: AbortSignal } = {},
  ): Promise<SyncOutcome> {
    const mirror = mirrorPath(this.#dataDir, repo);
    await ensureMirror(mirror);
    const wanted = this.#store.versions(repo.id).map((version) => version.commit);
    let missing = await missingCommits(mirror, wanted);
    for (const holder of this.#cluster.holders(repo, wanted)) {
      if (missing.length === 0) break;
      if (holder.name === this.#cluster.self) continue;
      await this.#fetchFromPeer(mirror, holder, repo.id, options.signal).catch((error) => {
        this.#log(`filling ${repo.name} from ${holder.name} failed (${(error as Error).message})`);
      });
      missing = await missingCommits(mirror, wanted);
    }
    if (missing.length > 0) {
      await fetchBranches(mirror, repo, { credentials: this.#credentials, signal: options.signal });
      missing = await missingCommits(mirror, wanted);
    }
    const pruned = await pinExactly(mirror, wanted.filter((commit) => !missing.includes(commit)));
    await setHeads(mirror, this.#store.heads(repo.id), new Set(missing));
    await this.#hold(repo);
    if (missing.length > 0) {
      this.#log(`${repo.name}: ${missing.length} retained version(s) could not be filled yet`);
    }
    return { heads: Object.fromEntries(this.#store.heads(repo.id)), pruned };
  }

  // Publishes the retained versions the mirror has, once the rest a holder keeps is here.
  async #hold(repo: RepositoryRecord): Promise<void> {
    await this.#beforeHold(repo);
    await this.#cluster.hold(repo.id, await this.#present(repo));
  }

  // The retained versions the mirror has.
  async #present(repo: RepositoryRecord): Promise<string[]> {
    const mirror = mirrorPath(this.#dataDir, repo);
    const wanted = this.#store.versions(repo.id).map((version) => version.commit);
    const missing = new Set(await missingCommits(mirror, wanted));
    return wanted.filter((commit) => !missing.has(commit));
  }

  async #fetchFromPeer(
    mirror: string,
    holder: Replica,
    repositoryId: number,
    signal?: AbortSignal,
  ): Promise<void> {
    await runGit([
      ...FETCH_COMMAND,
      "--",
      peerGitUrl(holder, repositoryId),
      "+refs/sourcegraph/retained/*:refs/sourcegraph/retained/*",
    ], {
      cwd: mirror,
      transports: PEER_TRANSPORTS,
      // Through the environment: the secret never shows in a process listing.
      config: { "http.extraHeader": `Authorization: Bearer ${this.#secret}` },
      timeoutMs: PEER_FETCH_TIMEOUT_MS,
      signal,
    });
  }
}

/** The commits of `wanted` the mirror does not have. */
export async function missingCommits(mirror: string, wanted: readonly string[]): Promise<string[]> {
  if (wanted.length === 0) return [];
  const { stdout } = await runGit(["cat-file", "--batch-check=%(objectname) %(objecttype)"], {
    cwd: mirror,
    stdin: new TextEncoder().encode(wanted.map((commit) => `${commit}\n`).join("")),
    maxStdoutBytes: 128 * wanted.length + 1024,
  });
  const lines = new TextDecoder().decode(stdout).split("\n");
  return wanted.filter((_, i) => !/^[0-9a-f]{40,64} commit$/.test(lines[i] ?? ""));
}

// Retained refs for exactly `commits`; the others are deleted. The count deleted.
async function pinExactly(mirror: string, commits: readonly string[]): Promise<number> {
  const { stdout } = await runGit(
    ["for-each-ref", "--format=%(refname)", "refs/sourcegraph/retained/"],
    { cwd: mirror },
  );
  const existing = new TextDecoder().decode(stdout).split("\n").filter((line) => line !== "");
  const keep = new Set(commits.map((commit) => `refs/sourcegraph/retained/${commit}`));
  const commands = [
    ...existing.filter((ref) => !keep.has(ref)).map((ref) => `delete ${ref}\n`),
    ...commits.map((commit) => `update refs/sourcegraph/retained/${commit} ${commit}\n`),
  ];
  if (commands.length > 0) {
    await runGit(["update-ref", "--stdin"], {
      cwd: mirror,
      stdin: new TextEncoder().encode(commands.join("")),
    });
  }
  return existing.filter((ref) => !keep.has(ref)).length;
}

// The mirror's branch refs at the store's observed heads (those it has).
async function setHeads(
  mirror: string,
  heads: Map<string, string>,
  missing: Set<string>,
): Promise<void> {
  const commands = [...heads].filter(([, commit]) => !missing.has(commit)).map(([branch, commit]) =>
    `update refs/sourcegraph/heads/${branch} ${commit}\n`
  );
  if (commands.length === 0) return;
  await runGit(["update-ref", "--stdin"], {
    cwd: mirror,
    stdin: new TextEncoder().encode(commands.join("")),
  });
}
