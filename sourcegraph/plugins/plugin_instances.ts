/**
 * Plugin instances: one sandbox process each, leased exclusively. After a
 * clean run an instance goes back idle under its module digest and key
 * (store, repository, commit, folder scope and args), so guest state carries
 * over only between clean runs with the same key; concurrent runs of one key
 * each get their own instance. IDLE_INSTANCES bounds the idle instances of
 * the whole host (the least recently used is closed first). One blank spare
 * process is kept started so a first use does not wait for a process start.
 *
 * @module
 */

import { SandboxProcess } from "./sandbox/sandbox_process.ts";

interface Idle {
  id: string;
  process: SandboxProcess;
}

/** Idle instances and the spare. */
export class PluginInstances {
  // Least recently used first.
  #idle: Idle[] = [];
  #spare: SandboxProcess | null = null;
  // Every process started, leased ones included, so close() can end them all.
  #started = new Set<SandboxProcess>();
  #maxIdle: number;
  #memoryMib: number;
  #closed = false;

  /** Keeps at most `idleInstances` idle instances of `memoryMib` each. */
  constructor(options: { idleInstances: number; memoryMib: number }) {
    this.#maxIdle = options.idleInstances;
    this.#memoryMib = options.memoryMib;
  }

  /** Leases the most recently used idle instance of (digest, key), if any. */
  take(digest: string, key: string): SandboxProcess | null {
    const id = `${digest}\0${key}`;
    for (let i = this.#idle.length - 1; i >= 0; i--) {
      if (this.#idle[i].id !== id) continue;
      const [{ process }] = this.#idle.splice(i, 1);
      if (process.alive) return process;
    }
    return null;
  }

  /** A blank process for a new instance (the spare when there is one). */
  blank(): SandboxProcess {
    const spare = this.#spare;
    this.#spare = null;
    this.warm();
    return spare?.alive ? spare : this.#start();
  }

  /** Starts the spare process if there is none (a sandbox that cannot start is left to `probe`). */
  warm(): void {
    if (this.#closed || this.#spare?.alive) return;
    try {
      this.#spare = this.#start();
    } catch {
      this.#spare = null;
    }
  }

  /**
   * Starts a sandbox and loads an empty module in it: the reason when that
   * fails (Deno missing or not allowed), else null.
   */
  async probe(): Promise<string | null> {
    let process: SandboxProcess;
    try {
      process = this.#start();
    } catch (error) {
      return (error as Error).message;
    }
    // A working sandbox compiles the empty module and refuses it for its missing exports.
    const empty = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
    const failure = await process.load(empty, performance.now() + 10_000);
    process.kill();
    return failure?.code === "PLUGIN_ABI_INCOMPATIBLE"
      ? null
      : `the plugin sandbox did not start (${
        failure?.code ?? "READY"
      }; is deno on PATH and allowed by --allow-run?)`;
  }

  #start(): SandboxProcess {
    for (const process of this.#started) if (!process.alive) this.#started.delete(process);
    const process = new SandboxProcess({ memoryMib: this.#memoryMib });
    this.#started.add(process);
    return process;
  }

  /** Returns a cleanly finished instance. */
  put(process: SandboxProcess, owner: { digest: string; key: string }): void {
    if (this.#closed || !process.alive) return process.kill();
    this.#idle.push({ id: `${owner.digest}\0${owner.key}`, process });
    while (this.#idle.length > this.#maxIdle) this.#idle.shift()!.process.kill();
  }

  /** Closes the idle instances of one module (evicted from the compile cache). */
  dropModule(digest: string): void {
    const prefix = `${digest}\0`;
    for (const entry of this.#idle.filter((idle) => idle.id.startsWith(prefix))) {
      entry.process.kill();
    }
    this.#idle = this.#idle.filter((idle) => !idle.id.startsWith(prefix));
  }

  /** Kills every process, running ones included. */
  close(): void {
    this.#closed = true;
    for (const process of this.#started) process.kill();
    this.#started.clear();
    this.#idle = [];
    this.#spare = null;
  }
}
