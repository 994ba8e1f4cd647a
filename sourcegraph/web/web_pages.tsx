/**
 * The web pages under `/sourcegraph/` for people: server-rendered HTML
 * (Hono's router and JSX, which escapes every value) that works without
 * JavaScript. Pages see exactly what MCP shows the same caller: anonymous
 * visitors only public repositories (none when public reads are off), and
 * a repository the viewer may not see answers exactly as a missing one.
 * Signing in exchanges a personal key or the service token for a
 * server-side session; every form that changes state carries a CSRF token.
 * Every answer carries a Content-Security-Policy without inline scripts or
 * styles, and the Host/Origin rules of the MCP endpoint apply before any
 * page is reached.
 *
 * The app is the headers, the viewer, the edge's admission and the error
 * page, then three route sub-apps: static files, sessions, repositories.
 *
 * @module
 */

import { Hono } from "hono";
import type { PageEdge, PagesMount } from "../http/edge_env.ts";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { secureHeaders } from "hono/secure-headers";
import { SourcegraphError } from "../errors.ts";
import { internalError } from "../internal_error.ts";
import type { RepositoryService } from "../service/repository_service.ts";
import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { notFoundPage, page, type PageEnv } from "./page_responses.tsx";
import { PAGES_ROOT } from "../render/page_urls.ts";
import { type OAuthServer, storeOAuthServer } from "../oauth/oauth_server.ts";
import { repositoryRoutes } from "./routes/repository_routes.tsx";
import { sessionRoutes, viewerMiddleware } from "./routes/session_routes.tsx";
import { staticRoutes } from "./routes/static_routes.ts";
import { syncRoutes } from "./routes/sync_routes.ts";
import { Sessions } from "./sessions.ts";
import type { CodeHighlighter } from "./code/highlighter.ts";
import type { DocumentRenderer } from "./code/markdown_renderer.ts";
import { ProblemPage } from "./sign_in_page.tsx";

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** What the pages are built with. */
export interface PagesOptions {
  store: ControlStore;
  edge: PageEdge;
  serviceToken?: string;
  /** The origin the connect page advertises, when set. */
  publicUrl?: string;
  log: (line: string) => void;
  sessions?: Sessions;
  /** What file pages and search results are highlighted with (none: plain text). */
  highlighter?: CodeHighlighter;
  /** What Markdown files and READMEs are rendered with (none: shown as source). */
  markdown?: DocumentRenderer;
  /**
   * The authorization server of the consent page (default: over the store's
   * OAuth state; null: no consent page, as with an external issuer).
   */
  oauth?: OAuthServer | null;
  /** Starts a sync for a signed-in person's "Sync now"; false when one is under way. */
  syncNow: (repo: RepositoryRecord) => boolean;
}

/**
 * The pages for `createApp`'s `pages` option: built once the edge gives
 * them its admission, form reading and statuses.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { createApp } from "../http/app.ts";
 * import { READ_PLUGIN_ROOM } from "../http/mcp/read_room.ts";
 * import { Metrics } from "../http/metrics.ts";
 * import { DEFAULT_PLUGIN_SETTINGS } from "../plugins/plugin_settings.ts";
 * import { composeServices } from "../service/compose.ts";
 * const dataDir = await Deno.makeTempDir(); // a new data folder: no repository yet
 * const log = console.error;
 * const services = composeServices(
 *   { dataDir, publicRead: true, searchIndex: false, plugins: DEFAULT_PLUGIN_SETTINGS },
 *   { log, pluginRoom: READ_PLUGIN_ROOM },
 * );
 * const handle = createApp(services, {
 *   settings: {
 *     allowedHosts: [],
 *     anonymousPerMinute: 600,
 *     anonymousConcurrency: 4,
 *     maxBodyBytes: 1024 * 1024,
 *     maxMcpBodyBytes: 4 * 1024 * 1024,
 *     maxAnonymousBodyBytes: 128 * 1024,
 *     bodyTimeoutMs: 30_000,
 *   },
 *   metrics: new Metrics(),
 *   log,
 *   pages: pagesMount(services.repositories, {
 *     store: services.store,
 *     log,
 *     syncNow: (repo) => services.scheduler.requestSync(repo),
 *   }),
 * });
 * const home = await handle(
 *   new Request("http://127.0.0.1/sourcegraph/", { headers: { host: "127.0.0.1" } }),
 * );
 * assert.strictEqual(home.status, 200);
 * assert.ok(home.headers.get("content-security-policy"));
 * assert.ok((await home.text()).startsWith("<!DOCTYPE html>"));
 * await services.close();
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 */
export function pagesMount(
  service: RepositoryService,
  options: Omit<PagesOptions, "edge">,
): PagesMount {
  const oauth = options.oauth === null ? undefined : options.oauth ??
    storeOAuthServer(options.store, { serviceToken: options.serviceToken !== undefined });
  return (edge) => pagesApp(service, { ...options, oauth, edge });
}

// The web pages as a sub-app, mounted at the service's root.
function pagesApp(service: RepositoryService, options: PagesOptions): Hono<PageEnv> {
  const { edge, log, highlighter, markdown, store, syncNow } = options;
  const sessions = options.sessions ??
    new Sessions(store.sessions, {
      valid: (caller) => caller.kind === "service" || store.hasKey(caller.id),
    });
  // Not strict: `/sourcegraph` and `/sourcegraph/` are the same page.
  const app = new Hono<PageEnv>({ strict: false }).basePath(PAGES_ROOT);
  app.use(async (c, next) => {
    await next();
    // A raw file sets its own, stricter policy (a sandbox).
    if (!c.res.headers.has("Content-Security-Policy")) {
      c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    }
    if (!c.res.headers.has("cache-control")) c.header("Cache-Control", "private, no-store");
  });
  app.use(secureHeaders({
    contentSecurityPolicy: undefined,
    strictTransportSecurity: false,
    xFrameOptions: "DENY",
    referrerPolicy: "same-origin",
    crossOriginEmbedderPolicy: false,
  }));
  app.use(viewerMiddleware(sessions));
  app.use(edge.admit);
  app.onError((error, c) => {
    const viewer = c.get("viewer") ?? { label: null, csrf: null };
    if (error instanceof SourcegraphError) {
      const status = edge.status(error.code);
      return page(
        c,
        <ProblemPage
          viewer={viewer}
          title={titleOf(status)}
          code={error.code}
          message={error.message}
        />,
        status as ContentfulStatusCode,
      );
    }
    const known = internalError(error, { requestId: c.var.requestId, log });
    return page(
      c,
      <ProblemPage
        viewer={viewer}
        title="Something went wrong"
        code={known.code}
        message={known.message}
        requestId={c.var.requestId}
      />,
      500,
    );
  });
  app.route("/", staticRoutes());
  app.route("/", sessionRoutes({ ...options, oauth: options.oauth ?? undefined, sessions }));
  app.route("/", syncRoutes(service, { store, edge, syncNow }));
  app.route("/", repositoryRoutes(service, { ...edge, highlighter, markdown }));
  app.all("/*", notFoundPage);
  return app;
}

function titleOf(status: number): string {
  return status === 404
    ? "Not found"
    : status === 401 || status === 403
    ? "Not allowed"
    : "Cannot show this";
}
