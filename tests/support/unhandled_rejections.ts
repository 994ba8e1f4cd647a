/**
 * Runs a test's body with unhandled promise rejections recorded rather
 * than failing the whole test module (Deno's default, as it ends the
 * service's process), so a test can assert there were none.
 *
 * @module
 */

/**
 * The reasons of the rejections nobody handled while `body` ran, and for
 * `settleMs` after it (work it started may end later), plus one turn of the
 * event loop: rejections are reported after the turn they happen in.
 */
export async function unhandledRejections(
  body: () => Promise<void>,
  options: { settleMs?: number } = {},
): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const onUnhandled = (event: PromiseRejectionEvent) => {
    unhandled.push(event.reason);
    event.preventDefault();
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  try {
    await body();
    if (options.settleMs) await new Promise((resolve) => setTimeout(resolve, options.settleMs));
    await new Promise((resolve) => setTimeout(resolve, 0));
  } finally {
    globalThis.removeEventListener("unhandledrejection", onUnhandled);
  }
  return unhandled;
}
