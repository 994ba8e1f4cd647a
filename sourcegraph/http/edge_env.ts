/**
 * The types every part of the HTTP edge shares: what the transport passes
 * with a request (`RequestInfo`, Hono's bindings), what middleware leaves on
 * the context for the routes after it (`EdgeVariables`), and the handler the
 * transport calls.
 *
 * @module
 */

import type { Context, Hono, MiddlewareHandler } from "hono";
import type { Caller } from "../access/caller.ts";
import type { FanoutCharge } from "../service/repository_fanout.ts";
import type { BodyLimits } from "./request_body.ts";
import type { ClientConnection } from "./tracked_connection.ts";

/** What the transport knows about a request's connection. */
export interface RequestInfo {
  /** The client's address. */
  remoteAddr?: { hostname?: string };
  /** The front's connection, when the request came through it. */
  connection?: ClientConnection;
}

/** What an anonymous request has left to pay with (`middleware/anonymous_limits.ts`). */
export interface AnonymousBudget {
  /** Spends `units` more (RATE_LIMITED when the bucket holds fewer). */
  spend(units: number): void;
  /** Pays for a body of `bytes` so far: a unit per started 64 KiB, the first included. */
  charge(bytes: number): void;
}

/** Values middleware sets for the routes after it. */
export interface EdgeVariables {
  /** Logged with unexpected failures and sent as `X-Request-ID`. */
  requestId: string;
  /** Who the request's own credentials (a bearer header) name; anonymous without one. */
  caller: Caller;
  /**
   * The scopes of an OAuth access token, which narrow its caller's rights;
   * null for the service token, a personal key or no credentials.
   */
  scopes: readonly string[] | null;
  /** Limits of a body read on this route: `maxBytes`, lowered and charged for anonymous callers. */
  bodyLimits: (maxBytes: number) => BodyLimits;
  /** Set once the anonymous limits admitted the request; null for an authenticated one. */
  budget: AnonymousBudget | null;
}

/** The Hono environment of the edge. */
export type EdgeEnv = { Bindings: RequestInfo | undefined; Variables: EdgeVariables };

/** What the edge gives the pages it mounts (`web/` builds them with it). */
export interface PageEdge {
  /**
   * Admits a page view once `c.var.caller` names its viewer (the anonymous
   * limits); a search with a query costs what it costs on MCP.
   */
  admit: MiddlewareHandler;
  /** How a page's search across repositories pays for them (the anonymous limits). */
  fanoutCharge: (c: Context) => FanoutCharge;
  /** Reads a form body within the edge's body limits. */
  readForm: (c: Context) => Promise<URLSearchParams>;
  /** The HTTP status of an error code. */
  status: (code: string) => number;
}

/**
 * Builds the pages sub-app with what the edge gives it; the edge mounts it
 * at its root, last. Passed in, so the edge never imports the pages.
 */
// The sub-app has its own context variables; Hono's `route` mounts any.
// deno-lint-ignore no-explicit-any
export type PagesMount = (edge: PageEdge) => Hono<any>;

/** A request handler: the whole edge as the transport calls it. */
export type Handler = (request: Request, info?: RequestInfo) => Promise<Response>;
