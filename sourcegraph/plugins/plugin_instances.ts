/**
 * Plugin instances: one sandbox process each, leased exclusively. After a
 * clean run an instance goes back idle under its module digest and key
 * (store, repository, commit, folder scope and args), at most one idle
 * instance per (module, key), so guest state persists only across clean runs
 * with the same key. A global idle cap closes the oldest. One blank spare
 * process is kept started so a first use does not wait for a process start.
 *
 * @module
 */

import { SandboxProcess } from "./sandbox_process.ts";

/** Idle instances and the spare. */
export class PluginInstances {
  #idle = new Map<string, SandboxProcess>();
  #spare: SandboxProcess | null = null;
  #maxIdle: number;
  #memoryMib: number;
  #closed = false;

  /** Keeps at most `idleInstances` idle instances of `memoryMib` each. */
  constructor(options: { idleInstances: number; memoryMib: number }) {
    this.#maxIdle = options.idleInstances;
    this.#memoryMib = options.memoryMib;
  }

  /** Number of idle instances. */
  get idleCount(): number {
    return this.#idle.size;
  }

  /** Leases the idle instance of (digest, key), if any. */
  take(digest: string, key: string): SandboxProcess | null {
    const id = `${digest}\0${key}`;
    const process = this.#idle.get(id);
    if (!process) return null;
    this.#idle.delete(id);
    return process.alive ? process : null;
  }

  /** A blank process for a new instance (the spare when there is one). */
  blank(): SandboxProcess {
    const spare = this.#spare;
    this.#spare = null;
    this.warm();
    return spare?.alive ? spare : new SandboxProcess({ memoryMib: this.#memoryMib });
  }

  /** Starts the spare process if there is none. */
  warm(): void {
    if (this.#closed || this.#spare?.alive) return;
    this.#spare = new SandboxProcess({ memoryMib: this.#memoryMib });
  }

  /** Returns a cleanly finished instance. */
  put(digest: string, key: string, process: SandboxProcess): void {
    const id = `${digest}\0${key}`;
    if (this.#closed || !process.alive) return process.kill();
    this.#idle.get(id)?.kill();
    this.#idle.delete(id);
    this.#idle.set(id, process);
    while (this.#idle.size > this.#maxIdle) {
      const [oldest, victim] = this.#idle.entries().next().value!;
      this.#idle.delete(oldest);
      victim.kill();
    }
  }

  /** Closes the idle instances of one module (evicted from the compile cache). */
  dropModule(digest: string): void {
    for (const [id, process] of this.#idle) {
      if (id.startsWith(`${digest}\0`)) {
        this.#idle.delete(id);
        process.kill();
      }
    }
  }

  /** Kills every process. */
  close(): void {
    this.#closed = true;
    for (const process of this.#idle.values()) process.kill();
    this.#idle.clear();
    this.#spare?.kill();
    this.#spare = null;
  }
}
