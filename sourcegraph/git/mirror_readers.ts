/**
 * The mirrors of the registered repositories and one long-lived object
 * reader per mirror, opened on first use and closed when the repository is
 * deleted (a later repository never inherits a reader or its caches).
 *
 * @module
 */

import * as fs from "node:fs";
import { MirrorObjects } from "./mirror_objects.ts";
import { mirrorPath } from "./repository_sync.ts";
import type { RepositoryRecord } from "../store/control_store.ts";

/** Mirrors under one data folder and their object readers. */
export class MirrorReaders {
  readonly #dataDir: string;
  #readers = new Map<number, MirrorObjects>();

  /** Mirrors under `dataDir`. */
  constructor(dataDir: string) {
    this.#dataDir = dataDir;
  }

  /** The mirror folder of `repo`. */
  path(repo: RepositoryRecord): string {
    return mirrorPath(this.#dataDir, repo);
  }

  /** The object reader of `repo`'s mirror. */
  objects(repo: RepositoryRecord): MirrorObjects {
    let reader = this.#readers.get(repo.id);
    if (!reader) {
      reader = new MirrorObjects(this.path(repo));
      this.#readers.set(repo.id, reader);
    }
    return reader;
  }

  /** Closes `repo`'s reader and deletes its mirror. */
  async remove(repo: RepositoryRecord): Promise<void> {
    const reader = this.#readers.get(repo.id);
    this.#readers.delete(repo.id);
    await reader?.close();
    fs.rmSync(this.path(repo), { recursive: true, force: true });
  }

  /** Closes every reader. */
  async close(): Promise<void> {
    for (const reader of this.#readers.values()) await reader.close();
    this.#readers.clear();
  }
}
