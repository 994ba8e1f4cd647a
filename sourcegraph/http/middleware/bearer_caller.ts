/**
 * Bearer authentication: `Authorization: Bearer <secret>` names the service
 * token or a personal key (`access/credentials.ts`), and the request's
 * caller (`c.var.caller`) is that; without the header it is anonymous. A
 * header that names neither is `AUTHENTICATION_REQUIRED` (401): a mistyped
 * token never silently falls back to anonymous access. An OAuth access
 * token (`sgo_…`) stands for the identity that approved it, narrowed to its
 * scopes (`c.var.scopes`); one that is unknown, expired, revoked or bound
 * to another resource than this service's MCP URL is `INVALID_TOKEN` (401).
 * With an external issuer (`oauth/external_issuer.ts`) a bearer JWT is
 * verified against it instead, and stands for what its claims grant.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { Hono } from "hono";
 * import type { ControlStore } from "../../store/control_store.ts";
 * import type { EdgeEnv } from "../edge_env.ts";
 * import { edgeErrors } from "./edge_errors.ts";
 * const serviceToken = "s".repeat(40);
 * const store = { keyByHash: () => null } as unknown as ControlStore; // knows no personal key
 * const app = new Hono<EdgeEnv>();
 * app.onError(edgeErrors(console.error));
 * app.use(bearerCaller({ serviceToken, store, oauth: null, resource: () => "" }));
 * app.get("/whoami", (c) => c.text(c.var.caller.kind));
 * const whoami = (headers: Record<string, string>) => app.request("/whoami", { headers });
 * assert.strictEqual(await (await whoami({})).text(), "anonymous");
 * const service = await whoami({ authorization: `Bearer ${serviceToken}` });
 * assert.strictEqual(await service.text(), "service");
 * const mistyped = await whoami({ authorization: "Bearer sgk_mistyped" });
 * assert.strictEqual(mistyped.status, 401); // never anonymous
 * ```
 *
 * @module
 */

import { createMiddleware } from "hono/factory";
import type { Context, MiddlewareHandler } from "hono";
import { callerForSecret } from "../../access/credentials.ts";
import { SourcegraphError } from "../../errors.ts";
import { type ExternalIssuer, looksLikeJwt } from "../../oauth/external_issuer.ts";
import {
  ACCESS_TOKEN_PREFIX,
  type OAuthServer,
  type TokenGrant,
} from "../../oauth/oauth_server.ts";
import type { ControlStore } from "../../store/control_store.ts";
import type { EdgeEnv } from "../edge_env.ts";

/** What the bearer header is checked against. */
export interface BearerOptions {
  serviceToken?: string;
  store: ControlStore;
  /** The authorization server whose access tokens are accepted (none: only keys and the token). */
  oauth: OAuthServer | null;
  /** The external issuer whose JWT access tokens are accepted (none: no JWT is). */
  issuer?: ExternalIssuer | null;
  /** The resource (MCP URL) this request reached, which an access token must be bound to. */
  resource: (c: Context<EdgeEnv>) => string;
}

/** Sets `c.var.caller` from the bearer header. */
export function bearerCaller(options: BearerOptions): MiddlewareHandler<EdgeEnv> {
  return createMiddleware<EdgeEnv>(async (c, next) => {
    const header = c.req.header("authorization");
    c.set("scopes", null);
    if (header === undefined) {
      c.set("caller", { kind: "anonymous" });
    } else {
      const match = /^Bearer ([\x21-\x7e]{1,8192})$/.exec(header);
      const grant = match === null ? null : await tokenGrant(c, match[1], options);
      if (grant !== null) {
        c.set("caller", grant.identity);
        c.set("scopes", grant.scopes);
        return await next();
      }
      const caller = match === null || match[1].length > 512
        ? null
        : callerForSecret(match[1], options);
      if (caller === null) {
        throw new SourcegraphError("AUTHENTICATION_REQUIRED", "the bearer token is not valid");
      }
      c.set("caller", caller);
    }
    await next();
  });
}

// What an OAuth access token grants (null: the secret is no access token, but maybe a key).
async function tokenGrant(
  c: Context<EdgeEnv>,
  secret: string,
  options: BearerOptions,
): Promise<TokenGrant | null> {
  if (options.oauth && secret.startsWith(ACCESS_TOKEN_PREFIX) && secret.length <= 512) {
    return await options.oauth.authenticate(secret, { resource: options.resource(c) });
  }
  if (options.issuer && looksLikeJwt(secret) && callerForSecret(secret, options) === null) {
    try {
      return await options.issuer.authenticate(secret, { resource: options.resource(c) });
    } catch (error) {
      // A verified token without any scope of the service: its challenge names the read scope.
      if (error instanceof SourcegraphError && error.code === "INSUFFICIENT_SCOPE") {
        c.set("scopes", []);
      }
      throw error;
    }
  }
  return null;
}
