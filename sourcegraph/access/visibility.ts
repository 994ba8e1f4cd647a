/**
 * Who may see which repository, and revisions resolved for a caller. The
 * service token and personal keys see every registered repository;
 * anonymous callers see public ones only when public reads are on. A
 * repository the caller may not see is reported exactly like one that does
 * not exist.
 *
 * @module
 */

import type { Caller } from "./caller.ts";
import { type ResolvedRevision, resolveRevision } from "./revisions.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";

/** A revision resolved in a repository the caller may see. */
export interface VisibleRevision extends ResolvedRevision {
  repo: RepositoryRecord;
}

/** Visibility of the store's repositories. */
export class Visibility {
  #store: ControlStore;
  #publicRead: boolean;

  /** Decides over `store`'s repositories; `publicRead` lets anonymous callers see public ones. */
  constructor(store: ControlStore, options: { publicRead: boolean }) {
    this.#store = store;
    this.#publicRead = options.publicRead;
  }

  /** Whether `caller` may see `repo`. */
  visible(caller: Caller, repo: RepositoryRecord): boolean {
    return caller.kind !== "anonymous" || (this.#publicRead && repo.publicRead);
  }

  /** The repository `name`, or REPOSITORY_NOT_FOUND (also when not visible). */
  repository(caller: Caller, name: string): RepositoryRecord {
    const repo = this.#store.repository(name);
    if (!repo || !this.visible(caller, repo)) {
      throw new SourcegraphError("REPOSITORY_NOT_FOUND", "no such repository");
    }
    return repo;
  }

  /** Resolves `revision` (omitted: the default branch) of the visible repository `name`. */
  resolve(caller: Caller, request: { repo: string; revision?: string }): VisibleRevision {
    const repo = this.repository(caller, request.repo);
    return { ...resolveRevision(this.#store, repo, { revision: request.revision }), repo };
  }
}
