/**
 * Test cases that share one fixture (a world in process, a service, a
 * browser): each is registered by name, and one test builds the fixture
 * once and runs every case as a step of its own, in the order they were
 * registered. A failing case fails its step (and so the test); the cases
 * after it still run.
 *
 * @module
 */

/** Cases run in order against one fixture of type `W`. */
export class SharedCases<W> {
  #cases: [string, (world: W) => Promise<void> | void][] = [];

  /** Registers a case: `fn` runs against the shared fixture as the step `name`. */
  add(name: string, fn: (world: W) => Promise<void> | void): void {
    this.#cases.push([name, fn]);
  }

  /** Runs every case against `world`, each as a step of `t`. */
  async run(t: Deno.TestContext, world: W): Promise<void> {
    await this.runEach(t, async (fn) => await fn(world));
  }

  /**
   * Runs every case as a step of `t` through `enter`, which gives each its
   * own fixture (a browser context, say) and cleans up after it. The steps
   * leave ops and resources to the test's sanitizers: a shared fixture's
   * outlive a step.
   */
  async runEach(
    t: Deno.TestContext,
    enter: (fn: (world: W) => Promise<void> | void) => Promise<void>,
  ): Promise<void> {
    for (const [name, fn] of this.#cases) {
      await t.step({
        name,
        fn: () => enter(fn),
        sanitizeOps: false,
        sanitizeResources: false,
      });
    }
  }
}
