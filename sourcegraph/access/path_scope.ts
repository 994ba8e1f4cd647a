/**
 * The path scope of a repository: one registered with path groups exposes only
 * the paths inside them. Reads outside are PATH_NOT_REGISTERED, search never
 * returns them, and listings show only what leads into a group.
 *
 * @module
 */

import type { RepositoryRecord } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";

/** A folder path as given (`docs/`, `docs//`) in the one form compared everywhere (`docs`). */
export function folderPath(path: string): string {
  return path.replace(/\/+$/, "");
}

/** What a repository exposes. */
export class PathScope {
  #roots: string[] | null;

  /** The path scope of `repo` (everything when it has no path groups). */
  constructor(repo: Pick<RepositoryRecord, "pathGroups">) {
    const roots = repo.pathGroups.flatMap((group) => group.paths.map(folderPath));
    this.#roots = roots.length === 0 ? null : [...new Set(roots)].sort();
  }

  /** Whether the whole repository is visible. */
  get full(): boolean {
    return this.#roots === null;
  }

  /** The registered folders, sorted ([""] when the whole repository is visible). */
  get roots(): string[] {
    return this.#roots === null ? [""] : [...this.#roots];
  }

  /** Whether `path` lies inside a group. */
  covers(path: string): boolean {
    return this.#roots === null ||
      this.#roots.some((root) => path === root || path.startsWith(`${root}/`));
  }

  /** Whether `path` is a folder on the way to a group (or inside one). */
  leadsInto(path: string): boolean {
    return this.covers(path) || this.#roots!.some((root) => root.startsWith(`${path}/`));
  }

  /** Throws PATH_NOT_REGISTERED unless `path` is covered. */
  require(path: string): void {
    if (!this.covers(path)) {
      throw new SourcegraphError(
        "PATH_NOT_REGISTERED",
        "the path is outside the registered path groups",
      );
    }
  }

  /**
   * The search scope: the requested folders narrowed to what the groups make
   * visible (a folder leading into groups stands for the groups under it), or
   * the groups. Each requested folder must intersect the groups; nothing
   * outside them is ever searched, so no count or rank can tell of it.
   */
  scope(paths: readonly string[]): string[] {
    if (this.#roots === null) return [...paths];
    if (paths.length === 0) return [...this.#roots];
    const scoped = new Set<string>();
    for (const requested of paths) {
      const path = folderPath(requested);
      if (!this.leadsInto(path)) {
        throw new SourcegraphError(
          "PATH_NOT_REGISTERED",
          "a search path is outside the registered path groups",
        );
      }
      if (this.covers(path)) scoped.add(path);
      else for (const root of this.#roots) if (root.startsWith(`${path}/`)) scoped.add(root);
    }
    return [...scoped].sort();
  }
}
