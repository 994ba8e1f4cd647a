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
  | { kind: "busy"; holder: LockHolder | null };

/**
 * Takes the data folder `dataDir` (which must exist) for this process, or
 * reports who holds it. The lock lasts as long as the process.
 *
 * @example
 * ```ts ignore
 * const outcome = lockDataFolder(".sourcegraph");
 * if (outcome.kind === "busy") console.error(describeBusy(".sourcegraph", outcome.holder));
 * ```
 */
export function lockDataFolder(dataDir: string): DataLockOutcome {
  const file = Deno.openSync(join(dataDir, LOCK_FILE), {
    read: true,
    write: true,
    create: true,
    mode: 0o600,
  });
  if (!file.tryLockSync(true)) {
    const holder = readHolder(file);
    file.close();
    return { kind: "busy", holder };
  }
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
 * ```ts ignore
 * const line = `the data folder is in use by ${describeHolder(outcome.holder)}`;
 * ```
 */
export function describeHolder(holder: LockHolder | null): string {
  if (holder === null) return "another process";
  const where = holder.address === null ? "still starting" : `listening on ${holder.address}`;
  return `another service (PID ${holder.pid}, ${where})`;
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
