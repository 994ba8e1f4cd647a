/**
 * One service per data folder: an exclusive advisory lock (flock) on
 * `service.lock` in the folder, held as long as the process lives. The
 * kernel releases it when the process ends however it ends (SIGKILL
 * included), so a lock left by a killed service is simply taken over; the
 * file itself is never removed, because a process that removed it could let
 * two others lock two different files under the same name. The file names
 * its holder (PID, then the address once listening) so a refused start can
 * say who holds the folder.
 *
 * @module
 */

import { join } from "node:path";

/** The lock file's name in the data folder. */
export const LOCK_FILE = "service.lock";

// The record is written in one write at offset 0, padded to a fixed size, so
// a reader sees a whole record (or an empty file before the first one).
const RECORD_BYTES = 128;

/** Who holds a data folder, as its lock file says. */
export interface LockHolder {
  /** The holder's process id. */
  pid: number;
  /** Where it listens (`host:port`), or null while it is starting. */
  address: string | null;
}

/** A data folder held by this process. */
export interface DataLock {
  /** Records where this process listens, for a refused start to name. */
  recordAddress(host: string, port: number): void;
  /** Releases the folder (the service never does: its lock ends with the process). */
  release(): void;
}

/** What `lockDataFolder` found. */
export type DataLockOutcome =
  | { kind: "held"; lock: DataLock }
  | { kind: "busy"; holder: LockHolder | null }
  /** The lock file is not one this service may write: one line naming it and what to do. */
  | { kind: "refused"; problem: string };

/**
 * Takes the data folder `dataDir` (which must exist) for this process, or
 * reports who holds it. The lock lasts as long as the process. Nothing is
 * written until the open file is proven to be the regular, single-link
 * `service.lock` of the folder: a symlink, folder, FIFO, device or hard link
 * put in its place is refused, never followed, truncated or written.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const dataDir = await Deno.makeTempDir();
 * const outcome = lockDataFolder(dataDir);
 * if (outcome.kind !== "held") throw new Error(`expected the lock, got ${outcome.kind}`);
 * const second = lockDataFolder(dataDir); // as a second service on the same folder would
 * assert.strictEqual(second.kind, "busy");
 * outcome.lock.release();
 * assert.strictEqual(lockDataFolder(dataDir).kind, "held");
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 */
export function lockDataFolder(dataDir: string): DataLockOutcome {
  const path = join(dataDir, LOCK_FILE);
  const opened = openLockFile(path);
  if (typeof opened === "string") {
    return {
      kind: "refused",
      problem: `${path} ${opened}, not this data folder's lock file; make sure no service uses ` +
        `${dataDir}, remove ${path} and start again`,
    };
  }
  const file = opened;
  if (!file.tryLockSync(true)) {
    const holder = readHolder(file);
    file.close();
    return { kind: "busy", holder };
  }
  // Locked, and proven to be the folder's own file: only now is it written.
  const write = (address: string | null): void => {
    const record = JSON.stringify({ pid: Deno.pid, address });
    const bytes = new TextEncoder().encode(record.padEnd(RECORD_BYTES - 1, " ") + "\n");
    file.seekSync(0, Deno.SeekMode.Start);
    let written = 0;
    while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
    file.truncateSync(RECORD_BYTES);
  };
  write(null);
  // Kept open: closing the file releases the lock.
  return {
    kind: "held",
    lock: {
      recordAddress(host: string, port: number): void {
        write(`${host.includes(":") ? `[${host}]` : host}:${port}`);
      },
      release(): void {
        file.close();
      },
    },
  };
}

/**
 * Who holds a data folder, for a refusal: "another service (PID 41, listening
 * on 127.0.0.1:8787)", or "another process" when the lock file names no one yet.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const serving = describeHolder({ pid: 41, address: "127.0.0.1:8787" });
 * assert.strictEqual(serving, "another service (PID 41, listening on 127.0.0.1:8787)");
 * assert.strictEqual(describeHolder(null), "another process");
 * ```
 */
export function describeHolder(holder: LockHolder | null): string {
  if (holder === null) return "another process";
  const where = holder.address === null ? "still starting" : `listening on ${holder.address}`;
  return `another service (PID ${holder.pid}, ${where})`;
}

// Opens `path` for reading and writing without creating it over anything,
// truncating it or trusting where a symlink leads: it is made new (O_EXCL)
// when absent, else lstat must see a regular file with one link, and the
// opened file must be that very file (device and inode) and still be what
// the path names. Returns what the path is instead when it is not.
function openLockFile(path: string): Deno.FsFile | string {
  let seen = lstatOrNull(path);
  let file: Deno.FsFile | null = null;
  if (seen === null) {
    try {
      file = Deno.openSync(path, { read: true, write: true, createNew: true, mode: 0o600 });
    } catch (error) {
      // Made meanwhile by another starting service: check it as any other.
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      seen = lstatOrNull(path);
      if (seen === null) return "vanished while it was opened";
    }
  }
  if (file === null) {
    const kind = notPlainFile(seen!);
    if (kind !== null) return kind;
    file = Deno.openSync(path, { read: true, write: true });
  }
  const opened = file.statSync();
  const now = lstatOrNull(path);
  const same = (a: Deno.FileInfo, b: Deno.FileInfo) => a.dev === b.dev && a.ino === b.ino;
  if (
    now === null || !opened.isFile || opened.nlink !== 1 || !same(opened, now) ||
    (seen !== null && !same(opened, seen))
  ) {
    file.close();
    return "was replaced while it was opened";
  }
  return file;
}

// What `stat` is when it is not a regular file with one link, or null.
function notPlainFile(stat: Deno.FileInfo): string | null {
  if (stat.isSymlink) return "is a symlink";
  if (!stat.isFile) return "is not a regular file"; // a folder, FIFO, socket or device
  if (stat.nlink !== 1) return "has other hard links";
  return null;
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

function readHolder(file: Deno.FsFile): LockHolder | null {
  try {
    const buffer = new Uint8Array(RECORD_BYTES);
    let read = 0;
    while (read < buffer.length) {
      const n = file.readSync(buffer.subarray(read));
      if (n === null || n === 0) break;
      read += n;
    }
    const record = JSON.parse(new TextDecoder().decode(buffer.subarray(0, read)));
    if (!Number.isSafeInteger(record?.pid) || record.pid <= 0) return null;
    const address = typeof record.address === "string" ? record.address.slice(0, 80) : null;
    return { pid: record.pid, address };
  } catch {
    return null;
  }
}
