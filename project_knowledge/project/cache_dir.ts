/**
 * The private cache folder of one project root:
 * `$XDG_CACHE_HOME/webcodex-project-knowledge/<root-hash>/` (or
 * `~/.cache/...`). Folders are 0700 and owned by this user, files 0600, no
 * component is a symlink, and the folder is never inside the project. Its
 * path is never returned to callers.
 *
 * @module
 */

import * as fs from "node:fs";
import { createHash } from "node:crypto";
import { isAbsolute, join } from "node:path";
import process from "node:process";
import { ensurePrivateDir, SafeFsError, tempPathBeside } from "../../shared/safe_fs.ts";
import { KnowledgeError } from "../errors.ts";

/** The folder name below the cache base. */
export const CACHE_FOLDER = "webcodex-project-knowledge";
/** The published index file name. */
export const INDEX_FILE = "index.sqlite3";
// Temp builds older than this are left-overs of a killed process.
const STALE_TEMP_MS = 10 * 60 * 1000;

/** The cache folder of one root. */
export interface CacheDir {
  /** Absolute path of the private folder. */
  path: string;
  /** Absolute path of the published index. */
  indexPath: string;
}

/** The hash naming a root's cache folder. */
export function rootHash(rootPath: string): string {
  return createHash("sha256").update("webcodex-project-knowledge.root.v1\0").update(rootPath)
    .digest("hex").slice(0, 32);
}

/**
 * Picks the cache base from the environment: an absolute XDG_CACHE_HOME, else
 * `$HOME/.cache`. Throws cache_unavailable when neither is usable.
 */
export function cacheBase(env: { xdgCacheHome?: string; home?: string }): string {
  if (env.xdgCacheHome && isAbsolute(env.xdgCacheHome)) return stripSlashes(env.xdgCacheHome);
  if (env.home && isAbsolute(env.home)) return join(stripSlashes(env.home), ".cache");
  throw new KnowledgeError("cache_unavailable", "no cache location: set XDG_CACHE_HOME or HOME");
}

function stripSlashes(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}

/**
 * Creates or verifies the private cache folder of `rootPath` below `base`.
 * Refuses a cache inside the project, symlinks, and folders that are not
 * private or not ours.
 */
export function prepareCacheDir(base: string, rootPath: string): CacheDir {
  const inside = (path: string) => path === rootPath || path.startsWith(rootPath + "/");
  if (inside(base) || inside(join(base, CACHE_FOLDER))) {
    throw new KnowledgeError("cache_unavailable", "the cache must not be inside the project");
  }
  try {
    fs.mkdirSync(base, { recursive: true, mode: 0o700 });
  } catch {
    // verified below; a missing base fails there
  }
  let path: string;
  try {
    path = ensurePrivateDir(base, [CACHE_FOLDER, rootHash(rootPath)]);
  } catch (error) {
    if (error instanceof SafeFsError) {
      throw new KnowledgeError("cache_unavailable", `cache folder refused: ${error.message}`);
    }
    throw new KnowledgeError("cache_unavailable", "cache folder unavailable");
  }
  return { path, indexPath: join(path, INDEX_FILE) };
}

/**
 * Checks that the published index, if any, is a private regular file of ours
 * with one link. Returns false when there is none.
 */
export function publishedIndexExists(cache: CacheDir): boolean {
  let stat: Deno.FileInfo;
  try {
    stat = Deno.lstatSync(cache.indexPath);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw new KnowledgeError("cache_unavailable", "cache file unavailable");
  }
  assertPrivateFile(stat);
  return true;
}

function assertPrivateFile(stat: Deno.FileInfo): void {
  if (stat.isSymlink || !stat.isFile || stat.nlink !== 1) {
    throw new KnowledgeError("cache_unavailable", "cache file is not a private regular file");
  }
  if (stat.uid !== process.getuid?.() || stat.mode === null || (stat.mode & 0o077) !== 0) {
    throw new KnowledgeError("cache_unavailable", "cache file is not private");
  }
}

/**
 * Creates an empty private (0600) temp file for a build beside the index, or
 * a private copy of the published index when `copyPublished` is set.
 */
export function createTempBuild(cache: CacheDir, options: { copyPublished: boolean }): string {
  const temp = tempPathBeside(cache.indexPath);
  const create = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL |
    (fs.constants.O_NOFOLLOW ?? 0);
  try {
    const fd = fs.openSync(temp, create, 0o600);
    try {
      if (options.copyPublished) copyInto(cache.indexPath, fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    discardTempBuild(temp);
    if (error instanceof KnowledgeError) throw error;
    throw new KnowledgeError("cache_unavailable", "cache write failed");
  }
  return temp;
}

function copyInto(source: string, targetFd: number): void {
  const fd = fs.openSync(source, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.nlink !== 1 || (stat.mode & 0o077) !== 0) {
      throw new KnowledgeError("cache_unavailable", "cache file is not a private regular file");
    }
    const buffer = new Uint8Array(1024 * 1024);
    while (true) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      let written = 0;
      while (written < read) written += fs.writeSync(targetFd, buffer, written, read - written);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Removes a temp build and its SQLite side files, ignoring missing ones. */
export function discardTempBuild(temp: string): void {
  for (const suffix of ["", "-journal", "-wal", "-shm"]) {
    try {
      fs.unlinkSync(temp + suffix);
    } catch {
      // not there
    }
  }
}

/** Removes temp builds left behind by killed processes (older than 10 minutes). */
export function removeStaleTempBuilds(cache: CacheDir, now: number = Date.now()): void {
  let names: string[];
  try {
    names = fs.readdirSync(cache.path);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(`.${INDEX_FILE}.`) || !/\.tmp(?:-journal|-wal|-shm)?$/.test(name)) {
      continue;
    }
    try {
      const stat = Deno.lstatSync(join(cache.path, name));
      if (stat.mtime && now - stat.mtime.getTime() > STALE_TEMP_MS) {
        fs.unlinkSync(join(cache.path, name));
      }
    } catch {
      // raced with its owner
    }
  }
}
