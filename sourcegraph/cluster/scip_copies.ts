/**
 * SCIP indexes in a cluster. An upload to any replica is checked there (the
 * files against a holder's mirror, through the routed calls), then its
 * derived form is stored in PostgreSQL in one transaction
 * (`ScipIndexRows`) before any replica keeps it, so a refused or failed
 * upload leaves nothing anywhere. Every replica that holds a copy of the
 * repository then copies the index to its data folder: the receiving
 * replica at once when it holds one, the others when the notification
 * `scip:<id>` arrives, and an owner that fills the repository later (a
 * replica that joined, a pin, a rebalance) before it publishes that it
 * holds the repository, so reads routed to it answer precisely from the
 * start. A copy is written to a private temp file, checked against the
 * stored SHA-256 and renamed into place: a replica keeps the old index or
 * the new one, never a mix. A copy that fails is logged and tried again on
 * the next change (a pass also runs after a reconnect). The shared rows
 * are the truth: an index leaves PostgreSQL with its retained version, and
 * each replica prunes its copy as it prunes the version.
 *
 * @module
 */

import { createHash } from "node:crypto";
import * as fs from "node:fs";
import type { ScipIndexes } from "../search/scip/scip_store.ts";
import type { CheckedScip, ScipShare } from "../service/scip_uploads.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import {
  SCIP_PIECE_BYTES,
  type ScipIndexRows,
  type SharedScip,
} from "../store/postgres/pg_scip_indexes.ts";
import type { Cluster } from "./cluster.ts";
import { CoalescedPasses } from "./coalesced_passes.ts";

// Exclusive creation of a new private file, never through a final symlink.
const CREATE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL |
  (fs.constants.O_NOFOLLOW ?? 0);

/** The SCIP indexes of one replica of a cluster. */
export class ScipCopies implements ScipShare {
  #rows: ScipIndexRows;
  #cluster: Cluster;
  #store: ControlStore;
  #scip: ScipIndexes;
  #log: (line: string) => void;
  #passes: CoalescedPasses;

  /** Copies into `parts.scip` the shared indexes of `rows` for what `parts.cluster` holds here. */
  constructor(
    rows: ScipIndexRows,
    parts: {
      cluster: Cluster;
      store: ControlStore;
      scip: ScipIndexes;
      log: (line: string) => void;
    },
  ) {
    this.#rows = rows;
    this.#cluster = parts.cluster;
    this.#store = parts.store;
    this.#scip = parts.scip;
    this.#log = parts.log;
    this.#passes = new CoalescedPasses(() => this.#pass(), {
      onError: (error) => this.#log(`copying SCIP indexes stopped early (${error.message})`),
    });
  }

  /** Shares a checked upload; whether this replica keeps it too (it holds the repository). */
  async publish(repo: RepositoryRecord, checked: CheckedScip): Promise<boolean> {
    await this.#rows.put(
      {
        repositoryId: repo.id,
        commit: checked.commit,
        digest: checked.digest,
        size: checked.bytes,
      },
      () => pieces(checked.stored),
    );
    return this.#cluster.held(repo.id).length > 0;
  }

  /** Copies the shared indexes of `repo` this replica lacks (before it says it holds `repo`). */
  async fill(repo: RepositoryRecord): Promise<void> {
    const shared = await this.#rows.list().catch((error) => {
      this.#log(`listing the SCIP indexes of ${repo.name} failed (${(error as Error).message})`);
      return [];
    });
    await this.#copyAll(repo, shared.filter((index) => index.repositoryId === repo.id));
  }

  /** Asks for a pass over every repository held here soon (changes together share one). */
  trigger(): void {
    this.#passes.trigger();
  }

  /** Runs a pass now (or after the running one); resolves when it is done. */
  run(): Promise<void> {
    return this.#passes.run();
  }

  /** No more passes; resolves when the running one ends. */
  stop(): Promise<void> {
    return this.#passes.stop();
  }

  async #pass(): Promise<void> {
    const shared = await this.#rows.list();
    for (const repo of this.#store.repositories()) {
      if (this.#passes.stopped) return;
      if (this.#cluster.held(repo.id).length === 0) continue;
      await this.#copyAll(repo, shared.filter((index) => index.repositoryId === repo.id));
    }
  }

  async #copyAll(repo: RepositoryRecord, shared: SharedScip[]): Promise<void> {
    for (const index of shared) {
      if (this.#scip.digest(repo.id, index.commit) === index.digest) continue;
      await this.#copy(repo, index).catch((error) => {
        this.#log(
          `copying the SCIP index of ${repo.name} at ${index.commit} failed ` +
            `(${(error as Error).message}); retrying on the next change`,
        );
      });
    }
  }

  // One index into a private temp file, checked against its digest, then renamed into place.
  async #copy(repo: RepositoryRecord, index: SharedScip): Promise<void> {
    const temp = this.#scip.incoming(repo.id, index.commit);
    try {
      const fd = fs.openSync(temp.stored, CREATE, 0o600);
      const hash = createHash("sha256");
      let found: boolean;
      try {
        found = await this.#rows.read(index, (bytes) => {
          hash.update(bytes);
          for (let done = 0; done < bytes.length;) {
            done += fs.writeSync(fd, bytes, done, bytes.length - done);
          }
        });
      } finally {
        fs.closeSync(fd);
      }
      if (!found) return; // replaced or gone meanwhile: its notification follows
      const digest = hash.digest("hex");
      if (digest !== index.digest) throw new Error("the copy does not match its digest");
      this.#scip.install(repo.id, { commit: index.commit, stored: temp.stored, digest });
    } finally {
      this.#scip.release(temp);
    }
  }
}

// The pieces of file `path`, read one at a time into one buffer.
function* pieces(path: string): Generator<Uint8Array> {
  const fd = fs.openSync(path, "r");
  const buffer = new Uint8Array(SCIP_PIECE_BYTES);
  try {
    for (;;) {
      let length = 0;
      while (length < buffer.length) {
        const read = fs.readSync(fd, buffer, length, buffer.length - length, null);
        if (read === 0) break;
        length += read;
      }
      if (length === 0) return;
      yield buffer.subarray(0, length);
      if (length < buffer.length) return;
    }
  } finally {
    fs.closeSync(fd);
  }
}
