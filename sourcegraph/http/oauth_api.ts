/**
 * The OAuth wire of the service: the protected resource metadata of the MCP
 * endpoint (RFC 9728), the authorization server's metadata (RFC 8414),
 * dynamic client registration (RFC 7591), the token endpoint (authorization
 * code with PKCE, refresh) and revocation (RFC 7009). The rules live in
 * `oauth/oauth_server.ts`; this maps them to HTTP. Errors are answered as
 * OAuth errors (`{"error","error_description"}`), token answers are never
 * cached, and a token or code never appears in a URL or a log line.
 *
 * The authorization endpoint is a page (`web/routes/oauth_routes.tsx`): it
 * needs the signed-in person and their consent.
 *
 * With an external issuer (`SOURCEGRAPH_OAUTH_ISSUER`) only the protected
 * resource metadata are served, naming that issuer; the embedded server's
 * metadata and endpoints are not found (404).
 *
 * @module
 */

import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { SourcegraphError } from "../errors.ts";
import { internalError } from "../internal_error.ts";
import type { ClientRegistration } from "../oauth/oauth_clients.ts";
import { type OAuthServer, SCOPES, type TokenSet } from "../oauth/oauth_server.ts";
import { authorizeUrl } from "../render/page_urls.ts";
import type { EdgeEnv } from "./edge_env.ts";
import { MCP_PATH, mcpResource, publicBase, publicPath } from "./oauth_urls.ts";
import { readBody } from "./request_body.ts";
import { httpStatus } from "./status_codes.ts";

/** Where the OAuth endpoints are. */
export const OAUTH_ROOT = "/sourcegraph/oauth";
const BODY_BYTES = 16 * 1024;
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

/**
 * The OAuth sub-app, mounted at the site's root: the embedded server's
 * (`oauth`), or with `oauth` null only the resource's metadata naming
 * `issuer`, the external authorization server.
 */
export function oauthApp(
  oauth: OAuthServer | null,
  options: { publicUrl?: string; log: (line: string) => void; issuer?: string },
): Hono<EdgeEnv> {
  const app = new Hono<EdgeEnv>();
  app.onError((error, c) => oauthError(c, error, options.log));
  resourceMetadataRoutes(app, options);
  if (oauth === null) return app;
  serverMetadataRoutes(app, { ...options, clientDocuments: oauth.clientDocuments });
  app.post(`${OAUTH_ROOT}/register`, async (c) => {
    const client = await oauth.register(registrationOf(await readJson(c)));
    return c.json(
      {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(client.createdAt / 1000),
        client_name: client.clientName,
        redirect_uris: client.redirectUris,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
      201,
      NO_STORE,
    );
  });
  tokenRoutes(app, oauth);
  return app;
}

// The protected resource's metadata: its authorization server is this service or `issuer`.
function resourceMetadataRoutes(
  app: Hono<EdgeEnv>,
  options: { publicUrl?: string; issuer?: string },
): void {
  const resourceMetadata = (c: Context<EdgeEnv>) =>
    c.json({
      resource: mcpResource(c, options.publicUrl),
      authorization_servers: [options.issuer ?? publicBase(c, options.publicUrl)],
      scopes_supported: SCOPES,
      bearer_methods_supported: ["header"],
      resource_name: "Sourcegraph",
    });
  // The root and path forms; behind a proxy at a path, the forms with that path too.
  const prefix = publicPath(options.publicUrl);
  for (const path of new Set(["", prefix])) {
    app.get(`/.well-known/oauth-protected-resource${path}`, resourceMetadata);
    app.get(`/.well-known/oauth-protected-resource${path}${MCP_PATH}`, resourceMetadata);
  }
}

// The embedded authorization server's metadata.
function serverMetadataRoutes(
  app: Hono<EdgeEnv>,
  options: { publicUrl?: string; clientDocuments: boolean },
): void {
  const prefix = publicPath(options.publicUrl);
  const serverMetadata = (c: Context<EdgeEnv>) => {
    const base = publicBase(c, options.publicUrl);
    return c.json({
      issuer: base,
      authorization_endpoint: `${base}${authorizeUrl()}`,
      token_endpoint: `${base}${OAUTH_ROOT}/token`,
      registration_endpoint: `${base}${OAUTH_ROOT}/register`,
      revocation_endpoint: `${base}${OAUTH_ROOT}/revoke`,
      scopes_supported: SCOPES,
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: options.clientDocuments,
    });
  };
  for (const path of new Set(["", prefix])) {
    app.get(`/.well-known/oauth-authorization-server${path}`, serverMetadata);
  }
}

// The token endpoint (a code or a refresh token for tokens) and revocation.
function tokenRoutes(app: Hono<EdgeEnv>, oauth: OAuthServer): void {
  app.post(`${OAUTH_ROOT}/token`, async (c) => {
    const form = await readForm(c);
    const field = (name: string) => form.get(name) ?? undefined;
    const grantType = field("grant_type");
    let tokens: TokenSet;
    if (grantType === "authorization_code") {
      tokens = await oauth.exchangeCode({
        code: field("code") ?? "",
        clientId: field("client_id"),
        redirectUri: field("redirect_uri"),
        codeVerifier: field("code_verifier"),
        resource: field("resource"),
      });
    } else if (grantType === "refresh_token") {
      tokens = await oauth.refresh({
        refreshToken: field("refresh_token") ?? "",
        clientId: field("client_id"),
        scope: field("scope"),
        resource: field("resource"),
      });
    } else {
      throw new SourcegraphError(
        "UNSUPPORTED_GRANT_TYPE",
        "grant_type must be authorization_code or refresh_token",
      );
    }
    return c.json(
      {
        access_token: tokens.accessToken,
        token_type: "Bearer",
        expires_in: tokens.expiresInSeconds,
        refresh_token: tokens.refreshToken,
        scope: tokens.scopes.join(" "),
      },
      200,
      NO_STORE,
    );
  });
  app.post(`${OAUTH_ROOT}/revoke`, async (c) => {
    const form = await readForm(c);
    await oauth.revoke(form.get("token") ?? "", { clientId: form.get("client_id") ?? undefined });
    return c.body(null, 200, NO_STORE);
  });
}

// RFC 7591's snake_case fields, as the domain's registration.
function registrationOf(body: unknown): ClientRegistration {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new SourcegraphError("INVALID_CLIENT_METADATA", "the body must be a JSON object");
  }
  const fields = body as Record<string, unknown>;
  const strings = (name: string): string[] | undefined => {
    const value = fields[name];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
      throw new SourcegraphError("INVALID_CLIENT_METADATA", `${name} must be a list of strings`);
    }
    return value as string[];
  };
  const text = (name: string): string | undefined => {
    const value = fields[name];
    if (value !== undefined && typeof value !== "string") {
      throw new SourcegraphError("INVALID_CLIENT_METADATA", `${name} must be a string`);
    }
    return value;
  };
  return {
    clientName: text("client_name"),
    redirectUris: strings("redirect_uris") ?? [],
    grantTypes: strings("grant_types"),
    responseTypes: strings("response_types"),
    tokenEndpointAuthMethod: text("token_endpoint_auth_method"),
  };
}

async function readJson(c: Context<EdgeEnv>): Promise<unknown> {
  const text = new TextDecoder().decode(await readBody(c.req.raw, c.var.bodyLimits(BODY_BYTES)));
  try {
    return JSON.parse(text);
  } catch {
    throw new SourcegraphError("INVALID_CLIENT_METADATA", "the body is not JSON");
  }
}

async function readForm(c: Context<EdgeEnv>): Promise<URLSearchParams> {
  const type = c.req.header("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    throw new SourcegraphError(
      "INVALID_REQUEST",
      "send the parameters as application/x-www-form-urlencoded",
    );
  }
  const bytes = await readBody(c.req.raw, c.var.bodyLimits(BODY_BYTES));
  const form = new URLSearchParams(new TextDecoder().decode(bytes));
  for (const name of new Set(form.keys())) {
    if (form.getAll(name).length > 1) {
      throw new SourcegraphError("INVALID_REQUEST", `the parameter ${name} is repeated`);
    }
  }
  return form;
}

// An OAuth error answer; an unexpected failure is logged once and answered as a server error.
function oauthError(c: Context<EdgeEnv>, error: Error, log: (line: string) => void): Response {
  const requestId = c.var.requestId ?? crypto.randomUUID();
  const known = internalError(error, { requestId, log });
  const code = known.code === "INTERNAL_ERROR"
    ? "server_error"
    : known.code === "REQUEST_TOO_LARGE" || known.code === "REQUEST_TIMEOUT"
    ? "invalid_request"
    : known.code.toLowerCase();
  const status = known.code === "RATE_LIMITED" ? 429 : httpStatus(known.code);
  return c.json(
    { error: code, error_description: known.message },
    status as ContentfulStatusCode,
    { ...NO_STORE, "x-request-id": requestId },
  );
}
