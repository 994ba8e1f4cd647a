/**
 * The guest's reads (`read_file`, `read_files`) for one plugin run: plain
 * relative paths inside the plugin folder and the registered scope, at the
 * run's commit, regular files only, counted against READ_CALLS, FILE_BYTES
 * and READ_BYTES. Refusals are "CODE: message" texts the guest reads through
 * `last_error`; they never name host paths.
 *
 * @module
 */

import { concatBytes } from "../../shared/byte_queue.ts";
import type { MirrorObjects } from "../git/mirror_objects.ts";
import type { PathScope } from "../access/path_scope.ts";
import { SourcegraphError } from "../errors.ts";
import { validatePath } from "../read/file_read.ts";
import type { PluginSettings } from "./plugin_settings.ts";

const MAX_PATH_BYTES = 4096;

/** One refused read. */
class ReadRefused extends Error {}

/** The reads of one run, with their budgets. */
export class HostReads {
  /** Paths asked for (each read_files path counts). */
  calls = 0;
  /** Bytes handed to the guest. */
  bytes = 0;
  #tree: MirrorObjects;
  #commit: string;
  #root: string;
  #scope: PathScope;
  #settings: PluginSettings;
  #recheck: () => void;

  /** Reads of `commit` under `root`; `recheck` throws when the scope is no longer readable. */
  constructor(
    tree: MirrorObjects,
    options: {
      commit: string;
      root: string;
      scope: PathScope;
      settings: PluginSettings;
      recheck: () => void;
    },
  ) {
    this.#tree = tree;
    this.#commit = options.commit;
    this.#root = options.root;
    this.#scope = options.scope;
    this.#settings = options.settings;
    this.#recheck = options.recheck;
  }

  /** Answers one guest request. */
  async answer(
    kind: "read_file" | "read_files",
    request: Uint8Array,
  ): Promise<{ data: Uint8Array } | { denied: string }> {
    try {
      if (kind === "read_file") {
        return { data: await this.#read(new TextDecoder().decode(request)) };
      }
      return { data: await this.#readMany(request) };
    } catch (error) {
      return { denied: refusal(error) };
    }
  }

  async #readMany(request: Uint8Array): Promise<Uint8Array> {
    let paths: unknown;
    try {
      paths = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(request));
    } catch {
      throw new ReadRefused("INVALID_REQUEST: read_files takes a JSON array of paths");
    }
    if (!Array.isArray(paths) || paths.some((path) => typeof path !== "string")) {
      throw new ReadRefused("INVALID_REQUEST: read_files takes a JSON array of paths");
    }
    if (paths.length > this.#settings.readCalls) {
      throw new ReadRefused("READ_LIMIT: host read count exceeded");
    }
    const parts: Uint8Array[] = [u32(paths.length)];
    for (const path of paths as string[]) {
      let status = 0;
      let body: Uint8Array;
      try {
        body = await this.#read(path);
      } catch (error) {
        status = 1;
        body = new TextEncoder().encode(refusal(error));
      }
      parts.push(u32(status), u32(body.length), body);
    }
    return concatBytes(parts);
  }

  async #read(path: string): Promise<Uint8Array> {
    if (++this.calls > this.#settings.readCalls) {
      throw new ReadRefused("READ_LIMIT: host read count exceeded");
    }
    if (new TextEncoder().encode(path).length > MAX_PATH_BYTES) {
      throw new ReadRefused("path too long");
    }
    validatePath(path);
    const full = this.#root === "" ? path : `${this.#root}/${path}`;
    this.#recheck();
    if (!this.#scope.covers(full)) {
      throw new ReadRefused("PATH_NOT_REGISTERED: the path is outside the registered scope");
    }
    const entry = await this.#tree.lookup(this.#commit, full);
    if (entry === null) throw new ReadRefused("FILE_NOT_FOUND: no such file at this commit");
    if (entry.kind !== "file") throw new ReadRefused("NOT_A_FILE: only regular files can be read");
    const bytes = await this.#tree.blob(entry.oid, this.#settings.fileBytes);
    if (bytes === null) throw new ReadRefused("PLUGIN_FILE_TOO_LARGE: host read bytes exceeded");
    if (this.bytes + bytes.length > this.#settings.readBytes) {
      throw new ReadRefused("READ_LIMIT: host read bytes exceeded");
    }
    this.bytes += bytes.length;
    return bytes;
  }
}

/** The "CODE: message" the guest reads through last_error (never a host path). */
function refusal(error: unknown): string {
  if (error instanceof ReadRefused) return error.message;
  if (error instanceof SourcegraphError) return `${error.code}: ${error.message}`;
  return "READ_FAILED: the file could not be read";
}

function u32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, true);
  return out;
}
