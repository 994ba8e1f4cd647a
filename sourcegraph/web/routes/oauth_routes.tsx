/**
 * The authorization endpoint (`/sourcegraph/-/oauth/authorize`): the
 * person signs in with the existing sign-in page (which comes back here),
 * sees the consent page and approves or denies. The decision is a form
 * with the session's CSRF token; the request is checked again when it
 * arrives. A request whose client or redirect URI is unknown is shown as
 * an error and never redirected (no open redirect); other refusals go back
 * to the client's registered redirect URI with `error` and `state`.
 *
 * @module
 */

import { Hono } from "hono";
import type { Context } from "hono";
import { SourcegraphError } from "../../errors.ts";
import {
  AuthorizationRefused,
  type AuthorizationRequest,
  type CheckedAuthorization,
  type OAuthServer,
} from "../../oauth/oauth_server.ts";
import type { GrantIdentity } from "../../store/oauth_records.ts";
import type { PageEdge } from "../../http/edge_env.ts";
import { authorizeUrl, mcpUrl, PAGES_ROOT, siteUrl } from "../../render/page_urls.ts";
import { ConsentPage } from "../consent_page.tsx";
import { page, type PageEnv, redirect } from "../page_responses.tsx";
import { sameToken } from "../sessions.ts";

const PARAMETERS = [
  "client_id",
  "redirect_uri",
  "response_type",
  "code_challenge",
  "code_challenge_method",
  "scope",
  "resource",
  "state",
] as const;
const MAX_PARAMETER_LENGTH = 2_048;
// The consent path below the pages' root (the sub-app is mounted there).
const AUTHORIZE_PATH = authorizeUrl().slice(PAGES_ROOT.length);

/** The authorization endpoint's routes, to mount at the pages' root. */
export function oauthRoutes(
  oauth: OAuthServer,
  options: { edge: PageEdge; publicUrl?: string },
): Hono<PageEnv> {
  const app = new Hono<PageEnv>();
  const resource = (c: Context<PageEnv>) =>
    `${options.publicUrl?.replace(/\/+$/, "") ?? `http://${c.req.header("host")}`}${mcpUrl()}`;
  app.get(AUTHORIZE_PATH, async (c) => {
    const url = new URL(c.req.url);
    const fields = parameters(url.searchParams);
    const checked = await checkOrRefuse(c, { oauth, fields, resource: resource(c) });
    if (checked instanceof Response) return checked;
    const session = c.get("session");
    if (session === null) {
      // Back here after the sign-in; the sign-in page accepts only this path as `next`.
      const next = `${authorizeUrl()}?${new URLSearchParams(fields)}`;
      return redirect(c, `${siteUrl("sign-in")}?${new URLSearchParams({ next })}`, 303);
    }
    return consentPage(c, { checked, granted: oauth.grantable(checked, session.caller), fields });
  });
  app.post(AUTHORIZE_PATH, async (c) => {
    const form = await options.edge.readForm(c);
    const session = c.get("session");
    if (session === null || !sameToken(form.get("csrf"), session.csrf)) {
      throw new SourcegraphError(
        "CSRF_TOKEN_INVALID",
        "the form expired; start the authorization from the client again",
      );
    }
    const fields = parameters(form);
    const checked = await checkOrRefuse(c, { oauth, fields, resource: resource(c) });
    if (checked instanceof Response) return checked;
    const back = new URL(checked.redirectUri);
    if (form.get("decision") !== "approve") {
      return toClient(c, back, { error: "access_denied", state: checked.state });
    }
    let code: string;
    try {
      code = await oauth.issueCode(checked, session.caller as GrantIdentity);
    } catch (error) {
      if (!(error instanceof SourcegraphError)) throw error;
      return toClient(c, back, { error: error.code.toLowerCase(), state: checked.state });
    }
    return toClient(c, back, { code, state: checked.state, iss: issuer(c, options.publicUrl) });
  });
  return app;
}

// The consent page, under a policy that lets its form lead to the client's redirect URI.
function consentPage(
  c: Context<PageEnv>,
  at: { checked: CheckedAuthorization; granted: string[]; fields: Record<string, string> },
): Promise<Response> {
  const { checked, granted } = at;
  c.header("Content-Security-Policy", consentPolicy(checked.redirectUri));
  return page(
    c,
    <ConsentPage
      viewer={c.get("viewer")}
      clientName={checked.client.clientName}
      clientId={checked.client.clientId}
      returnsTo={returnsTo(checked.redirectUri)}
      resource={checked.resource}
      granted={granted}
      withheld={checked.scopes.filter((scope) => !granted.includes(scope))}
      fields={at.fields}
    />,
  );
}

// The checked request, or the answer that refuses it at the client's redirect URI.
async function checkOrRefuse(
  c: Context<PageEnv>,
  at: { oauth: OAuthServer; fields: Record<string, string>; resource: string },
): Promise<Awaited<ReturnType<OAuthServer["checkAuthorization"]>> | Response> {
  const { fields } = at;
  const request: AuthorizationRequest = {
    clientId: fields.client_id,
    redirectUri: fields.redirect_uri,
    responseType: fields.response_type,
    codeChallenge: fields.code_challenge,
    codeChallengeMethod: fields.code_challenge_method,
    scope: fields.scope,
    resource: fields.resource,
    state: fields.state,
  };
  try {
    return await at.oauth.checkAuthorization(request, { resource: at.resource });
  } catch (error) {
    if (!(error instanceof AuthorizationRefused)) throw error;
    return toClient(c, new URL(error.redirectUri), {
      error: error.code.toLowerCase(),
      state: error.state,
    });
  }
}

// The authorization parameters (each at most once, of a bounded length).
function parameters(source: URLSearchParams): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of PARAMETERS) {
    const values = source.getAll(name);
    if (values.length > 1 || (values[0]?.length ?? 0) > MAX_PARAMETER_LENGTH) {
      throw new SourcegraphError(
        "INVALID_REQUEST",
        `the parameter ${name} is repeated or too long`,
      );
    }
    if (values.length === 1) fields[name] = values[0];
  }
  return fields;
}

// A 303 to the client's registered redirect URI with the answer's parameters.
function toClient(
  c: Context<PageEnv>,
  back: URL,
  answer: Record<string, string | undefined>,
): Response {
  for (const [name, value] of Object.entries(answer)) {
    if (value !== undefined) back.searchParams.set(name, value);
  }
  c.header("Cache-Control", "no-store");
  return c.redirect(back.href, 303);
}

function issuer(c: Context<PageEnv>, publicUrl: string | undefined): string {
  return publicUrl?.replace(/\/+$/, "") ?? `http://${c.req.header("host")}`;
}

// What the consent page says the answer goes to: the origin, or the scheme of an app.
function returnsTo(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin === "null" ? url.protocol : url.origin;
}

// The pages' policy, with the client's redirect URI among the form's targets:
// a browser checks the redirect that answers the form against form-action.
function consentPolicy(redirectUri: string): string {
  const url = new URL(redirectUri);
  const target = url.origin === "null" ? url.protocol : url.origin;
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    `form-action 'self' ${target}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}
