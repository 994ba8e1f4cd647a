/**
 * The limits of every body read (`c.var.bodyLimits(maxBytes)`): the route's
 * cap, the body deadline, and a refused body closes its connection (the
 * rest of it is never read). Anonymous callers get lower caps and pay for
 * their bytes (`anonymous_limits.ts` wraps this).
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { Hono } from "hono";
 * import type { EdgeEnv } from "../edge_env.ts";
 * import { readBodyText } from "../request_body.ts";
 * import { edgeErrors } from "./edge_errors.ts";
 * const app = new Hono<EdgeEnv>();
 * app.onError(edgeErrors(console.error));
 * app.use(bodyLimits({ timeoutMs: 30_000 }));
 * app.post("/echo", async (c) => c.text(await readBodyText(c.req.raw, c.var.bodyLimits(1024))));
 * const echo = (body: string) => app.request("/echo", { method: "POST", body });
 * assert.strictEqual(await (await echo("hello")).text(), "hello");
 * const big = await echo("x".repeat(2048));
 * assert.strictEqual((await big.json()).code, "REQUEST_TOO_LARGE");
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
