/**
 * The addresses the OAuth metadata names and the challenges 401 and 403
 * answers carry. Every address starts at the public URL when one is set
 * (`SOURCEGRAPH_PUBLIC_URL`), else at `http://` and the request's Host
 * header, which `middleware/host_origin.ts` has already checked (never the
 * request target, which may name any origin).
 *
 * @module
 */

import type { Context } from "hono";
import { ADMIN_SCOPE, READ_SCOPE } from "../oauth/oauth_server.ts";

/** The path of the MCP endpoint. */
export const MCP_PATH = "/sourcegraph/mcp";

/** Where the service's addresses start: the public URL, or the request's origin. */
export function publicBase(c: Context, publicUrl: string | undefined): string {
  return publicUrl?.replace(/\/+$/, "") ?? `http://${c.req.header("host")}`;
}

/**
 * The path of the public URL (`/code` of `https://host/code`; "" without
 * one): well-known metadata sit at the origin's root, followed by it.
 */
export function publicPath(publicUrl: string | undefined): string {
  return publicUrl === undefined ? "" : new URL(publicUrl).pathname.replace(/\/+$/, "");
}

/** Where the MCP endpoint's protected resource metadata are (RFC 9728: at the origin's root). */
export function resourceMetadataUrl(c: Context, publicUrl: string | undefined): string {
  const origin = publicUrl === undefined
    ? `http://${c.req.header("host")}`
    : new URL(publicUrl).origin;
  return `${origin}/.well-known/oauth-protected-resource${publicPath(publicUrl)}${MCP_PATH}`;
}

/** The MCP URL, the resource every access token is bound to. */
export function mcpResource(c: Context, publicUrl: string | undefined): string {
  return `${publicBase(c, publicUrl)}${MCP_PATH}`;
}

/**
 * The `WWW-Authenticate` value of an answer with error `code`, or null:
 * where to find the metadata, and what went wrong (RFC 6750, RFC 9728).
 * An `insufficient_scope` names the admin scope, or the read scope for a
 * token that carries neither (`scopes` empty).
 */
export function bearerChallenge(
  c: Context,
  options: {
    code: string;
    publicUrl?: string;
    presented: boolean;
    scopes?: readonly string[] | null;
  },
): string | null {
  const metadata = `resource_metadata="${resourceMetadataUrl(c, options.publicUrl)}"`;
  switch (options.code) {
    case "AUTHENTICATION_REQUIRED":
      return options.presented ? `Bearer error="invalid_token", ${metadata}` : `Bearer ${metadata}`;
    case "INVALID_TOKEN":
      return `Bearer error="invalid_token", ${metadata}`;
    case "INSUFFICIENT_SCOPE":
      return `Bearer error="insufficient_scope", scope="${
        options.scopes?.length === 0 ? READ_SCOPE : ADMIN_SCOPE
      }", ${metadata}`;
    default:
      return null;
  }
}
