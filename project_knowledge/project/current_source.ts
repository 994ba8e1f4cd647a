/**
 * Reads a tracked source's current bytes through the symlink guard and
 * applies the content rules. Index, search and read all go through here, so
 * they agree on what a source is and on its hash.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { readPinned, SafeFsError } from "../../shared/safe_fs.ts";
import { inspectContent, type SkipReason } from "./eligibility.ts";
import { MAX_FILE_BYTES } from "../limits.ts";
import type { ProjectRoot } from "./project_root.ts";

/** A source as it is now. */
export type CurrentSource =
  | { ok: true; text: string; hash: string; bytes: number }
  | { ok: false; reason: SkipReason };

/** A source whose bytes still hash to the expected value (content rules already passed). */
export type UnchangedSource = { ok: true; unchanged: true; hash: string; content: Uint8Array };

/** SHA-256 of bytes, lower-case hex. */
export function sourceHash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Reads and inspects one path-eligible source of the root. With
 * `unchangedHash`, bytes hashing to it skip the content rules (the same bytes
 * passed them when they were indexed) and come back as unchanged.
 */
export function readCurrentSource(root: ProjectRoot, path: string): CurrentSource;
export function readCurrentSource(
  root: ProjectRoot,
  path: string,
  options: { unchangedHash: string | null },
): CurrentSource | UnchangedSource;
export function readCurrentSource(
  root: ProjectRoot,
  path: string,
  options: { unchangedHash: string | null } = { unchangedHash: null },
): CurrentSource | UnchangedSource {
  const { unchangedHash } = options;
  let bytes: Uint8Array;
  try {
    bytes = readPinned(root.path, path, {
      maxBytes: MAX_FILE_BYTES,
      rootIdentity: root.identity,
    }).bytes;
  } catch (error) {
    if (error instanceof SafeFsError) {
      if (error.code === "TOO_LARGE") return { ok: false, reason: "oversized" };
      if (error.code === "HARDLINK") return { ok: false, reason: "hardlinked" };
    }
    return { ok: false, reason: "unreadable" };
  }
  const hash = sourceHash(bytes);
  if (hash === unchangedHash) return { ok: true, unchanged: true, hash, content: bytes };
  const verdict = inspectContent(bytes);
  if (!verdict.ok) return verdict;
  return { ok: true, text: verdict.text, hash, bytes: bytes.length };
}
