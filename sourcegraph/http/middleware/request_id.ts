/**
 * Gives every request an id (`c.var.requestId`): unexpected failures are
 * logged with it, and answers carry it where their wire has room for it.
 *
 * @example
 * ```ts
 * app.use(requestId());
 * app.get("/", (c) => c.text(c.var.requestId));
 * ```
 *
 * @module
 */

import { createMiddleware } from "hono/factory";
import type { MiddlewareHandler } from "hono";
import type { EdgeEnv } from "../edge_env.ts";

/** Sets `c.var.requestId` to a fresh UUID. */
export function requestId(): MiddlewareHandler<EdgeEnv> {
  return createMiddleware<EdgeEnv>(async (c, next) => {
    c.set("requestId", crypto.randomUUID());
    await next();
  });
}
