/**
 * Host and Origin checks before anything else runs: a web page cannot drive
 * a loopback server through DNS rebinding. Only the loopback names and the
 * configured ones are served (`HOST_NOT_ALLOWED`, 421, also for a Host that
 * is not a valid host); an absolute-form request target must name the same
 * host as `Host`, since a server must use the target's and pages build
 * origins from `Host`; an Origin must be an http(s) origin of a served name
 * (`ORIGIN_NOT_ALLOWED`, 403).
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { Hono } from "hono";
 * import type { EdgeEnv } from "../edge_env.ts";
 * import { edgeErrors } from "./edge_errors.ts";
 * const app = new Hono<EdgeEnv>();
 * app.onError(edgeErrors(console.error));
 * app.use(hostAndOrigin(["sg.example.org"]));
 * app.get("/", (c) => c.text("served"));
 * const get = (url: string, headers: Record<string, string>) => app.request(url, { headers });
 * const served = await get("http://sg.example.org/", { host: "sg.example.org" });
 * assert.strictEqual(await served.text(), "served");
 * const rebound = await get("http://evil.example/", { host: "evil.example" });
 * assert.strictEqual(rebound.status, 421); // HOST_NOT_ALLOWED
 * const origin = "https://evil.example";
 * const page = await get("http://127.0.0.1/", { host: "127.0.0.1", origin });
 * assert.strictEqual((await page.json()).code, "ORIGIN_NOT_ALLOWED");
 * ```
 *
 * @module
 */

import { createMiddleware } from "hono/factory";
import type { MiddlewareHandler } from "hono";
import { SourcegraphError } from "../../errors.ts";
import type { EdgeEnv } from "../edge_env.ts";

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];
// A Host header: a DNS name or IPv4 address, or a bracketed IPv6 address, then an optional port.
const HOST_HEADER = /^(\[[0-9a-f:.]{2,45}\]|[a-z0-9](?:[a-z0-9.-]{0,252}))(?::(\d{1,5}))?$/;

/** Refuses requests whose Host, target or Origin names a host outside `allowedHosts` and loopback. */
export function hostAndOrigin(allowedHosts: readonly string[]): MiddlewareHandler<EdgeEnv> {
  const hosts = new Set([...LOOPBACK, ...allowedHosts.map((host) => host.toLowerCase())]);
  return createMiddleware<EdgeEnv>(async (c, next) => {
    const host = c.req.header("host");
    if (host === undefined || !hosts.has(hostName(host))) {
      throw new SourcegraphError("HOST_NOT_ALLOWED", "this host name is not served");
    }
    let target: string;
    let named: string;
    try {
      target = new URL(c.req.url).host;
      named = new URL(`http://${host}`).host; // the same normal form (":80" dropped)
    } catch {
      throw new SourcegraphError("INVALID_REQUEST", "the request URL is not valid");
    }
    if (target !== named) {
      throw new SourcegraphError("HOST_NOT_ALLOWED", "the request target names another host");
    }
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      let originHost: string | null = null;
      try {
        const parsed = new URL(origin);
        if (parsed.protocol === "http:" || parsed.protocol === "https:") originHost = parsed.host;
      } catch {
        // refused below
      }
      if (originHost === null || !hosts.has(hostName(originHost))) {
        throw new SourcegraphError("ORIGIN_NOT_ALLOWED", "this origin may not call the service");
      }
    }
    await next();
  });
}

/** The host name of a Host header value, or "" when it is not a valid one. */
function hostName(header: string): string {
  const match = HOST_HEADER.exec(header.toLowerCase());
  if (!match || (match[2] !== undefined && Number(match[2]) > 65_535)) return "";
  return match[1];
}
