/**
 * Bringing back a lost connection to the shared store: one loop at a time,
 * a pause before each attempt that doubles from `firstMs` up to `capMs`
 * with jitter (half the pause fixed, half random, so replicas that lost the
 * server together do not come back in step), and every connection of a
 * failed attempt closed before the next one. The attempt count starts over
 * only once an attempt has fully succeeded.
 *
 * The clock (`sleep`) and the jitter (`random`) are passed in, so the
 * mechanism can be checked without waiting.
 *
 * @module
 */

/** The first pause before a reconnection attempt by default. */
export const RECONNECT_FIRST_MS = 250;
/** The longest pause between two reconnection attempts by default. */
export const RECONNECT_CAP_MS = 5_000;

/** How the pauses between attempts are made. */
export interface BackoffOptions {
  /** The pause before the first attempt, before jitter (default `RECONNECT_FIRST_MS`). */
  firstMs?: number;
  /** The longest pause, before jitter (default `RECONNECT_CAP_MS`). */
  capMs?: number;
  /** A number in [0, 1) for the jitter (default `Math.random`). */
  random?: () => number;
  /** Waits `ms`, or until `signal` aborts (default: a timer). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * The pause before attempt `attempt` (1 is the first): `firstMs` doubled
 * per attempt up to `capMs`, of which the upper half is random.
 */
export function reconnectPause(
  attempt: number,
  options: { firstMs: number; capMs: number; random: () => number },
): number {
  const ceiling = Math.min(options.capMs, options.firstMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + options.random() * (ceiling / 2));
}

/** A connection the loop opens: it may be lost, and is closed when it is not kept. */
export interface LosableConnection {
  /** Whether the connection was lost after it opened. */
  readonly lost: boolean;
  /** Closes it (never throws). */
  close(): Promise<void>;
}

/** What the loop does and says. */
export interface ReconnectLoopOptions<T extends LosableConnection> extends BackoffOptions {
  /** Opens a connection; on failure it has closed whatever it opened. */
  open: () => Promise<T>;
  /** Makes an opened connection current (reloads what was missed); a failure fails the attempt. */
  ready: (connection: T) => Promise<void>;
  /** Keeps a connection that is ready (the attempt succeeded). */
  install: (connection: T) => void;
  /** Operator log lines. */
  log: (line: string) => void;
  /** What was lost, for the log lines ("the PostgreSQL control store"). */
  what: string;
  /** A short, safe description of a failure (never a URL or a password). */
  describe: (error: unknown) => string;
}

/** One reconnection loop: `start` begins it unless it is running. */
export class ReconnectLoop<T extends LosableConnection> {
  #options: ReconnectLoopOptions<T>;
  #backoff: { firstMs: number; capMs: number; random: () => number };
  #sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  #abort = new AbortController();
  #running: Promise<void> | null = null;
  #closed = false;

  /** A loop that does nothing until `start`. */
  constructor(options: ReconnectLoopOptions<T>) {
    this.#options = options;
    this.#backoff = {
      firstMs: options.firstMs ?? RECONNECT_FIRST_MS,
      capMs: options.capMs ?? RECONNECT_CAP_MS,
      random: options.random ?? Math.random,
    };
    this.#sleep = options.sleep ?? abortableSleep;
  }

  /** Whether a loop is running now. */
  get running(): boolean {
    return this.#running !== null;
  }

  /**
   * The connection was lost: starts reconnecting, unless a loop already
   * is (a lost connection says so more than once: an error, then its end).
   */
  start(): void {
    if (this.#closed || this.#running !== null) return;
    this.#running = this.#run().finally(() => {
      this.#running = null;
    });
  }

  /** Stops the loop; resolves once it has stopped and closed what it had opened. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#abort.abort();
    await this.#running;
  }

  async #run(): Promise<void> {
    const { log, what } = this.#options;
    log(`${what} is unreachable; serving from the cache, reconnecting`);
    let pause = reconnectPause(1, this.#backoff);
    for (let attempt = 1;; attempt++) {
      await this.#sleep(pause, this.#abort.signal);
      if (this.#closed) return;
      let connection: T | null = null;
      try {
        connection = await this.#options.open();
        await this.#options.ready(connection);
        // Lost again while it was made ready: it missed whatever was notified meanwhile.
        if (connection.lost) throw new Error("the connection was lost again");
      } catch (error) {
        await connection?.close();
        if (this.#closed) return;
        pause = reconnectPause(attempt + 1, this.#backoff);
        log(
          `${what} is still unreachable (attempt ${attempt}, next in ${
            (pause / 1000).toFixed(1)
          } s): ${this.#options.describe(error)}`,
        );
        continue;
      }
      if (this.#closed) {
        await connection.close();
        return;
      }
      this.#options.install(connection);
      log(`${what} is reachable again (attempt ${attempt}); cache reloaded`);
      return;
    }
  }
}

// A timer that an abort ends early (so a closed loop leaves no timer behind).
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}
