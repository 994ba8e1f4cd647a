/**
 * The private state file `<PLUGIN_DATA>/state.json`: the acknowledged
 * checkpoint, the pending delivery and the recent acknowledgement tokens.
 * It is validated strictly on load and on save, replaced atomically, and
 * bound to one configuration: corrupt state is `state_corrupt` (never empty),
 * another repository, path list or limit set is `configuration_changed`.
 * A `writer.lock` created exclusively guards every operation.
 *
 * @module
 */

import * as fs from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { z } from "zod";
import { acquireLockFile, atomicReplace, type LockFile, SafeFsError } from "../shared/safe_fs.ts";
import { GitSourceError } from "./errors.ts";
import { GitUpdateSchema } from "./protocol.ts";

const Hex = z.string().regex(/^[0-9a-f]{40,64}$/);

/** What was last delivered for one path: its blob (null: absent) and revision. */
const FileRecordSchema = z.strictObject({ blob: Hex.nullable(), revision: Hex });

const FilesSchema = z.record(z.string().min(1).max(1024), FileRecordSchema);

/** A delivery being paged out until its last page is acknowledged. */
const PendingSchema = z.strictObject({
  deliveryId: z.string().regex(/^[0-9a-f-]{36}$/),
  head: Hex,
  files: FilesSchema,
  updates: z.array(GitUpdateSchema).max(200),
  offset: z.number().int().min(0),
}).refine((pending) => pending.offset <= pending.updates.length);

const StateSchema = z.strictObject({
  version: z.literal(1),
  binding: z.string().min(1),
  head: Hex.nullable(),
  files: FilesSchema,
  pending: PendingSchema.optional(),
  acknowledgedTokens: z.array(z.string().min(1).max(256)).max(400).default([]),
});

/** The state file's content. */
export type FeedState = z.infer<typeof StateSchema>;
/** A pending delivery. */
export type PendingDelivery = z.infer<typeof PendingSchema>;
/** A delivered file record. */
export type FileRecord = z.infer<typeof FileRecordSchema>;

/** Acknowledged tokens kept for idempotent acknowledgement. */
export const ACK_HISTORY = 400;

/** The state file of one data folder. */
export class FeedStateFile {
  #directory: string;
  #path: string;

  /** Uses `<directory>/state.json` and `<directory>/writer.lock`. */
  constructor(directory: string) {
    this.#directory = directory;
    this.#path = join(directory, "state.json");
  }

  /** Creates the data folder (0700) and takes the writer lock, or throws writer_locked. */
  lock(): LockFile {
    try {
      fs.mkdirSync(this.#directory, { recursive: true, mode: 0o700 });
    } catch {
      throw new GitSourceError("unavailable", "the data folder cannot be created");
    }
    try {
      return acquireLockFile(
        join(this.#directory, "writer.lock"),
        JSON.stringify({ pid: process.pid }),
      );
    } catch (error) {
      if (error instanceof SafeFsError && error.code === "LOCKED") {
        throw new GitSourceError(
          "writer_locked",
          "the lock file writer.lock exists in the data folder",
        );
      }
      throw new GitSourceError("unavailable", "the writer lock cannot be taken");
    }
  }

  /** Loads and validates the state; a missing file is a fresh state for `binding`. */
  load(binding: string): FeedState {
    let raw: string;
    try {
      raw = fs.readFileSync(this.#path, "utf8");
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") {
        return { version: 1, binding, head: null, files: {}, acknowledgedTokens: [] };
      }
      throw new GitSourceError("unavailable", "state.json cannot be read");
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new GitSourceError("state_corrupt", "the state file state.json is not JSON");
    }
    const state = StateSchema.safeParse(parsed);
    if (!state.success) {
      throw new GitSourceError("state_corrupt", "the state file state.json is malformed");
    }
    if (state.data.binding !== binding) {
      throw new GitSourceError(
        "configuration_changed",
        "the data folder belongs to another repository, path list or limit set",
      );
    }
    return state.data;
  }

  /** Validates and atomically replaces the state (temp 0600, fsync, rename, folder fsync). */
  save(state: FeedState): void {
    const checked = StateSchema.safeParse(state);
    if (!checked.success) {
      throw new GitSourceError("state_corrupt", "refusing to save malformed state");
    }
    try {
      atomicReplace(this.#path, new TextEncoder().encode(JSON.stringify(checked.data)));
    } catch {
      throw new GitSourceError("unavailable", "state.json cannot be written");
    }
  }
}
