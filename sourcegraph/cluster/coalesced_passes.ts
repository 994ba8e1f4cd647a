/**
 * Passes over the cluster's state that changes ask for: changes arriving
 * together share one pass, a change during a pass makes one more after it,
 * and stopping waits for the running pass. The rebalancer and the SCIP
 * copies run their passes this way.
 *
 * @example
 * ```ts
 * import { CoalescedPasses } from "./coalesced_passes.ts";
 *
 * let passes = 0;
 * const runner = new CoalescedPasses(async () => {
 *   passes++;
 * }, { onError: () => {} });
 * await Promise.all([runner.run(), runner.run(), runner.run()]);
 * await runner.stop();
 * if (passes !== 2) throw new Error(`${passes} passes`); // one, then one more for the rest
 * ```
 *
 * @module
 */

/** Runs `pass` when asked, never two at once, asks arriving during a pass folded into one more. */
export class CoalescedPasses {
  #pass: () => Promise<void>;
  #onError: (error: Error) => void;
  #running: Promise<void> | null = null;
  #again = false;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;

  /** `pass` does the work; `options.onError` hears a pass that failed (the next ask runs again). */
  constructor(pass: () => Promise<void>, options: { onError: (error: Error) => void }) {
    this.#pass = pass;
    this.#onError = options.onError;
  }

  /** Whether `stop` was called: a pass checks it between its steps. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Asks for a pass soon (changes that arrive together share one). */
  trigger(): void {
    if (this.#stopped || this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.run();
    }, 50);
  }

  /** Runs a pass now (or after the running one); resolves when it is done. */
  run(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.#pass().catch((error) => this.#onError(error as Error));
      } while (this.#again && !this.#stopped);
      this.#running = null;
    })();
    return this.#running;
  }

  /** No more passes; resolves when the running one ends. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    await this.#running;
  }
}
