/**
 * The HTTP edge as one Hono application: every route of the service, and
 * the checks every request passes on its way, in the order they run:
 *
 * 1. a request id, and the error answer (`{"code","message"}`; sub-apps with
 *    a wire of their own answer in it);
 * 2. Host, request target and Origin (DNS rebinding, absolute-form targets);
 * 3. `GET /healthz`, which needs nothing more;
 * 4. the bearer's caller, and the limits of every body read;
 * 5. `GET /metrics`;
 * 6. the admin API (service token only);
 * 7. the OAuth metadata and endpoints (`oauth_api.ts`), the MCP endpoint
 *    (which answers an anonymous caller with a 401 challenge when public
 *    reads are off) and the plain HTTP API, behind the anonymous limits;
 * 8. the web pages (passed in as `pages`: the edge does not import them),
 *    which find their viewer (a session) and then pass the same anonymous
 *    limits.
 *
 * The transport (`serve.ts`) calls the returned handler with the client's
 * address and the front's connection.
 *
 * @module
 */

import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { Services } from "../service/compose.ts";
import { SourcegraphError } from "../errors.ts";
import type { ExternalIssuer } from "../oauth/external_issuer.ts";
import { type OAuthServer, storeOAuthServer } from "../oauth/oauth_server.ts";
import { adminApp } from "./admin_api.ts";
import type { EdgeEnv, Handler, PagesMount } from "./edge_env.ts";
import { httpApiApp } from "./http_api.ts";
import { mcpApp } from "./mcp/mcp_app.ts";
import type { Metrics } from "./metrics.ts";
import { anonymousLimits } from "./middleware/anonymous_limits.ts";
import { bearerCaller } from "./middleware/bearer_caller.ts";
import { bodyLimits } from "./middleware/body_limits.ts";
import { edgeErrors } from "./middleware/edge_errors.ts";
import { hostAndOrigin } from "./middleware/host_origin.ts";
import { requestId } from "./middleware/request_id.ts";
import {
  FANOUT_SEARCH_COST,
  FANOUT_SYMBOLS_COST,
  pageCost,
  RateLimiter,
  repositoryCharge,
} from "./rate_limits.ts";
import { OAUTH_ROOT, oauthApp } from "./oauth_api.ts";
import { bearerChallenge, mcpResource } from "./oauth_urls.ts";
import { readBody } from "./request_body.ts";
import { httpStatus } from "./status_codes.ts";

/** Settings of the edge. */
export interface HttpSettings {
  /** The service token (full access), if configured. */
  serviceToken?: string;
  /** Host names accepted in Host and Origin (loopback names always are). */
  allowedHosts: readonly string[];
  /** Anonymous call units per minute per client address. */
  anonymousPerMinute: number;
  /** Anonymous requests in flight per client address. */
  anonymousConcurrency: number;
  /** Largest body of the plain HTTP and admin APIs. */
  maxBodyBytes: number;
  /** Largest MCP body. */
  maxMcpBodyBytes: number;
  /** Largest body of an anonymous caller, on every route. */
  maxAnonymousBodyBytes: number;
  /** A body must arrive within this time. */
  bodyTimeoutMs: number;
  /** The origin (and path) the service is reached at (SOURCEGRAPH_PUBLIC_URL), which links in answers start with; default the request's Host. */
  publicUrl?: string;
  /** Whether anonymous callers may use MCP at all (default true); without, they get a 401 challenge. */
  publicRead?: boolean;
}

// Largest form a page accepts (sign-in and sign-out carry a token or two), and its most fields.
const PAGE_FORM_BYTES = 16 * 1024;
const PAGE_FORM_FIELDS = 16;

/**
 * Builds the edge over the composed services; the returned handler answers
 * every request.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { DEFAULT_PLUGIN_SETTINGS } from "../plugins/plugin_settings.ts";
 * import { composeServices } from "../service/compose.ts";
 * import { READ_PLUGIN_ROOM } from "./mcp/read_room.ts";
 * import { Metrics } from "./metrics.ts";
 * const dataDir = await Deno.makeTempDir(); // a new data folder: no repository yet
 * const services = composeServices(
 *   { dataDir, publicRead: true, searchIndex: false, plugins: DEFAULT_PLUGIN_SETTINGS },
 *   { log: console.error, pluginRoom: READ_PLUGIN_ROOM },
 * );
 * const edge: HttpSettings = {
 *   allowedHosts: [],
 *   anonymousPerMinute: 600,
 *   anonymousConcurrency: 4,
 *   maxBodyBytes: 1024 * 1024,
 *   maxMcpBodyBytes: 4 * 1024 * 1024,
 *   maxAnonymousBodyBytes: 128 * 1024,
 *   bodyTimeoutMs: 30_000,
 * };
 * const handle = createApp(services, { settings: edge, metrics: new Metrics(), log: console.error });
 * const get = (path: string) =>
 *   handle(new Request(`http://127.0.0.1${path}`, { headers: { host: "127.0.0.1" } }));
 * const health = await get("/healthz");
 * assert.strictEqual(health.status, 200);
 * await health.body?.cancel();
 * const admin = await get("/sourcegraph/api/admin/v1/repos"); // the service token only
 * assert.strictEqual((await admin.json()).code, "AUTHENTICATION_REQUIRED");
 * await services.close();
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 */
// One function on purpose: the order of its lines is the order a request
// meets the middleware and the mounted sub-apps.
// deno-lint-ignore function-length/max-lines
export function createApp(
  services: Pick<Services, "store" | "repositories" | "admin">,
  options: {
    settings: HttpSettings;
    metrics: Metrics;
    log: (message: string) => void;
    /** The web pages (`web/web_pages.tsx`), mounted last; none without it. */
    pages?: PagesMount;
    /** The clock that refills the anonymous buckets (milliseconds; default `Date.now`). */
    now?: () => number;
    /** The authorization server (default: over the store's OAuth state). */
    oauth?: OAuthServer;
    /** An external issuer whose JWTs are accepted instead: the embedded server is off. */
    issuer?: ExternalIssuer;
  },
): Handler {
  const { settings, metrics, log } = options;
  const { store, repositories: service, admin } = services;
  const limiter = new RateLimiter({
    perMinute: settings.anonymousPerMinute,
    concurrency: settings.anonymousConcurrency,
    now: options.now,
  });
  const anonymous = (cost: (c: Context<EdgeEnv>) => number) =>
    anonymousLimits(limiter, { maxBodyBytes: settings.maxAnonymousBodyBytes, cost });

  // Not strict: `/sourcegraph` and `/sourcegraph/` are the same page.
  const app = new Hono<EdgeEnv>({ strict: false });
  const issuer = options.issuer ?? null;
  const oauth = issuer !== null ? null : options.oauth ??
    storeOAuthServer(store, { serviceToken: settings.serviceToken !== undefined });
  const publicUrl = settings.publicUrl;
  app.onError(edgeErrors(log, {
    challenge: (c, code) =>
      bearerChallenge(c, {
        code,
        publicUrl,
        presented: c.req.header("authorization") !== undefined,
        scopes: c.var.scopes,
      }),
  }));
  app.notFound(() => {
    throw new SourcegraphError("NOT_FOUND", "no such endpoint");
  });
  app.use(requestId());
  app.use(hostAndOrigin(settings.allowedHosts));
  app.get("/healthz", (c) => c.text("ok\n"));
  app.use(bearerCaller({
    serviceToken: settings.serviceToken,
    store,
    oauth,
    issuer,
    resource: (c) => mcpResource(c, publicUrl),
  }));
  app.use(bodyLimits({ timeoutMs: settings.bodyTimeoutMs }));
  app.use("/.well-known/*", anonymous(() => 1));
  app.use(`${OAUTH_ROOT}/*`, anonymous(() => 1));
  app.route("/", oauthApp(oauth, { publicUrl, log, issuer: issuer?.issuer }));
  app.get(
    "/metrics",
    (c) =>
      c.text(metrics.render(store, (repo) => service.visible(c.var.caller, repo)), 200, {
        "content-type": "text/plain; version=0.0.4",
      }),
  );
  app.route(
    "/sourcegraph/api/admin/v1",
    adminApp(admin, { maxBodyBytes: settings.maxBodyBytes }),
  );
  app.use("/sourcegraph/mcp", anonymous(() => 1)); // the calls' cost is paid once parsed
  if (settings.publicRead === false) app.post("/sourcegraph/mcp", callerRequired());
  app.route(
    "/sourcegraph/mcp",
    mcpApp(
      // `create` is loaded on the first MCP request (see mcp_app.ts).
      (serviceTools, create) => create(service, { admin, metrics, log, serviceTools }),
      {
        maxBodyBytes: settings.maxMcpBodyBytes,
        pagesForBrowsers: options.pages !== undefined,
        publicUrl: settings.publicUrl,
      },
    ),
  );
  app.use(
    "/sourcegraph/v1/*",
    anonymous((c) =>
      c.req.path === "/sourcegraph/v1/search"
        ? FANOUT_SEARCH_COST
        : c.req.path === "/sourcegraph/v1/symbols"
        ? FANOUT_SYMBOLS_COST
        : 1
    ),
  );
  app.use("/sourcegraph/api/search", anonymous(() => 1));
  app.route("/sourcegraph", httpApiApp(service, { maxBodyBytes: settings.maxBodyBytes, log }));
  if (options.pages) {
    // The site's root is the pages' home: the address the start log prints leads somewhere.
    app.get("/", (c) => c.redirect("/sourcegraph/", 302));
    app.route(
      "/",
      options.pages({
        // A page view costs 1; blame, history and commit pages, and a search or symbol
        // lookup with a query, as much as their tools on MCP.
        admit: anonymous((c) =>
          pageCost(c.req.path, { q: c.req.query("q"), repo: c.req.query("repo") })
        ),
        fanoutCharge: (c) => repositoryCharge((c as Context<EdgeEnv>).var.budget),
        readForm: (c) => readPageForm(c as Context<EdgeEnv>),
        status: httpStatus,
      }),
    );
  }
  return (request, info) => Promise.resolve(app.fetch(request, info));
}

async function readPageForm(c: Context<EdgeEnv>): Promise<URLSearchParams> {
  const bytes = await readBody(c.req.raw, c.var.bodyLimits(PAGE_FORM_BYTES));
  const form = new URLSearchParams(new TextDecoder().decode(bytes));
  if ([...form.keys()].length > PAGE_FORM_FIELDS) {
    throw new SourcegraphError("INVALID_REQUEST", "the form has too many fields");
  }
  return form;
}

// Without public reads, MCP serves no anonymous caller: the 401 challenge
// tells an MCP client where to authorize.
function callerRequired(): MiddlewareHandler<EdgeEnv> {
  return async (c, next) => {
    if (c.var.caller.kind === "anonymous") {
      throw new SourcegraphError(
        "AUTHENTICATION_REQUIRED",
        "this service serves signed-in callers only; authorize with OAuth or send a personal key",
      );
    }
    await next();
  };
}
