/**
 * OAuth clients: what a dynamic registration may say, and the redirect URIs
 * a client may name. A redirect URI is an absolute https URL, an http URL
 * of a loopback address (a native client's local listener), or a
 * private-use scheme (reverse domain name, as native apps register); never
 * a fragment, credentials or a script scheme. Authorization requests match
 * them exactly, character for character.
 *
 * @module
 */

import { SourcegraphError } from "../errors.ts";

/** What a client asks to be registered with (RFC 7591, as a domain value). */
export interface ClientRegistration {
  clientName?: string;
  redirectUris: string[];
  /** Grant types it will use; only `authorization_code` and `refresh_token` are offered. */
  grantTypes?: string[];
  /** Response types; only `code`. */
  responseTypes?: string[];
  /** How it authenticates at the token endpoint; only `none` (a public client with PKCE). */
  tokenEndpointAuthMethod?: string;
}

/** Most redirect URIs a client registers. */
export const MAX_REDIRECT_URIS = 10;
/** Longest redirect URI. */
export const MAX_REDIRECT_URI_LENGTH = 2_000;
/** Longest client name shown on the consent page. */
export const MAX_CLIENT_NAME_LENGTH = 200;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
// A private-use scheme is a reverse domain name: at least one dot.
const PRIVATE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

/** Checks a registration; throws INVALID_CLIENT_METADATA or INVALID_REDIRECT_URI with the reason. */
export function checkRegistration(registration: ClientRegistration): Required<
  Pick<ClientRegistration, "clientName" | "redirectUris">
> {
  const uris = registration.redirectUris;
  if (uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    throw new SourcegraphError(
      "INVALID_REDIRECT_URI",
      `register between 1 and ${MAX_REDIRECT_URIS} redirect_uris`,
    );
  }
  for (const uri of uris) checkRedirectUri(uri);
  const unsupported = (values: string[] | undefined, allowed: string[]) =>
    (values ?? []).some((value) => !allowed.includes(value));
  if (unsupported(registration.grantTypes, ["authorization_code", "refresh_token"])) {
    throw new SourcegraphError(
      "INVALID_CLIENT_METADATA",
      "grant_types may name only authorization_code and refresh_token",
    );
  }
  if (unsupported(registration.responseTypes, ["code"])) {
    throw new SourcegraphError("INVALID_CLIENT_METADATA", "response_types may name only code");
  }
  const name = (registration.clientName ?? "").trim();
  const control = [...name].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
  if (name.length > MAX_CLIENT_NAME_LENGTH || control) {
    throw new SourcegraphError(
      "INVALID_CLIENT_METADATA",
      `client_name must be at most ${MAX_CLIENT_NAME_LENGTH} printable characters`,
    );
  }
  return { clientName: name, redirectUris: [...uris] };
}

/** Throws INVALID_REDIRECT_URI unless `uri` may receive codes. */
export function checkRedirectUri(uri: string): void {
  const refuse = (why: string): never => {
    throw new SourcegraphError("INVALID_REDIRECT_URI", `redirect URI refused: ${why}`);
  };
  if (uri.length > MAX_REDIRECT_URI_LENGTH) refuse("too long");
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return refuse("not an absolute URL");
  }
  if (uri.includes("#")) refuse("it has a fragment");
  if (url.username !== "" || url.password !== "") refuse("it carries credentials");
  if (url.protocol === "https:") return;
  if (url.protocol === "http:") {
    if (!LOOPBACK_HOSTS.has(url.hostname)) refuse("http only for a loopback address");
    return;
  }
  if (!PRIVATE_SCHEME.test(url.protocol)) {
    refuse("use https, http on a loopback address, or a reverse-domain private-use scheme");
  }
}
