/**
 * Path lookups in a commit's tree through one long-lived object reader per
 * mirror. Tree objects are immutable, so parsed trees are cached by object
 * id; a lookup costs no process start.
 *
 * @module
 */

import { isFullCommitId } from "../../shared/git.ts";
import { GitObjectReader } from "../../shared/git_objects.ts";
import { SourcegraphError } from "../errors.ts";
import { encodeHex } from "../../shared/text.ts";
import { RecentMap } from "../../shared/recent_map.ts";

/** What a tree entry is. */
export type EntryKind = "file" | "symlink" | "submodule" | "directory";

/** One entry of a tree. */
export interface TreeEntry {
  name: string;
  mode: string;
  kind: EntryKind;
  oid: string;
}

/**
 * Blobs are scanned up to this size: a read refuses a larger file
 * (`READ_SCAN_LIMIT`), searches and index builds skip it.
 */
export const READ_SCAN_LIMIT = 8 * 1024 * 1024;

const TREE_CACHE_ENTRIES = 4096;
const ROOT_CACHE_ENTRIES = 1024;

/** Reads trees and blobs of one mirror. */
export class MirrorObjects {
  /** The mirror's folder (for Git commands other than object reads). */
  readonly path: string;
  #reader: GitObjectReader;
  #trees = new RecentMap<string, TreeEntry[]>(TREE_CACHE_ENTRIES);
  #roots = new RecentMap<string, string>(ROOT_CACHE_ENTRIES);

  /** Opens a reader on `mirror`. */
  constructor(mirror: string) {
    this.path = mirror;
    this.#reader = new GitObjectReader({ cwd: mirror, timeoutMs: 10_000 });
  }

  /** The entry at `path` in `commit`, or null when absent. */
  async lookup(commit: string, path: string): Promise<TreeEntry | null> {
    let tree = await this.#rootTree(commit);
    const parts = path.split("/");
    for (let i = 0; i < parts.length; i++) {
      const entry = (await this.entries(tree)).find((candidate) => candidate.name === parts[i]);
      if (!entry) return null;
      if (i === parts.length - 1) return entry;
      if (entry.kind !== "directory") return null;
      tree = entry.oid;
    }
    return null;
  }

  /** The entries of a directory at `path` ("" for the root), or null. */
  async directory(commit: string, path: string): Promise<TreeEntry[] | null> {
    if (path === "") return await this.entries(await this.#rootTree(commit));
    const entry = await this.lookup(commit, path);
    return entry?.kind === "directory" ? await this.entries(entry.oid) : null;
  }

  /** A blob's bytes, or null when larger than `maxBytes`. */
  async blob(oid: string, maxBytes: number): Promise<Uint8Array | null> {
    const read = await this.#reader.read(oid, { maxBytes });
    if (read.status === "too_large") return null;
    if (read.status !== "ok") throw unavailable();
    return read.bytes;
  }

  /**
   * The bytes of several blobs, in order, each null when larger than
   * `maxBytes`, read in one round trip per step rather than per blob.
   */
  async blobs(oids: readonly string[], maxBytes: number): Promise<(Uint8Array | null)[]> {
    const reads = await this.#reader.readMany(oids, { maxBytes });
    return reads.map((read) => {
      if (read.status === "too_large") return null;
      if (read.status !== "ok") throw unavailable();
      return read.bytes;
    });
  }

  /** Parsed entries of a tree object. */
  async entries(treeOid: string): Promise<TreeEntry[]> {
    const cached = this.#trees.get(treeOid);
    if (cached) return cached;
    const read = await this.#reader.read(treeOid);
    if (read.status !== "ok" || read.type !== "tree") throw unavailable();
    const entries = parseTree(read.bytes, treeOid.length === 64 ? 32 : 20);
    this.#trees.set(treeOid, entries);
    return entries;
  }

  /** Stops the reader. */
  async close(): Promise<void> {
    await this.#reader.close();
  }

  // A commit's tree never changes: asked of Git once per commit id (a name such as `HEAD`
  // each time), each lookup otherwise paying a round trip to the reader before its own.
  async #rootTree(commit: string): Promise<string> {
    const kept = this.#roots.get(commit);
    if (kept !== undefined) return kept;
    const info = await this.#reader.info(`${commit}^{tree}`);
    if (info.status !== "ok") throw unavailable();
    // A full commit id is the only revision whose tree is kept.
    if (isFullCommitId(commit)) {
      this.#roots.set(commit, info.oid);
    }
    return info.oid;
  }
}

function unavailable(): SourcegraphError {
  return new SourcegraphError(
    "REPOSITORY_STORAGE_MISSING",
    "a retained object is missing from storage",
  );
}

function parseTree(bytes: Uint8Array, oidBytes: number): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const decoder = new TextDecoder();
  let at = 0;
  while (at < bytes.length) {
    const space = bytes.indexOf(0x20, at);
    const nul = bytes.indexOf(0, space);
    if (space === -1 || nul === -1) throw unavailable();
    const mode = decoder.decode(bytes.subarray(at, space));
    const name = decoder.decode(bytes.subarray(space + 1, nul));
    const oid = encodeHex(bytes.subarray(nul + 1, nul + 1 + oidBytes));
    at = nul + 1 + oidBytes;
    entries.push({ name, mode, kind: kindOf(mode), oid });
  }
  return entries;
}

function kindOf(mode: string): EntryKind {
  if (mode === "40000" || mode === "040000") return "directory";
  if (mode === "120000") return "symlink";
  if (mode === "160000") return "submodule";
  return "file";
}
