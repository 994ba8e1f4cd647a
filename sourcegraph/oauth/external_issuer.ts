/**
 * An external authorization server (Keycloak, Entra ID, Auth0, ...) named by
 * its issuer URL and the URL of its JSON Web Key Set: the service accepts
 * the JWT access tokens it signs, verified with `jose`, instead of running
 * its own authorization server.
 *
 * A token is accepted only when its signature verifies with a key the
 * issuer publishes (the set is fetched from the configured URL only, never
 * from a URL a token names; at most 64 KiB, 5 s, no redirects; kept 10
 * minutes and fetched again at most every 30 s when a token names a key
 * not in it, so a rotated key is picked up), its algorithm is an asymmetric
 * one (RS, PS, ES, EdDSA: never `none` nor an HMAC keyed by a public key),
 * `iss` is the issuer, `aud` names the audience (the MCP URL, RFC 8707, or
 * the configured one), `exp` has not passed and `nbf` has (30 s leeway),
 * and `sub` names someone. Its rights come from the scope claim (`scope`
 * by default: a space-separated string or a list): `sourcegraph:admin`
 * gives the service's rights, `sourcegraph:read` a personal key's.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * import { looksLikeJwt } from "./external_issuer.ts";
 * assert.ok(looksLikeJwt("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln"));
 * assert.ok(!looksLikeJwt("sgk_personal_key"));
 * ```
 *
 * @module
 */

import {
  createRemoteJWKSet,
  customFetch,
  errors,
  type JWTPayload,
  jwtVerify,
  type JWTVerifyGetKey,
} from "jose";
import { SourcegraphError } from "../errors.ts";
import { ADMIN_SCOPE, READ_SCOPE, type TokenGrant } from "./oauth_server.ts";

/** The signature algorithms accepted: asymmetric ones only. */
export const JWT_ALGORITHMS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];
/** Leeway for `exp`, `nbf` and `iat` (seconds). */
export const CLOCK_TOLERANCE_SECONDS = 30;
/** Longest token looked at. */
export const MAX_JWT_LENGTH = 8 * 1024;
/** Largest key set read. */
export const MAX_JWKS_BYTES = 64 * 1024;
const JWKS_TIMEOUT_MS = 5_000;
const JWKS_COOLDOWN_MS = 30_000;
const JWKS_MAX_AGE_MS = 10 * 60_000;
const MAX_SUBJECT_LENGTH = 256;
const JWT_SHAPE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Where the external issuer is and how its tokens are read. */
export interface ExternalIssuerSettings {
  /** The issuer URL (`iss` of its tokens, named by the protected resource metadata). */
  issuer: string;
  /** The URL of its JSON Web Key Set. */
  jwksUrl: string;
  /** The `aud` tokens must name (default: the MCP URL the request reached). */
  audience?: string;
  /** The claim holding the scopes (default `scope`). */
  scopeClaim?: string;
}

/** Whether `token` has the shape of a signed JWT (a JWS in compact form). */
export function looksLikeJwt(token: string): boolean {
  return token.length <= MAX_JWT_LENGTH && JWT_SHAPE.test(token);
}

/** Verifies the access tokens of an external issuer. */
export class ExternalIssuer {
  readonly #settings: ExternalIssuerSettings;
  readonly #keys: JWTVerifyGetKey;
  readonly #log: (line: string) => void;

  /**
   * For `settings`; `fetch` fetches the key set (default the global one),
   * `cooldownMs` is the least time between two fetches of it, `timeoutMs`
   * the most one fetch may take (default 5 s).
   */
  constructor(
    settings: ExternalIssuerSettings,
    options: {
      fetch?: typeof fetch;
      cooldownMs?: number;
      timeoutMs?: number;
      log?: (line: string) => void;
    } = {},
  ) {
    this.#settings = settings;
    this.#log = options.log ?? (() => {});
    this.#keys = createRemoteJWKSet(new URL(settings.jwksUrl), {
      timeoutDuration: options.timeoutMs ?? JWKS_TIMEOUT_MS,
      cooldownDuration: options.cooldownMs ?? JWKS_COOLDOWN_MS,
      cacheMaxAge: JWKS_MAX_AGE_MS,
      [customFetch]: cappedFetch(options.fetch ?? fetch),
    });
  }

  /** The issuer URL. */
  get issuer(): string {
    return this.#settings.issuer;
  }

  /**
   * What `token` grants at `resource` (the MCP URL): INVALID_TOKEN when it
   * does not verify, INSUFFICIENT_SCOPE when it carries no scope of the
   * service, DEPENDENCY_UNAVAILABLE when the key set cannot be fetched.
   */
  async authenticate(token: string, options: { resource: string }): Promise<TokenGrant> {
    if (!looksLikeJwt(token)) {
      throw new SourcegraphError("INVALID_TOKEN", "the access token is not a signed JWT");
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.#keys, {
        issuer: this.#settings.issuer,
        audience: this.#settings.audience ?? options.resource,
        algorithms: [...JWT_ALGORITHMS],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ["exp", "sub"],
      }));
    } catch (error) {
      throw this.#refusal(error, options.resource);
    }
    return grantOf(payload, this.#settings.scopeClaim ?? "scope");
  }

  // The error a failed verification is answered with.
  #refusal(error: unknown, resource: string): SourcegraphError {
    const invalid = (why: string) => new SourcegraphError("INVALID_TOKEN", why);
    if (error instanceof errors.JWTExpired) return invalid("the access token expired; refresh it");
    if (error instanceof errors.JWTClaimValidationFailed) {
      if (error.claim === "aud") {
        const audience = this.#settings.audience ?? resource;
        return invalid(`the access token was issued for another audience, not ${audience}`);
      }
      if (error.claim === "iss") return invalid("the access token is from another issuer");
      return invalid(`the access token's ${error.claim} claim is not valid`);
    }
    if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
      return invalid("the access token's algorithm is not accepted");
    }
    if (
      error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys
    ) {
      return invalid("the access token is signed by a key the issuer does not publish");
    }
    if (error instanceof errors.JWSSignatureVerificationFailed) {
      return invalid("the access token's signature does not verify");
    }
    if (
      error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid ||
      error instanceof KeySetUnavailable || error instanceof TypeError ||
      (error instanceof errors.JOSEError && error.code === "ERR_JOSE_GENERIC")
    ) {
      this.#log(`the issuer's key set could not be fetched: ${String(error).slice(0, 200)}`);
      return new SourcegraphError(
        "DEPENDENCY_UNAVAILABLE",
        "the authorization server's keys could not be fetched; try again",
      );
    }
    return invalid("the access token is not valid");
  }
}

// The caller and scopes a verified payload stands for.
function grantOf(payload: JWTPayload, scopeClaim: string): TokenGrant {
  const subject = payload.sub;
  if (typeof subject !== "string" || subject === "" || subject.length > MAX_SUBJECT_LENGTH) {
    throw new SourcegraphError("INVALID_TOKEN", "the access token's sub claim is not valid");
  }
  const claim = payload[scopeClaim];
  const named = typeof claim === "string"
    ? claim.split(" ")
    : Array.isArray(claim)
    ? claim.filter((item): item is string => typeof item === "string")
    : [];
  const scopes = [READ_SCOPE, ADMIN_SCOPE].filter((scope) => named.includes(scope));
  if (scopes.length === 0) {
    throw new SourcegraphError(
      "INSUFFICIENT_SCOPE",
      `the access token carries neither ${READ_SCOPE} nor ${ADMIN_SCOPE} in its ${scopeClaim} claim`,
    );
  }
  const clientId = typeof payload.azp === "string"
    ? payload.azp
    : typeof payload.client_id === "string"
    ? payload.client_id
    : "";
  return {
    identity: scopes.includes(ADMIN_SCOPE)
      ? { kind: "service" }
      : { kind: "key", id: `oauth:${subject}` },
    scopes,
    clientId: clientId.slice(0, 200),
  };
}

/** The key set could not be read within its bounds. */
class KeySetUnavailable extends Error {}

// A fetch of the key set that follows no redirect and reads at most MAX_JWKS_BYTES.
function cappedFetch(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, { ...init, redirect: "manual" });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new KeySetUnavailable(`the key set answered ${response.status}`);
    }
    const declared = Number(response.headers.get("content-length") ?? "0");
    if (declared > MAX_JWKS_BYTES) {
      await response.body?.cancel();
      throw new KeySetUnavailable(`the key set is larger than ${MAX_JWKS_BYTES} bytes`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = response.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      size += read.value.length;
      if (size > MAX_JWKS_BYTES) {
        await reader.cancel();
        throw new KeySetUnavailable(`the key set is larger than ${MAX_JWKS_BYTES} bytes`);
      }
      chunks.push(read.value);
    }
    return new Response(new Blob(chunks as BlobPart[]), { status: 200 });
  };
}
