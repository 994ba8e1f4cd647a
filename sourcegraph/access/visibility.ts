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
import { quotedNames, SourcegraphError } from "../errors.ts";
import { nearestNames } from "../../shared/nearest_names.ts";

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

  /**
   * The repository `name`, or REPOSITORY_NOT_FOUND (also when not visible),
   * whose hint names the visible repositories nearest to `name`: computed
   * from the visible ones only, so a private repository changes nothing.
   */
  repository(caller: Caller, name: string): RepositoryRecord {
    const repo = this.#store.repository(name);
    if (!repo || !this.visible(caller, repo)) {
      throw new SourcegraphError("REPOSITORY_NOT_FOUND", "no such repository", {
        hint: this.#nearestHint(caller, name),
      });
    }
    return repo;
  }

  #nearestHint(caller: Caller, name: string): string {
    const visible = this.#store.repositories().filter((repo) => this.visible(caller, repo));
    const near = nearestNames(name, visible.map((repo) => repo.name));
    const names = "Names look like `local/<folder>` or `org/name`; call `repositories` to list " +
      "every repository you can see.";
    return near.length === 0
      ? `No repository is visible to this caller. ${names}`
      : `Nearest visible: ${quotedNames(near)}. ${names}`;
  }

  /** Resolves `revision` (omitted: the default branch) of the visible repository `name`. */
  resolve(caller: Caller, request: { repo: string; revision?: string }): VisibleRevision {
    const repo = this.repository(caller, request.repo);
    return { ...resolveRevision(this.#store, repo, { revision: request.revision }), repo };
  }

  /**
   * `resolve` for a record the caller's request already read from the store
   * (a search across repositories lists them all at once): the same answer,
   * without reading the record again by name.
   */
  resolveRecord(
    caller: Caller,
    repo: RepositoryRecord,
    options: { revision?: string },
  ): VisibleRevision {
    if (!this.visible(caller, repo)) return this.resolve(caller, { ...options, repo: repo.name });
    return { ...resolveRevision(this.#store, repo, { revision: options.revision }), repo };
  }
}
