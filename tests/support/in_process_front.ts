/**
 * The service's front and the HTTP server behind it (`front_door.ts`,
 * `serve.ts`) composed in the test process over a handler, as `main.ts`
 * composes them: raw requests over real sockets reach the handler as they
 * reach a launched service's, without a process's start.
 *
 * @module
 */

import { FrontDoor } from "../../sourcegraph/http/front_door.ts";
import { InnerServer } from "../../sourcegraph/http/serve.ts";
import type { Handler } from "../../sourcegraph/http/edge_env.ts";
import type { Metrics } from "../../sourcegraph/http/metrics.ts";
import {
  type ConnectionSettings,
  DEFAULT_CONNECTION_SETTINGS,
} from "../../sourcegraph/settings.ts";

/**
 * Runs `fn` with the port of a front on 127.0.0.1 that forwards to
 * `handler` (connection settings the service's defaults with
 * `options.settings`; its connection counters in `options.metrics`, as
 * `main.ts` adds them); the front and its servers are shut down afterwards.
 */
export async function withInProcessFront(
  handler: Handler,
  fn: (port: number) => Promise<void>,
  options: {
    settings?: Partial<ConnectionSettings>;
    log?: (line: string) => void;
    metrics?: Metrics;
  } = {},
): Promise<void> {
  const settings = { ...DEFAULT_CONNECTION_SETTINGS, ...options.settings };
  const log = options.log ?? (() => {});
  let inner: InnerServer | null = null;
  const front = new FrontDoor(settings, {
    upstream: { port: () => inner!.port(), retired: (port) => inner!.retired(port) },
    log,
  });
  options.metrics?.watchFront(() => front.stats());
  inner = new InnerServer(front, {
    handler,
    log,
    rotateMs: Math.max(1_000, settings.headerTimeoutMs),
    drainMs: settings.headerTimeoutMs + settings.bodyTimeoutMs,
  });
  await inner.start();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = front.serve(listener);
  try {
    await fn(listener.addr.port);
  } finally {
    await front.drain();
    front.close();
    await serving;
    await inner.shutdown();
  }
}
