/**
 * The uploaded SCIP indexes of the service, in their derived form
 * (`scip_derived.ts`): one file per repository and commit,
 * `<data>/scip_index/<repository id>/<commit>.json`, beside the search
 * indexes of `<data>/search_index/`. A file is written whole or not at all
 * (a private temp file, fsync, rename over, folder fsync), so a crash
 * leaves the previous index or the new one; temp files a crash leaves are
 * never read and are removed by the next upload to that repository. Its
 * first line names the tool and commit, so listing reads only that line. A
 * file that cannot be read back is refused, said once in the log, until an
 * upload replaces it (answers at that commit are search-based meanwhile).
 *
 * @module
 */

import * as fs from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { atomicReplace, publishFile, tempPathBeside } from "../../../shared/safe_fs.ts";
import { RecentMap } from "../../../shared/recent_map.ts";
import { type DerivedScip, parseStoredText, type ScipSource, storedText } from "./scip_derived.ts";

/** Most bytes of a SCIP index upload (the body is refused past it while it is read). */
export const SCIP_MAX_BYTES = 64 * 1024 * 1024;
/** Derived indexes kept parsed in memory (the most recently used). */
const CACHED = 4;
const COMMIT = /^[0-9a-f]{40}$/;

/** The SCIP indexes below a data folder. */
export class ScipIndexes {
  #dataDir: string;
  #cache = new RecentMap<string, DerivedScip>(CACHED);
  #log: (line: string) => void;
  // Damaged files already logged (one line each until an upload replaces them).
  #damaged = new Set<string>();
  // Temp files of uploads and copies in progress (never removed as leftovers).
  #inFlight = new Set<string>();
  // Digests of stored files, by path, while their size and time are unchanged.
  #digests = new Map<string, { size: number; mtimeMs: number; digest: string }>();

  /** Indexes below `dataDir`; a damaged file is said once through `log`. */
  constructor(dataDir: string, options: { log?: (line: string) => void } = {}) {
    this.#dataDir = dataDir;
    this.#log = options.log ?? (() => {});
  }

  /** The folder of a repository's indexes. */
  folder(repositoryId: number): string {
    return join(this.#dataDir, "scip_index", String(repositoryId));
  }

  /** Stores `scip` as the index of its commit, replacing any earlier one. */
  put(repositoryId: number, scip: DerivedScip): void {
    this.putText(repositoryId, { commit: scip.source.commit, text: storedText(scip) });
  }

  /** Stores the text `storedText` made of a commit's index, replacing any earlier one. */
  putText(repositoryId: number, stored: { commit: string; text: string }): void {
    const { commit, text } = stored;
    if (!COMMIT.test(commit)) throw new Error("not a commit");
    const folder = this.folder(repositoryId);
    // Private as the search indexes' folder (the data folder's own checks cover its parents).
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    this.#removeLeftovers(folder);
    atomicReplace(join(folder, `${commit}.json`), new TextEncoder().encode(text));
    this.#replaced(repositoryId, commit);
  }

  /**
   * Private temp paths in the repository's folder for one upload or copy of
   * the index of `commit` (`release` removes whatever is left of them).
   */
  incoming(repositoryId: number, commit: string): { raw: string; stored: string } {
    if (!COMMIT.test(commit)) throw new Error("not a commit");
    const folder = this.folder(repositoryId);
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const final = join(folder, `${commit}.json`);
    const paths = { raw: tempPathBeside(`${final}.scip`), stored: tempPathBeside(final) };
    this.#inFlight.add(paths.raw);
    this.#inFlight.add(paths.stored);
    return paths;
  }

  /** Removes what is left of temp paths from `incoming`. */
  release(paths: { raw: string; stored: string }): void {
    for (const path of [paths.raw, paths.stored]) {
      fs.rmSync(path, { force: true });
      this.#inFlight.delete(path);
    }
  }

  /**
   * Stores the stored text in `stored` (a temp path from `incoming`, whole
   * and of `digest` when given) as the index of `commit`, replacing any
   * earlier one: fsync, rename over, folder fsync.
   */
  install(repositoryId: number, at: { commit: string; stored: string; digest?: string }): void {
    const folder = this.folder(repositoryId);
    this.#removeLeftovers(folder);
    const final = join(folder, `${at.commit}.json`);
    publishFile(at.stored, final);
    this.#inFlight.delete(at.stored);
    this.#replaced(repositoryId, at.commit);
    if (at.digest !== undefined) this.#rememberDigest(final, at.digest);
  }

  /** The SHA-256 (hex) of the stored file of `commit`, or null when there is none. */
  digest(repositoryId: number, commit: string): string | null {
    if (!COMMIT.test(commit)) return null;
    const path = join(this.folder(repositoryId), `${commit}.json`);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(path);
    } catch {
      return null;
    }
    const known = this.#digests.get(path);
    if (known && known.size === stat.size && known.mtimeMs === stat.mtimeMs) return known.digest;
    const digest = fileDigest(path);
    if (digest !== null) {
      this.#digests.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, digest });
    }
    return digest;
  }

  #rememberDigest(path: string, digest: string): void {
    const stat = fs.statSync(path);
    this.#digests.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, digest });
  }

  // Read back (and parsed) when first asked for.
  #replaced(repositoryId: number, commit: string): void {
    this.#cache.delete(`${repositoryId}/${commit}`);
    this.#damaged.delete(`${repositoryId}/${commit}`);
  }

  // Temp files of writes a crash interrupted (not those of uploads in progress).
  #removeLeftovers(folder: string): void {
    for (const name of fs.readdirSync(folder)) {
      const path = join(folder, name);
      if (name.startsWith(".") && name.endsWith(".tmp") && !this.#inFlight.has(path)) {
        fs.rmSync(path, { force: true });
      }
    }
  }

  /**
   * The index of `commit`, or null when none was uploaded or its file cannot
   * be read (refused, said once in the log: answers are then search-based
   * until an upload replaces it).
   */
  get(repositoryId: number, commit: string): DerivedScip | null {
    if (!COMMIT.test(commit)) return null;
    const key = `${repositoryId}/${commit}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const path = join(this.folder(repositoryId), `${commit}.json`);
    let text: string;
    try {
      text = Deno.readTextFileSync(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      return this.#refuse(key, path);
    }
    const scip = parseStoredText(text);
    if (scip === null || scip.source.commit !== commit) return this.#refuse(key, path);
    this.#damaged.delete(key);
    this.#cache.set(key, scip);
    return scip;
  }

  #refuse(key: string, path: string): null {
    if (!this.#damaged.has(key)) {
      this.#damaged.add(key);
      this.#log(`SCIP index ${path} cannot be read: refused (upload the commit's index again)`);
    }
    return null;
  }

  /** The commits of a repository that have an index, with the tool that made each. */
  commits(repositoryId: number): Map<string, ScipSource> {
    const found = new Map<string, ScipSource>();
    let names: string[];
    try {
      names = fs.readdirSync(this.folder(repositoryId));
    } catch {
      return found;
    }
    for (const name of names) {
      const commit = name.slice(0, -".json".length);
      if (!name.endsWith(".json") || !COMMIT.test(commit)) continue;
      const source = firstLine(join(this.folder(repositoryId), name));
      if (source !== null && source.commit === commit) found.set(commit, source);
    }
    return found;
  }

  /** Every stored index: its repository, commit and file. */
  *stored(): Generator<{ repositoryId: number; commit: string; path: string }> {
    let folders: string[];
    try {
      folders = fs.readdirSync(join(this.#dataDir, "scip_index"));
    } catch {
      return;
    }
    for (const folder of folders) {
      if (!/^[1-9][0-9]*$/.test(folder)) continue;
      const repositoryId = Number(folder);
      for (const commit of this.commits(repositoryId).keys()) {
        yield { repositoryId, commit, path: join(this.folder(repositoryId), `${commit}.json`) };
      }
    }
  }

  /** Drops the indexes of commits not in `retained`. */
  prune(repositoryId: number, retained: readonly string[]): void {
    const keep = new Set(retained);
    for (const commit of this.commits(repositoryId).keys()) {
      if (keep.has(commit)) continue;
      this.#cache.delete(`${repositoryId}/${commit}`);
      fs.rmSync(join(this.folder(repositoryId), `${commit}.json`), { force: true });
    }
  }

  /**
   * Drops every index of a repository. The temp files of an upload or copy
   * in progress stay (it installs or releases them), and so does the folder
   * holding them: removed under a running upload, they made it fail with an
   * internal error instead of finishing.
   */
  remove(repositoryId: number): void {
    for (const key of [...this.#cache.keys()]) {
      if (key.startsWith(`${repositoryId}/`)) this.#cache.delete(key);
    }
    const folder = this.folder(repositoryId);
    let names: string[];
    try {
      names = fs.readdirSync(folder);
    } catch {
      return; // no index was ever stored
    }
    for (const name of names) {
      const path = join(folder, name);
      if (!this.#inFlight.has(path)) fs.rmSync(path, { recursive: true, force: true });
    }
    if (names.every((name) => !this.#inFlight.has(join(folder, name)))) {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  }
}

// The first line of a stored index (its source), read alone.
function firstLine(path: string): ScipSource | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, "r");
    const head = new Uint8Array(4096);
    const length = fs.readSync(fd, head, 0, head.length, 0);
    const text = new TextDecoder().decode(head.subarray(0, length));
    const newline = text.indexOf("\n");
    const source = JSON.parse(text.slice(0, newline));
    return typeof source?.tool === "string" && typeof source?.version === "string" &&
        typeof source?.commit === "string"
      ? { tool: source.tool, version: source.version, commit: source.commit }
      : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

// The SHA-256 of a file, read a MiB at a time; null when it cannot be read.
function fileDigest(path: string): string | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, "r");
    const hash = createHash("sha256");
    const buffer = new Uint8Array(1 << 20);
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
    return hash.digest("hex");
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
