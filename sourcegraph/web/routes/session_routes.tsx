/**
 * Who is looking and how they sign in: the viewer middleware (the request's
 * own credentials, else its session cookie), the connect page, sign-in
 * and sign-out, each form with a CSRF token, and the OAuth consent page
 * that a sign-in may lead to (`oauth_routes.tsx`). A personal key or the service
 * token is exchanged for a server-side session; cookies are HttpOnly,
 * SameSite=Strict, scoped to the pages and Secure behind HTTPS.
 *
 * @module
 */

import { Hono } from "hono";
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { callerForSecret } from "../../access/credentials.ts";
import { SourcegraphError } from "../../errors.ts";
import type { ControlStore } from "../../store/control_store.ts";
import { ConnectPage, McpEndpointPage } from "../connect_page.tsx";
import type { PageEdge } from "../../http/edge_env.ts";
import { page, type PageEnv, redirect } from "../page_responses.tsx";
import { authorizeUrl, homeUrl, mcpUrl, PAGES_ROOT } from "../../render/page_urls.ts";
import { randomToken, sameToken, type Sessions } from "../sessions.ts";
import { SignInPage } from "../sign_in_page.tsx";
import type { OAuthServer } from "../../oauth/oauth_server.ts";
import { oauthRoutes } from "./oauth_routes.tsx";

const SESSION_COOKIE = "sg_session";
const SIGN_IN_COOKIE = "sg_sign_in";
const SIGN_IN_FORM_SECONDS = 600;
const SESSION_SECONDS = 8 * 60 * 60;

/** What the session routes are built with. */
export interface SessionOptions {
  store: ControlStore;
  sessions: Sessions;
  edge: PageEdge;
  serviceToken?: string;
  /** The origin the connect page advertises and whose scheme makes cookies Secure. */
  publicUrl?: string;
  /** The authorization server whose consent page follows a sign-in (none: no consent page). */
  oauth?: OAuthServer;
}

/**
 * Sets `caller`, `session` and `viewer`: the request's own credentials when
 * it has any, else the caller of its session cookie.
 */
export function viewerMiddleware(sessions: Sessions): MiddlewareHandler<PageEnv> {
  return async (c, next) => {
    const own = c.var.caller;
    const session = own.kind === "anonymous"
      ? await sessions.get(getCookie(c, SESSION_COOKIE))
      : null;
    const caller = session?.caller ?? own;
    c.set("caller", caller);
    c.set("session", session);
    c.set("viewer", {
      label: caller.kind === "service"
        ? "service token"
        : caller.kind === "key"
        ? "personal key"
        : null,
      csrf: session?.csrf ?? null,
    });
    await next();
  };
}

/** The connect, sign-in and sign-out routes, to mount at the pages' root. */
export function sessionRoutes(options: SessionOptions): Hono<PageEnv> {
  const { sessions, edge } = options;
  const app = new Hono<PageEnv>();
  // The validated Host header, never the request target (an absolute-form
  // target may name any origin).
  const endpoint = (c: Context<PageEnv>): string =>
    `${options.publicUrl?.replace(/\/+$/, "") ?? `http://${c.req.header("host")}`}${mcpUrl()}`;
  app.get(
    "/-/connect",
    (c) =>
      page(
        c,
        <ConnectPage
          viewer={c.get("viewer")}
          endpoint={endpoint(c)}
          ownSignIn={options.oauth !== undefined}
        />,
      ),
  );
  // A browser opening the MCP endpoint (the edge sends only those here).
  app.get(
    "/mcp",
    (c) => page(c, <McpEndpointPage viewer={c.get("viewer")} endpoint={endpoint(c)} />),
  );
  app.get(
    "/-/sign-in",
    (c) =>
      signInForm(c, {
        publicUrl: options.publicUrl,
        failed: false,
        next: nextPage(c.req.query("next")),
      }),
  );
  app.post("/-/sign-in", (c) => signInAnswer(c, options));
  if (options.oauth) app.route("/", oauthRoutes(options.oauth, options));
  app.post("/-/sign-out", async (c) => {
    const form = await edge.readForm(c);
    const session = c.get("session");
    if (session === null || !sameToken(form.get("csrf"), session.csrf)) {
      throw new SourcegraphError("CSRF_TOKEN_INVALID", "the form expired; reload the page");
    }
    await sessions.remove(session.id);
    deleteCookie(c, SESSION_COOKIE, { path: PAGES_ROOT });
    return redirect(c, homeUrl(), 303);
  });
  return app;
}

// The sign-in form's answer: a session and the page it leads to, or the form again (401).
async function signInAnswer(c: Context<PageEnv>, options: SessionOptions): Promise<Response> {
  const { sessions, edge } = options;
  const form = await edge.readForm(c);
  const expected = getCookie(c, SIGN_IN_COOKIE);
  if (!expected || !sameToken(form.get("csrf"), expected)) {
    throw new SourcegraphError(
      "CSRF_TOKEN_INVALID",
      "the form expired; open the sign-in page again",
    );
  }
  const secret = form.get("secret") ?? "";
  const caller = secret.length > 0 && secret.length <= 512
    ? callerForSecret(secret, { serviceToken: options.serviceToken, store: options.store })
    : null;
  const next = nextPage(form.get("next") ?? undefined);
  if (caller === null || caller.kind === "anonymous") {
    return signInForm(c, { publicUrl: options.publicUrl, failed: true, next });
  }
  const previous = c.get("session");
  if (previous) await sessions.remove(previous.id);
  const session = await sessions.create(caller);
  deleteCookie(c, SIGN_IN_COOKIE, { path: PAGES_ROOT });
  setCookie(
    c,
    SESSION_COOKIE,
    session.id,
    cookieOptions(c, { maxAge: SESSION_SECONDS, publicUrl: options.publicUrl }),
  );
  return redirect(c, next ?? homeUrl(), 303);
}

// Where a sign-in may continue: only an authorization request of these pages
// (an OAuth client's), never an address a link could choose.
function nextPage(next: string | undefined): string | undefined {
  return next !== undefined && next.length <= 8_192 && next.startsWith(`${authorizeUrl()}?`)
    ? next
    : undefined;
}

// The sign-in form with a fresh CSRF token in its cookie (401 after a failed try).
function signInForm(
  c: Context<PageEnv>,
  options: { publicUrl?: string; failed: boolean; next?: string },
): Promise<Response> {
  const token = randomToken();
  setCookie(
    c,
    SIGN_IN_COOKIE,
    token,
    cookieOptions(c, { maxAge: SIGN_IN_FORM_SECONDS, publicUrl: options.publicUrl }),
  );
  return page(
    c,
    <SignInPage
      viewer={c.get("viewer")}
      csrf={token}
      failed={options.failed}
      next={options.next}
    />,
    options.failed ? 401 : 200,
  );
}

function cookieOptions(c: Context<PageEnv>, options: { maxAge: number; publicUrl?: string }) {
  const secure = options.publicUrl?.startsWith("https:") === true ||
    c.req.header("x-forwarded-proto") === "https";
  return {
    path: PAGES_ROOT,
    httpOnly: true,
    sameSite: "Strict" as const,
    secure,
    maxAge: options.maxAge,
  };
}
