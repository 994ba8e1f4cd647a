/**
 * Git observations for search and read, reused while Git's own files are
 * unchanged. Git replaces `.git/index` and loose refs by renaming a new file
 * over the old one, so a different inode, size or timestamp of those files
 * means the observation must be made again; an unchanged stat key means Git
 * would answer the same. Only ordinary repositories whose `.git` folder is
 * inside the root are cached; anything else (linked worktrees, a `.git`
 * file or symlink) asks Git every time. Index runs never use this cache.
 *
 * @module
 */

import { join } from "node:path";
import type { ProjectRoot } from "./project_root.ts";
import { observeHead, observeTrackedSet, type TrackedSet } from "./tracked_files.ts";

/** A tracked set with a membership index. */
export interface TrackedView extends TrackedSet {
  /** The eligible paths as a set. */
  eligibleSet: ReadonlySet<string>;
}

/** Cached observations of one root's tracked set and HEAD. */
export class GitState {
  #root: ProjectRoot;
  #gitDir: string;
  #tracked: { key: string; view: TrackedView } | null = null;
  #head: { key: string; head: string | null } | null = null;

  /** Observes the root's `.git` folder. */
  constructor(root: ProjectRoot) {
    this.#root = root;
    this.#gitDir = join(root.path, ".git");
  }

  /** The current tracked set (cached by the stat key of `.git/index`). */
  async trackedSet(options: { timeoutMs: number }): Promise<TrackedView> {
    const key = this.#cacheable() ? statKey(join(this.#gitDir, "index")) : null;
    if (key !== null && this.#tracked?.key === key) return this.#tracked.view;
    const set = await observeTrackedSet(this.#root.path, options);
    const view = { ...set, eligibleSet: new Set(set.eligible) };
    this.#tracked = key === null ? null : { key, view };
    return view;
  }

  /** The commit HEAD names (cached by the stat keys of HEAD, its ref and packed-refs). */
  async head(options: { timeoutMs: number }): Promise<string | null> {
    const key = this.#cacheable() ? this.#headKey() : null;
    if (key !== null && this.#head?.key === key) return this.#head.head;
    const head = await observeHead(this.#root.path, options);
    this.#head = key === null ? null : { key, head };
    return head;
  }

  #cacheable(): boolean {
    try {
      const stat = Deno.lstatSync(this.#gitDir);
      return stat.isDirectory && !stat.isSymlink;
    } catch {
      return false;
    }
  }

  #headKey(): string | null {
    const headPath = join(this.#gitDir, "HEAD");
    const headKey = statKey(headPath);
    if (headKey === null) return null;
    let content: string;
    try {
      content = Deno.readTextFileSync(headPath);
    } catch {
      return null;
    }
    if (/^[0-9a-f]{40,64}\n?$/.test(content)) return headKey;
    const ref = /^ref: (refs\/heads\/[A-Za-z0-9._\/-]+)\n?$/.exec(content)?.[1];
    if (!ref || ref.includes("..")) return null;
    const refKey = statKey(join(this.#gitDir, ref)) ?? "none";
    const packedKey = statKey(join(this.#gitDir, "packed-refs")) ?? "none";
    return `${headKey}|${ref}|${refKey}|${packedKey}`;
  }
}

function statKey(path: string): string | null {
  try {
    const stat = Deno.lstatSync(path);
    if (!stat.isFile) return null;
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtime?.getTime()}:${stat.ctime?.getTime()}`;
  } catch {
    return null;
  }
}
