/**
 * What a SIGTERM or SIGINT means to a running service: the first starts the
 * graceful stop, a later one stops at once. One stop often arrives more than
 * once: Ctrl-C signals the terminal's whole process group, and the launchers
 * in it (`npm start`, `deno task start`) relay the signal they got to their
 * child as well, so the service gets the same signal two or three times
 * within milliseconds. Those copies are the same stop; only a signal that
 * comes later (or another signal) is a second request.
 *
 * @module
 */

/** How long after the first signal its copies are taken as relayed (ms). */
export const RELAY_WINDOW_MS = 1_000;

/** What one received signal means. */
export type StopSignalMeaning =
  /** The first: stop gracefully. */
  | "stop"
  /** The same signal again within the relay window: a copy of the first, ignored. */
  | "relayed"
  /** A later (or another) signal: stop at once. */
  | "again";

/** The signals a service received, in order. */
export class StopSignals {
  #first: { signal: string; at: number } | null = null;
  readonly #now: () => number;
  readonly #windowMs: number;

  /** `now` is a monotonic clock in ms (default `performance.now`). */
  constructor(options: { now?: () => number; relayWindowMs?: number } = {}) {
    this.#now = options.now ?? (() => performance.now());
    this.#windowMs = options.relayWindowMs ?? RELAY_WINDOW_MS;
  }

  /** What `signal`, received now, means. */
  receive(signal: string): StopSignalMeaning {
    const at = this.#now();
    if (this.#first === null) {
      this.#first = { signal, at };
      return "stop";
    }
    if (signal === this.#first.signal && at - this.#first.at < this.#windowMs) return "relayed";
    return "again";
  }
}
