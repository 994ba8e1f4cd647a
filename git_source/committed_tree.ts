/**
 * Reads the committed tree through the shared hardened Git runner: HEAD, the
 * fast-forward check, the tree entries of the configured paths (one
 * `ls-tree` for all of them) and their blobs (one `cat-file --batch-command`
 * process per call). The working tree is never read, no hook or script of the
 * repository runs, and a missing object fails instead of being fetched.
 *
 * @module
 */

import { isRegularFile, parseTreeListing } from "../shared/tree_listing.ts";
import * as fs from "node:fs";
import { GitError, runGit } from "../shared/git.ts";
import { GitObjectReader } from "../shared/git_objects.ts";
import { GitSourceError } from "./errors.ts";

const GIT_TIMEOUT_MS = 5_000;
const HEX = /^[0-9a-f]{40,64}$/;

/** A configured path's entry in the committed tree. */
export interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
}

/** A repository opened for one call. */
export class CommittedTree {
  /** The repository's real path. */
  readonly root: string;
  #reader: GitObjectReader | null = null;

  private constructor(root: string) {
    this.root = root;
  }

  /** Resolves the repository's real path; `unavailable` when it is gone. */
  static open(repository: string): CommittedTree {
    try {
      return new CommittedTree(fs.realpathSync(repository));
    } catch {
      throw new GitSourceError("unavailable", "the repository is unavailable");
    }
  }

  /** Whether the folder is a Git repository (a work tree or a bare one). */
  async isRepository(): Promise<boolean> {
    try {
      await this.#git(["rev-parse", "--git-dir"]);
      return true;
    } catch {
      return false;
    }
  }

  /** The commit HEAD names. */
  async head(): Promise<string> {
    const out = await this.#git(["rev-parse", "--verify", "HEAD^{commit}"]);
    const oid = new TextDecoder().decode(out.stdout).trim();
    if (!HEX.test(oid)) throw new GitSourceError("unsupported_file", "HEAD is not a commit id");
    return oid;
  }

  /** Whether `older` is an ancestor of `newer`; any failure counts as no. */
  async isAncestor(older: string, newer: string): Promise<boolean> {
    try {
      const out = await this.#git(["merge-base", "--is-ancestor", older, newer], [0, 1]);
      return out.exitCode === 0;
    } catch {
      return false;
    }
  }

  /** The entries of `paths` at `commit` (absent paths are missing from the map). */
  async entries(commit: string, paths: readonly string[]): Promise<Map<string, TreeEntry>> {
    const out = await this.#git(["ls-tree", "-z", "--full-tree", commit, "--", ...paths]);
    const entries = new Map<string, TreeEntry>();
    const wanted = new Set(paths);
    for (const { mode, type, oid, path } of parseTreeListing(out.stdout)) {
      if (wanted.has(path)) entries.set(path, { mode, type, oid });
    }
    return entries;
  }

  /** Reads the regular blob of configured `path`, at most `maxBytes`; failures name the path. */
  async blob(path: string, entry: TreeEntry, maxBytes: number): Promise<Uint8Array> {
    if (!isRegularFile(entry)) {
      throw new GitSourceError(
        "unsupported_file",
        `the configured path ${path} is a symlink, submodule or directory, not a regular committed file`,
      );
    }
    this.#reader ??= new GitObjectReader({ cwd: this.root, timeoutMs: GIT_TIMEOUT_MS });
    let read;
    try {
      read = await this.#reader.read(entry.oid, { maxBytes });
    } catch {
      throw new GitSourceError("unavailable", `the committed object of ${path} cannot be read`);
    }
    if (read.status === "too_large") {
      throw new GitSourceError(
        "file_too_large",
        `the committed file ${path} is larger than ${maxBytes} bytes`,
      );
    }
    if (read.status !== "ok" || read.type !== "blob") {
      throw new GitSourceError("unavailable", `the committed object of ${path} is missing`);
    }
    return read.bytes;
  }

  /** Stops the object reader. */
  async close(): Promise<void> {
    await this.#reader?.close();
    this.#reader = null;
  }

  async #git(args: string[], okExitCodes: number[] = [0]) {
    try {
      return await runGit(args, {
        cwd: this.root,
        timeoutMs: GIT_TIMEOUT_MS,
        maxStdoutBytes: 1024 * 1024,
        okExitCodes,
      });
    } catch (error) {
      if (error instanceof GitError) throw new GitSourceError("unavailable", "git failed");
      throw error;
    }
  }
}
