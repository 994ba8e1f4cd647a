/**
 * The anonymous limits, per client address (`rate_limits.ts`): at most
 * `concurrency` requests in flight, and a bucket of units per minute from
 * which a request pays its cost (`cost(c)`: a page view 1, a search 5, an
 * MCP call what `callCost` says once its body is parsed) and its body, a unit
 * per started 64 KiB, from the declared length before reading and as it
 * streams. Anonymous bodies are capped at `maxBodyBytes` on every route.
 * Authenticated requests pass untouched.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { Hono } from "hono";
 * import type { EdgeEnv } from "../edge_env.ts";
 * import { RateLimiter } from "../rate_limits.ts";
 * import { bodyLimits } from "./body_limits.ts";
 * import { edgeErrors } from "./edge_errors.ts";
 * // 10 units a minute on a clock that never moves: two searches of 5, then none.
 * const limiter = new RateLimiter({ perMinute: 10, concurrency: 4, now: () => 0 });
 * const app = new Hono<EdgeEnv>();
 * app.onError(edgeErrors(console.error));
 * app.use(bodyLimits({ timeoutMs: 30_000 }));
 * app.use(async (c, next) => {
 *   c.set("caller", { kind: "anonymous" });
 *   await next();
 * });
 * app.use("/search", anonymousLimits(limiter, { maxBodyBytes: 128 * 1024, cost: () => 5 }));
 * app.get("/search", (c) => c.text("found"));
 * const statuses = [];
 * for (let i = 0; i < 3; i++) statuses.push((await app.request("/search")).status);
 * assert.deepStrictEqual(statuses, [200, 200, 429]); // RATE_LIMITED
 * ```
 *
 * @module
 */

import { createMiddleware } from "hono/factory";
import type { Context, MiddlewareHandler } from "hono";
import type { Caller } from "../../access/caller.ts";
import type { AnonymousBudget, EdgeEnv } from "../edge_env.ts";
import { bodyUnits, type RateLimiter } from "../rate_limits.ts";

/** Admits an anonymous request (RATE_LIMITED otherwise) and makes it pay as it goes. */
export function anonymousLimits(
  limiter: RateLimiter,
  options: {
    maxBodyBytes: number;
    cost: (c: Context<EdgeEnv>) => number;
    /** Who is asking, when not the bearer's caller (a page's session). */
    callerOf?: (c: Context<EdgeEnv>) => Caller;
  },
): MiddlewareHandler<EdgeEnv> {
  return createMiddleware<EdgeEnv>(async (c, next) => {
    const caller = options.callerOf?.(c) ?? c.var.caller;
    if (caller.kind !== "anonymous") return await next();
    const client = c.env?.remoteAddr?.hostname ?? "unknown";
    const release = limiter.enter(client);
    try {
      // An empty bucket refuses before the body is read.
      limiter.spend(client, options.cost(c));
      const budget = new Budget(limiter, client);
      const declared = Number(c.req.header("content-length") ?? 0);
      if (Number.isSafeInteger(declared) && declared > 0) {
        budget.charge(Math.min(declared, options.maxBodyBytes));
      }
      const limits = c.var.bodyLimits;
      c.set("budget", budget);
      c.set("bodyLimits", (maxBytes) => ({
        ...limits(Math.min(maxBytes, options.maxBodyBytes)),
        onProgress: (bytes) => budget.charge(bytes),
      }));
      await next();
    } finally {
      release();
    }
  });
}

// What a request has paid: its own unit covers its first 64 KiB of body.
class Budget implements AnonymousBudget {
  #limiter: RateLimiter;
  #client: string;
  #paidBytes = 1;

  constructor(limiter: RateLimiter, client: string) {
    this.#limiter = limiter;
    this.#client = client;
  }

  spend(units: number): void {
    this.#limiter.spend(this.#client, units);
  }

  charge(bytes: number): void {
    const units = bodyUnits(bytes);
    if (units <= this.#paidBytes) return;
    this.#limiter.spend(this.#client, units - this.#paidBytes);
    this.#paidBytes = units;
  }
}
