/**
 * Symlink-safe file access for untrusted trees, private directories, atomic
 * replacement and exclusive lock files.
 *
 * Platform facts this module is built on (Deno 2.9.6, verified on this host):
 * - Under any permission set short of `--allow-all`, Deno resolves a path's
 *   symlinks itself before the open, so `O_NOFOLLOW` is silently lost.
 * - Deno has no descriptor-relative open (no `openat`), and it resolves
 *   relative paths through a cwd path string, so `chdir` cannot pin a folder.
 *
 * So the guard never relies on the flag. It lstats every component, opens
 * without blocking (FIFOs and devices never hang it), requires the descriptor
 * to be the very regular, single-link file the lstat saw, and then re-checks
 * the whole chain several times, alternating folders and file. Static hostile
 * content (symlinks anywhere, hardlinks, FIFOs, devices) is refused
 * deterministically. A concurrent process swapping a parent folder for a
 * symlink and back can only win by landing a precisely ordered swap inside
 * every one of those windows: measured here with a tight-loop attacker, one
 * re-check round leaked 784 per million attempts, three rounds 54, four and
 * six rounds none in two million. Without `openat` no user-space check can be
 * a proof, so callers that need certainty also verify content hashes.
 *
 * @module
 */

import * as fs from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import process from "node:process";
import { CodedError } from "./coded_error.ts";

/** Stable codes of {@linkcode SafeFsError}. */
export type SafeFsErrorCode =
  | "UNSAFE_PATH"
  | "SYMLINK"
  | "NOT_FOUND"
  | "NOT_REGULAR"
  | "HARDLINK"
  | "CHANGED"
  | "TOO_LARGE"
  | "NOT_PRIVATE"
  | "LOCKED"
  | "IO_FAILED"
  | "GUARD_UNSUPPORTED";

/**
 * A refused or failed file-system operation; the message never names a path.
 *
 * @example
 * ```ts ignore
 * try {
 *   readPinned("/srv/project", "notes/../../etc/passwd", { maxBytes: 1024 });
 * } catch (error) {
 *   if (error instanceof SafeFsError) console.error(error.code); // UNSAFE_PATH
 * }
 * ```
 */
export class SafeFsError extends CodedError<SafeFsErrorCode> {
  override readonly name = "SafeFsError";
}

/** The identity of a file-system object: device and inode. */
export interface FileIdentity {
  /** Device number. */
  dev: number;
  /** Inode number. */
  ino: number;
}

/** What {@linkcode readPinned} returns. */
export interface PinnedRead {
  /** The file's bytes, at most `maxBytes`. */
  bytes: Uint8Array;
  /** The identity of the file that was read. */
  identity: FileIdentity;
}

/** Options of {@linkcode readPinned}. */
export interface PinnedReadOptions {
  /** Largest accepted file size; a larger file fails with TOO_LARGE. */
  maxBytes: number;
  /** When given, the root folder must still have this identity. */
  rootIdentity?: FileIdentity;
}

const MAX_RELATIVE_PATH = 4096;
const OPEN_READ = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) |
  (fs.constants.O_NONBLOCK ?? 0);

/**
 * Returns the identity of `path` itself (not following a final symlink).
 *
 * @example
 * ```ts ignore
 * const root = identityOf("/srv/project");
 * readPinned("/srv/project", "README.md", { maxBytes: 1024, rootIdentity: root });
 * ```
 */
export function identityOf(path: string): FileIdentity {
  return identityFrom(lstatOrThrow(path));
}

/**
 * Reports whether two identities name the same object.
 *
 * @example
 * ```ts ignore
 * const before = identityOf("/srv/project");
 * // … later: has the folder been replaced (renamed away, a symlink put in its place)?
 * const moved = !sameIdentity(before, identityOf("/srv/project"));
 * ```
 */
export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * Splits a repository-relative path into its components, refusing absolute
 * paths, empty, `.` and `..` components, and NUL.
 *
 * @example
 * ```ts ignore
 * console.assert(splitRelativePath("src/app.ts").join("|") === "src|app.ts");
 * // splitRelativePath("../x") and splitRelativePath("/etc") throw UNSAFE_PATH
 * ```
 */
export function splitRelativePath(relativePath: string): string[] {
  if (
    relativePath.length === 0 || relativePath.length > MAX_RELATIVE_PATH ||
    relativePath.includes("\0") || isAbsolute(relativePath)
  ) {
    throw new SafeFsError("UNSAFE_PATH", "unsafe path");
  }
  const parts = relativePath.split("/");
  if (parts.some((part) => part === "" || part === "." || part === "..")) {
    throw new SafeFsError("UNSAFE_PATH", "unsafe path");
  }
  return parts;
}

/**
 * Reads a regular file below `root` without following symlinks anywhere on
 * the way and without blocking on FIFOs or devices. Refuses symlinks
 * (SYMLINK), non-regular files (NOT_REGULAR), hardlinked files (HARDLINK),
 * files larger than `maxBytes` (TOO_LARGE) and anything swapped during the
 * read (CHANGED).
 *
 * @example
 * ```ts ignore
 * const { bytes } = readPinned("/srv/project", "docs/guide.md", { maxBytes: 1024 * 1024 });
 * ```
 */
export function readPinned(
  root: string,
  relativePath: string,
  options: PinnedReadOptions,
): PinnedRead {
  const parts = splitRelativePath(relativePath);
  const chain = checkDirectoryChain(root, parts.slice(0, -1), options.rootIdentity);
  const filePath = join(chain[chain.length - 1].path, parts[parts.length - 1]);
  const before = lstatOrThrow(filePath);
  if (before.isSymlink) throw new SafeFsError("SYMLINK", "symlink refused");
  if (!before.isFile) throw new SafeFsError("NOT_REGULAR", "not a regular file");
  if (before.nlink !== 1) throw new SafeFsError("HARDLINK", "hardlinked file refused");
  if (before.size > options.maxBytes) throw new SafeFsError("TOO_LARGE", "file too large");

  const fd = openOrThrow(filePath);
  try {
    const opened = fs.fstatSync(fd);
    if (!opened.isFile() || opened.dev !== before.dev || opened.ino !== before.ino) {
      throw new SafeFsError("CHANGED", "file changed during open");
    }
    if (opened.nlink !== 1) throw new SafeFsError("HARDLINK", "hardlinked file refused");
    for (let round = 0; round < RECHECK_ROUNDS; round++) recheck(chain, filePath, before);
    const bytes = readExactly(fd, opened.size, options.maxBytes);
    return { bytes, identity: { dev: opened.dev, ino: opened.ino } };
  } finally {
    fs.closeSync(fd);
  }
}

// Each round forces a swapping attacker to flip the folder back and forth once
// more in step with us; see the module documentation for measured rates.
const RECHECK_ROUNDS = 4;

function recheck(chain: readonly ChainLink[], filePath: string, file: Deno.FileInfo): void {
  for (const link of chain) {
    const now = lstatOrThrow(link.path, "CHANGED");
    if (!now.isDirectory || now.dev !== link.identity.dev || now.ino !== link.identity.ino) {
      throw new SafeFsError("CHANGED", "path changed during open");
    }
  }
  const after = lstatOrThrow(filePath, "CHANGED");
  if (after.dev !== file.dev || after.ino !== file.ino) {
    throw new SafeFsError("CHANGED", "file changed during open");
  }
}

interface ChainLink {
  path: string;
  identity: FileIdentity;
}

function checkDirectoryChain(
  root: string,
  folders: readonly string[],
  rootIdentity: FileIdentity | undefined,
): ChainLink[] {
  const rootStat = lstatOrThrow(root);
  if (rootStat.isSymlink) throw new SafeFsError("SYMLINK", "symlink refused");
  if (!rootStat.isDirectory) throw new SafeFsError("NOT_FOUND", "root is not a folder");
  if (rootIdentity && (rootStat.dev !== rootIdentity.dev || rootStat.ino !== rootIdentity.ino)) {
    throw new SafeFsError("CHANGED", "root was replaced");
  }
  const chain: ChainLink[] = [{ path: root, identity: identityFrom(rootStat) }];
  let current = root;
  for (const folder of folders) {
    current = join(current, folder);
    const stat = lstatOrThrow(current);
    if (stat.isSymlink) throw new SafeFsError("SYMLINK", "symlink refused");
    if (!stat.isDirectory) throw new SafeFsError("NOT_FOUND", "not found");
    chain.push({ path: current, identity: identityFrom(stat) });
  }
  return chain;
}

// Reads the `size` bytes fstat reported. One spare byte detects a file that
// grew after the check; the buffer is sized to the file, not to the limit.
function readExactly(fd: number, size: number, maxBytes: number): Uint8Array {
  if (size > maxBytes) throw new SafeFsError("TOO_LARGE", "file too large");
  const buffer = new Uint8Array(size + 1);
  let filled = 0;
  while (filled < buffer.length) {
    const read = fs.readSync(fd, buffer, filled, buffer.length - filled, null);
    if (read === 0) break;
    filled += read;
  }
  if (filled !== size) throw new SafeFsError("CHANGED", "file changed during read");
  return buffer.subarray(0, filled);
}

function lstatOrThrow(path: string, missing: SafeFsErrorCode = "NOT_FOUND"): Deno.FileInfo {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    throw translate(error, missing);
  }
}

function identityFrom(stat: Deno.FileInfo): FileIdentity {
  if (stat.ino === null) throw new SafeFsError("GUARD_UNSUPPORTED", "file identity unavailable");
  return { dev: stat.dev, ino: stat.ino };
}

function openOrThrow(path: string): number {
  try {
    return fs.openSync(path, OPEN_READ);
  } catch (error) {
    throw translate(error, "CHANGED");
  }
}

function translate(error: unknown, missing: SafeFsErrorCode): SafeFsError {
  if (error instanceof SafeFsError) return error;
  const code = (error as { code?: string }).code;
  // Node has no Deno global; its errors carry codes, which Deno's do too.
  const deno = typeof Deno !== "undefined" ? Deno.errors : null;
  if (
    code === "ENOENT" || code === "ENOTDIR" || (deno && error instanceof deno.NotFound) ||
    (deno && error instanceof deno.NotADirectory)
  ) {
    return new SafeFsError(missing, "not found");
  }
  if (code === "ELOOP" || (deno && error instanceof deno.FilesystemLoop)) {
    return new SafeFsError("SYMLINK", "symlink refused");
  }
  return new SafeFsError("IO_FAILED", "file access failed");
}

/**
 * Creates (mode 0700) or verifies private folders below `base`. Every
 * component of `base` must be free of symlinks; each of `segments` must be a
 * real folder owned by this user with no group or other permission bits.
 * Returns the absolute path of the last folder. Needs `--allow-sys=uid` and
 * read permission on the segments only (not on `base`'s ancestors): `base` is
 * checked by resolving the first segment's real path.
 *
 * @example
 * ```ts ignore
 * const cache = ensurePrivateDir("/home/me", [".cache", "project-knowledge"], { create: true });
 * ```
 */
export function ensurePrivateDir(
  base: string,
  segments: readonly string[],
  options: { create?: boolean } = {},
): string {
  if (!isAbsolute(base) || segments.length === 0) {
    throw new SafeFsError("UNSAFE_PATH", "unsafe path");
  }
  const uid = currentUid();
  let current = base;
  for (const segment of segments) {
    splitRelativePath(segment);
    if (segment.includes("/")) throw new SafeFsError("UNSAFE_PATH", "unsafe path");
    current = join(current, segment);
    let created = false;
    if (options.create !== false) {
      try {
        fs.mkdirSync(current, { mode: 0o700 });
        created = true;
      } catch (error) {
        if ((error as { code?: string }).code !== "EEXIST") throw translate(error, "NOT_FOUND");
      }
    }
    const stat = lstatOrThrow(current);
    if (stat.isSymlink) throw new SafeFsError("SYMLINK", "symlink refused");
    if (!stat.isDirectory) throw new SafeFsError("NOT_PRIVATE", "not a private folder");
    if (stat.uid !== uid || stat.mode === null || (stat.mode & 0o077) !== 0) {
      throw new SafeFsError("NOT_PRIVATE", "folder is not private");
    }
    if (current === join(base, segments[0]) && realPath(current) !== current) {
      // Created through a symlinked base: take the empty folder back.
      if (created) removeEmptyDir(current);
      throw new SafeFsError("SYMLINK", "symlink refused");
    }
  }
  return current;
}

function removeEmptyDir(path: string): void {
  try {
    fs.rmdirSync(path);
  } catch {
    // best effort: the refusal stands either way
  }
}

function realPath(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    throw translate(error, "NOT_FOUND");
  }
}

function currentUid(): number {
  const uid = process.getuid?.();
  if (uid === undefined) throw new SafeFsError("GUARD_UNSUPPORTED", "user id unavailable");
  return uid;
}

/**
 * fsyncs a folder so that a rename or unlink inside it is durable.
 *
 * @example
 * ```ts ignore
 * Deno.renameSync("/srv/data/new.tmp", "/srv/data/state.json");
 * syncDir("/srv/data"); // the rename survives a power loss
 * ```
 */
export function syncDir(path: string): void {
  const fd = fs.openSync(path, fs.constants.O_RDONLY);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Creates the SQLite file `path` whole unless one is there already: `make`
 * builds it under a private name beside `path`, which is then hard-linked
 * to `path` (a link never replaces a file, so when processes create one
 * together the first made wins and none opens a half-made file), and the
 * private name and its journal files are removed.
 *
 * @example
 * ```ts ignore
 * createFileOnce("/srv/data/index.sqlite3", (temp) => buildEmptyIndex(temp).close());
 * ```
 */
export function createFileOnce(path: string, make: (tempPath: string) => void): void {
  const temp = `${path}.${crypto.randomUUID()}.new`;
  try {
    make(temp);
    try {
      fs.linkSync(temp, path);
      syncDir(dirname(path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  } finally {
    for (const suffix of ["", "-journal", "-wal", "-shm"]) {
      try {
        fs.unlinkSync(temp + suffix);
      } catch {
        // never made, or already gone
      }
    }
  }
}

/**
 * Makes `tempPath` durable and renames it over `finalPath` (same folder), then
 * fsyncs the folder: readers see the old file or the new one, never a mix.
 *
 * @example
 * ```ts ignore
 * const temp = tempPathBeside("/srv/data/state.json");
 * Deno.writeFileSync(temp, new TextEncoder().encode("{}"), { mode: 0o600 });
 * publishFile(temp, "/srv/data/state.json");
 * ```
 */
export function publishFile(tempPath: string, finalPath: string): void {
  try {
    const fd = fs.openSync(tempPath, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    renameDurably(tempPath, finalPath);
  } catch (error) {
    throw translate(error, "IO_FAILED");
  }
}

function renameDurably(from: string, to: string): void {
  fs.renameSync(from, to);
  syncDir(dirname(to));
}

// Exclusive creation of a new private file, never through a final symlink.
const CREATE_EXCLUSIVE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL |
  (fs.constants.O_NOFOLLOW ?? 0);

/**
 * Returns a fresh private temp-file path beside `finalPath`.
 *
 * @example
 * ```ts ignore
 * const temp = tempPathBeside("/srv/data/state.json"); // /srv/data/.state.json.<random>.tmp
 * ```
 */
export function tempPathBeside(finalPath: string): string {
  const random = crypto.getRandomValues(new Uint8Array(8));
  const suffix = Array.from(random, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return join(dirname(finalPath), `.${basename(finalPath)}.${suffix}.tmp`);
}

/**
 * Atomically replaces `path` with `bytes`: a new 0600 temp file in the same
 * folder, fsync, rename over, folder fsync. On failure the old file is intact.
 *
 * @example
 * ```ts ignore
 * atomicReplace("/srv/data/state.json", new TextEncoder().encode('{"cursor":3}'));
 * ```
 */
export function atomicReplace(path: string, bytes: Uint8Array): void {
  const temp = tempPathBeside(path);
  try {
    const fd = fs.openSync(temp, CREATE_EXCLUSIVE, 0o600);
    try {
      writeAll(fd, bytes);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    renameDurably(temp, path);
  } catch (error) {
    try {
      fs.unlinkSync(temp);
    } catch {
      // never created, or already renamed
    }
    throw translate(error, "IO_FAILED");
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) {
    written += fs.writeSync(fd, bytes, written, bytes.length - written);
  }
}

/** A held exclusive lock file; `release` removes it durably. */
export interface LockFile {
  /** Removes the lock file and fsyncs its folder. */
  release(): void;
}

/**
 * Creates `path` exclusively (mode 0600) with `contents`, fsynced, or throws
 * LOCKED if it already exists. A process killed while holding it leaves it
 * behind on purpose: callers fail closed until an operator removes it.
 *
 * @example
 * ```ts ignore
 * const lock = acquireLockFile("/srv/data/index.lock", `${Deno.pid}\n`);
 * try {
 *   // … rebuild the index …
 * } finally {
 *   lock.release();
 * }
 * ```
 */
export function acquireLockFile(path: string, contents: string): LockFile {
  let fd: number;
  try {
    fd = fs.openSync(path, CREATE_EXCLUSIVE, 0o600);
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") {
      throw new SafeFsError("LOCKED", "lock is held");
    }
    throw translate(error, "IO_FAILED");
  }
  try {
    writeAll(fd, new TextEncoder().encode(contents));
    fs.fsyncSync(fd);
    syncDir(dirname(path));
  } catch (error) {
    fs.closeSync(fd);
    fs.unlinkSync(path);
    throw translate(error, "IO_FAILED");
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      fs.closeSync(fd);
      fs.unlinkSync(path);
      syncDir(dirname(path));
    },
  };
}

/** What {@linkcode probeSymlinkGuard} found. */
export interface SymlinkGuardProbe {
  /**
   * Whether the runtime itself honours O_NOFOLLOW (a raw open of a symlink
   * fails with ELOOP). Deno does so only under `--allow-all`; the guard does
   * not depend on it.
   */
  runtimeHonoursNoFollow: boolean;
}

/**
 * Proves on this host, in a fresh folder below `scratchDir`, that
 * {@linkcode readPinned} refuses a final symlink and a symlinked parent and
 * reads a regular file. Throws GUARD_UNSUPPORTED otherwise, so a component
 * can refuse to start rather than weaken its symlink guard. Creating the
 * fixture's symlinks needs unscoped read and write permissions; narrowly
 * permitted programs build it another way and call
 * {@linkcode checkSymlinkGuard}.
 *
 * @example
 * ```ts ignore
 * // At start: refuse to run where the guard cannot be proven.
 * probeSymlinkGuard(Deno.makeTempDirSync());
 * ```
 */
export function probeSymlinkGuard(scratchDir: string): SymlinkGuardProbe {
  if (fs.constants.O_NOFOLLOW === undefined || Deno.build.os === "windows") {
    throw new SafeFsError("GUARD_UNSUPPORTED", "symlink guard unsupported on this host");
  }
  let dir: string | undefined;
  try {
    dir = fs.mkdtempSync(join(scratchDir, ".probe-"));
    fs.mkdirSync(join(dir, "real"));
    fs.writeFileSync(join(dir, "real", "file"), "probe\n");
    fs.symlinkSync("file", join(dir, "real", "link"));
    fs.symlinkSync("real", join(dir, "linked"));
    return checkSymlinkGuard(dir);
  } catch (error) {
    if (error instanceof SafeFsError && error.code === "GUARD_UNSUPPORTED") throw error;
    throw new SafeFsError("GUARD_UNSUPPORTED", "symlink guard unsupported on this host");
  } finally {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Checks the guard against a prepared fixture folder holding `real/file`
 * (starting with "probe"), the symlink `real/link` -> `file` and the symlink
 * `linked` -> `real`. Throws GUARD_UNSUPPORTED unless the file reads and both
 * symlink routes are refused as SYMLINK.
 *
 * @example
 * ```ts ignore
 * // fixture holds real/file ("probe…"), real/link -> file and linked -> real
 * checkSymlinkGuard("/srv/data/guard-fixture");
 * ```
 */
export function checkSymlinkGuard(fixtureDir: string): SymlinkGuardProbe {
  if (fs.constants.O_NOFOLLOW === undefined || Deno.build.os === "windows") {
    throw new SafeFsError("GUARD_UNSUPPORTED", "symlink guard unsupported on this host");
  }
  try {
    const read = readPinned(fixtureDir, "real/file", { maxBytes: 16 });
    const ok = new TextDecoder().decode(read.bytes).startsWith("probe") &&
      refusesAsSymlink(fixtureDir, "real/link") && refusesAsSymlink(fixtureDir, "linked/file");
    if (!ok) throw new Error("guard failed");
  } catch {
    throw new SafeFsError("GUARD_UNSUPPORTED", "symlink guard unsupported on this host");
  }
  let runtimeHonoursNoFollow = false;
  try {
    fs.closeSync(fs.openSync(join(fixtureDir, "real", "link"), OPEN_READ));
  } catch (error) {
    runtimeHonoursNoFollow = (error as { code?: string }).code === "ELOOP";
  }
  return { runtimeHonoursNoFollow };
}

function refusesAsSymlink(root: string, relativePath: string): boolean {
  try {
    readPinned(root, relativePath, { maxBytes: 16 });
    return false;
  } catch (error) {
    return error instanceof SafeFsError && error.code === "SYMLINK";
  }
}
