/**
 * The one background task that prepares plugins: at start-up, every minute,
 * and when a sync succeeds, it visits repositories and precompiles the
 * default-enabled plugins of their heads (discovery plus compile; never
 * instantiating a plugin or calling enrich). Wake-ups queue in at most 256
 * slots; serving never waits for this task.
 *
 * @module
 */

const QUEUE_SLOTS = 256;

/** The warm-up task. */
export class PluginWarmup {
  #prepare: (id: number) => Promise<void>;
  #repositories: () => number[];
  #queue = new Set<number>();
  #running: Promise<void> | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;

  /** Prepares repository ids with `prepare`; `repositories` lists them all. */
  constructor(prepare: (id: number) => Promise<void>, repositories: () => number[]) {
    this.#prepare = prepare;
    this.#repositories = repositories;
  }

  /** Asks for repository `id` to be prepared soon (dropped when the queue is full). */
  notify(id: number): void {
    if (this.#queue.size >= QUEUE_SLOTS && !this.#queue.has(id)) return;
    this.#queue.add(id);
    this.#running ??= this.#drain().finally(() => (this.#running = null));
  }

  /** Visits every repository now and then every `intervalMs`. */
  start(intervalMs = 60_000): void {
    const visitAll = () => {
      for (const id of this.#repositories()) this.notify(id);
    };
    visitAll();
    this.#timer = setInterval(visitAll, intervalMs);
    Deno.unrefTimer(this.#timer);
  }

  /** Resolves when the queue is empty. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  /** Stops the periodic visits. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
  }

  async #drain(): Promise<void> {
    while (this.#queue.size > 0) {
      const id: number = this.#queue.values().next().value!;
      this.#queue.delete(id);
      await this.#prepare(id).catch(() => {});
    }
  }
}
