/**
 * The limits of every body read (`c.var.bodyLimits(maxBytes)`): the route's
 * cap, the body deadline, and a refused body closes its connection (the
 * rest of it is never read). Anonymous callers get lower caps and pay for
 * their bytes (`anonymous_limits.ts` wraps this).
 *
 * @example
 * ```ts
 * app.use(bodyLimits({ timeoutMs: 30_000 }));
 * app.post("/echo", async (c) => c.body(await readBody(c.req.raw, c.var.bodyLimits(1024))));
 * ```
 *
 * @module
 */

import { createMiddleware } from "hono/factory";
import type { MiddlewareHandler } from "hono";
import type { EdgeEnv } from "../edge_env.ts";

/** Sets `c.var.bodyLimits` (and `c.var.budget` to null: nobody pays yet). */
export function bodyLimits(options: { timeoutMs: number }): MiddlewareHandler<EdgeEnv> {
  return createMiddleware<EdgeEnv>(async (c, next) => {
    c.set("budget", null);
    c.set("bodyLimits", (maxBytes) => ({
      maxBytes,
      timeoutMs: options.timeoutMs,
      onRefused: () => c.env?.connection?.closeSoon(),
    }));
    await next();
  });
}
