/**
 * Compiled plugin modules, keyed by the SHA-256 of their bytes. Compiling
 * validates the module and its shape (imports only from `sourcegraph`,
 * no imported memory, no start function, the four ABI exports) without
 * running any of its code. One compile runs at a time; a compile that
 * finishes after its caller gave up is dropped, not cached. Entries are
 * reference counted; when the cache is full the least recently used
 * unreferenced entry is evicted (and `onEvict` closes its idle instances).
 *
 * @module
 */

import { encodeHex } from "../../../shared/text.ts";
import { beforeDeadline } from "../../../shared/deadline.ts";
import { START_SECTION, wasmSections } from "./wasm_sections.ts";

/** A module that passed every static check. */
export interface PluginModule {
  digest: string;
  bytes: Uint8Array;
}

/** A refused module or a failed compile: a plugin code and a short reason. */
export interface ModuleFailure {
  code: string;
  message: string;
}

const HOST_IMPORTS = new Set(["read_file", "read_files", "last_error"]);
const ABI_EXPORTS: [string, WebAssembly.ImportExportKind][] = [
  ["memory", "memory"],
  ["alloc", "function"],
  ["dealloc", "function"],
  ["enrich", "function"],
];

interface Entry {
  outcome: PluginModule | ModuleFailure;
  refs: number;
}

/** The SHA-256 of a module, hex. */
export async function moduleDigest(bytes: Uint8Array): Promise<string> {
  return encodeHex(
    new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)),
  );
}

/** The compile cache. */
export class CompiledModules {
  #entries = new Map<string, Entry>();
  #capacity: number;
  #slot: Promise<unknown> = Promise.resolve();
  #onEvict: (digest: string) => void;
  /** Compiles run so far (for tests and logs). */
  compiles = 0;

  /** Keeps at most `capacity` modules. */
  constructor(capacity: number, onEvict: (digest: string) => void) {
    this.#capacity = capacity;
    this.#onEvict = onEvict;
  }

  /** Whether `digest` is compiled (no reference taken). */
  has(digest: string): boolean {
    return this.#entries.has(digest);
  }

  /**
   * Compiles (or reuses) `bytes` and takes a reference on success; release
   * it with `release`. Resolves a failure when the module is refused, the
   * cache is full of referenced entries, or `deadline` passes first.
   */
  async acquire(
    bytes: Uint8Array,
    options: { deadline: number; digest?: string },
  ): Promise<{ module: PluginModule; hit: boolean } | ModuleFailure> {
    const digest = options.digest ?? await moduleDigest(bytes);
    const cached = this.#touch(digest);
    if (cached) return this.#take(cached, true);
    if (performance.now() >= options.deadline) {
      return { code: "PLUGIN_TIMEOUT", message: "the time limit passed before the compile" };
    }
    let expired = false;
    const compile = this.#slot.then(async () => {
      const again = this.#entries.get(digest);
      if (again) return again;
      this.compiles++;
      const entry: Entry = { outcome: await checkModule(digest, bytes), refs: 0 };
      if (expired) return entry; // the caller gave up: dropped, never cached
      this.#store(digest, entry);
      return entry;
    });
    this.#slot = compile.catch(() => {});
    const entry = await beforeDeadline(compile, options.deadline);
    if (entry === null) {
      expired = true;
      return { code: "PLUGIN_TIMEOUT", message: "the module did not compile in time" };
    }
    if (!this.#entries.has(digest) && "digest" in entry.outcome) {
      return { code: "PLUGIN_INVALID", message: "the compile cache is full" };
    }
    return this.#take(entry, false);
  }

  /** Drops a reference taken by `acquire`. */
  release(digest: string): void {
    const entry = this.#entries.get(digest);
    if (entry && entry.refs > 0) entry.refs--;
  }

  #take(entry: Entry, hit: boolean): { module: PluginModule; hit: boolean } | ModuleFailure {
    if (!("digest" in entry.outcome)) return entry.outcome;
    entry.refs++;
    return { module: entry.outcome, hit };
  }

  #touch(digest: string): Entry | undefined {
    const entry = this.#entries.get(digest);
    if (entry) {
      this.#entries.delete(digest);
      this.#entries.set(digest, entry);
    }
    return entry;
  }

  #store(digest: string, entry: Entry): void {
    while (this.#entries.size >= this.#capacity) {
      const victim = [...this.#entries].find(([, candidate]) => candidate.refs === 0);
      if (!victim) return; // every entry is in use: not cached
      this.#entries.delete(victim[0]);
      this.#onEvict(victim[0]);
    }
    this.#entries.set(digest, entry);
  }
}

/** Validates a module without running it. */
async function checkModule(
  digest: string,
  bytes: Uint8Array,
): Promise<PluginModule | ModuleFailure> {
  let module: WebAssembly.Module;
  try {
    module = await WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>);
  } catch {
    return { code: "PLUGIN_INVALID", message: "the module does not compile" };
  }
  for (const entry of WebAssembly.Module.imports(module)) {
    if (entry.kind === "memory") {
      return { code: "PLUGIN_INVALID", message: "imported memory is not allowed" };
    }
    if (
      entry.module !== "sourcegraph" || entry.kind !== "function" || !HOST_IMPORTS.has(entry.name)
    ) {
      return {
        code: "PLUGIN_INVALID",
        message: "imports must be sourcegraph.read_file, read_files or last_error (no WASI)",
      };
    }
  }
  const exports = WebAssembly.Module.exports(module);
  for (const [name, kind] of ABI_EXPORTS) {
    if (!exports.some((entry) => entry.name === name && entry.kind === kind)) {
      return {
        code: "PLUGIN_ABI_INCOMPATIBLE",
        message: "the module must export memory, alloc, dealloc and enrich",
      };
    }
  }
  if (wasmSections(bytes).some((section) => section.id === START_SECTION)) {
    return { code: "PLUGIN_FAILED", message: "start functions are not allowed" };
  }
  return { digest, bytes };
}
