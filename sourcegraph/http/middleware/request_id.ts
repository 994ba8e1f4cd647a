/**
 * Gives every request an id (`c.var.requestId`): unexpected failures are
 * logged with it, and answers carry it where their wire has room for it.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { Hono } from "hono";
 * import type { EdgeEnv } from "../edge_env.ts";
 * const app = new Hono<EdgeEnv>();
 * app.use(requestId());
 * app.get("/", (c) => c.text(c.var.requestId));
 * const first = await (await app.request("/")).text();
 * const second = await (await app.request("/")).text();
 * assert.match(first, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
 * assert.notStrictEqual(first, second);
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
