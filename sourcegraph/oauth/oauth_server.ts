/**
 * The embedded authorization server's rules: clients registered
 * dynamically, authorization codes with PKCE (S256 only), opaque access
 * tokens bound to one resource (the MCP URL) and to the identity signed in
 * on the consent page, refresh tokens rotated at every use (a second use of
 * a rotated one ends the whole family), and revocation. Codes and tokens
 * are random, handed out once and stored only as their SHA-256
 * (`store/oauth_records.ts`), so state is shared by every replica.
 *
 * The rights of a grant are the signed-in identity's, narrowed to the
 * scopes asked for: the service token may grant `sourcegraph:read` and
 * `sourcegraph:admin`, a personal key only `sourcegraph:read`.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { SourcegraphError } from "../errors.ts";
import type { ControlStore } from "../store/control_store.ts";
import type {
  GrantIdentity,
  OAuthClientRecord,
  OAuthGrant,
  OAuthStore,
  OAuthTokenRecord,
} from "../store/oauth_records.ts";
import { type ClientDocuments, isDocumentClientId } from "./client_documents.ts";
import { checkRegistration, type ClientRegistration } from "./oauth_clients.ts";

/** Reading repositories (every tool but the operator's). */
export const READ_SCOPE = "sourcegraph:read";
/** The operator's tools and API (the service token's rights). */
export const ADMIN_SCOPE = "sourcegraph:admin";
/** Every scope the server grants. */
export const SCOPES: readonly string[] = [READ_SCOPE, ADMIN_SCOPE];

/** Lifetimes (milliseconds). */
export const CODE_TTL_MS = 60_000;
/** An access token lasts an hour; its client refreshes it. */
export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
/** A refresh token lasts 30 days from its issue (each use issues a new one). */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * Most tokens kept per grant (the newest by issue): a rotated refresh token
 * older than that is forgotten rather than kept to recognise its reuse.
 */
export const TOKENS_PER_GRANT = 64;
/** Most registered clients kept (the oldest registrations go first). */
export const MAX_CLIENTS = 10_000;

/** Prefix of access tokens (told apart from personal keys and the service token). */
export const ACCESS_TOKEN_PREFIX = "sgo_";
const REFRESH_TOKEN_PREFIX = "sgr_";

/** An authorization request, as the authorization endpoint received it. */
export interface AuthorizationRequest {
  clientId?: string;
  redirectUri?: string;
  responseType?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  scope?: string;
  resource?: string;
  state?: string;
}

/** A checked authorization request: the client, where its answer goes, and what it asks. */
export interface CheckedAuthorization {
  client: OAuthClientRecord;
  redirectUri: string;
  codeChallenge: string;
  scopes: string[];
  resource: string;
  state?: string;
}

/** The tokens of a grant, as the token endpoint answers them. */
export interface TokenSet {
  accessToken: string;
  refreshToken: string;
  expiresInSeconds: number;
  scopes: string[];
}

/** What an access token stands for. */
export interface TokenGrant {
  identity: GrantIdentity;
  scopes: string[];
  clientId: string;
}

/**
 * An authorization request that cannot go back to its client (unknown
 * client, unregistered redirect URI): shown to the person, never
 * redirected, so a forged request cannot send anyone elsewhere.
 */
export class UnsafeAuthorizationRequest extends SourcegraphError {}

/**
 * An authorization request refused after its client and redirect URI were
 * checked: the client is told at its redirect URI (`error`, `state`).
 */
export class AuthorizationRefused extends SourcegraphError {
  /** Where the refusal goes. */
  readonly redirectUri: string;
  /** The client's state, sent back. */
  readonly state?: string;

  /** `cause`'s code and message, for the client at `redirectUri`. */
  constructor(cause: SourcegraphError, options: { redirectUri: string; state?: string }) {
    super(cause.code, cause.message);
    this.redirectUri = options.redirectUri;
    this.state = options.state;
  }
}

// What an authorization request must say once its client is known.
function checkRequestShape(request: AuthorizationRequest, options: { resource: string }): void {
  if (request.responseType !== "code") {
    throw new SourcegraphError("UNSUPPORTED_RESPONSE_TYPE", "response_type must be code");
  }
  if (request.codeChallengeMethod !== "S256" || !PKCE_CHALLENGE.test(request.codeChallenge ?? "")) {
    throw new SourcegraphError(
      "INVALID_REQUEST",
      "a PKCE code_challenge with code_challenge_method S256 is required",
    );
  }
  if (request.resource !== undefined && request.resource !== options.resource) {
    throw new SourcegraphError("INVALID_TARGET", `the resource must be ${options.resource}`);
  }
}

/** The authorization server over its store. */
export class OAuthServer {
  #store: OAuthStore;
  #now: () => number;
  #valid: (identity: GrantIdentity) => boolean;
  #documents: ClientDocuments | null;

  /**
   * Over `store`; `valid` says whether an identity still exists (a revoked
   * key does not); `documents`, when given, serves clients named by the URL
   * of their metadata document.
   */
  constructor(
    store: OAuthStore,
    options: {
      valid: (identity: GrantIdentity) => boolean;
      now?: () => number;
      documents?: ClientDocuments;
    },
  ) {
    this.#store = store;
    this.#valid = options.valid;
    this.#now = options.now ?? Date.now;
    this.#documents = options.documents ?? null;
  }

  /** Whether clients may be named by the URL of their metadata document. */
  get clientDocuments(): boolean {
    return this.#documents !== null;
  }

  /** Registers a public client (RFC 7591). */
  async register(registration: ClientRegistration): Promise<OAuthClientRecord> {
    const checked = checkRegistration(registration);
    const client: OAuthClientRecord = {
      clientId: `sgc_${randomSecret()}`,
      clientName: checked.clientName,
      redirectUris: checked.redirectUris,
      createdAt: this.#now(),
    };
    await this.#store.saveClient(client, { max: MAX_CLIENTS });
    return client;
  }

  /**
   * Checks an authorization request for `resource` (the MCP URL). An unknown
   * client or redirect URI throws {@linkcode UnsafeAuthorizationRequest};
   * the rest throw an error the client is told of at its redirect URI.
   */
  async checkAuthorization(
    request: AuthorizationRequest,
    options: { resource: string },
  ): Promise<CheckedAuthorization> {
    const client = await this.#client(request.clientId);
    if (client === null) {
      throw new UnsafeAuthorizationRequest("INVALID_CLIENT", "no such client; register it again");
    }
    const redirectUri = request.redirectUri ??
      (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    if (redirectUri === undefined || !client.redirectUris.includes(redirectUri)) {
      throw new UnsafeAuthorizationRequest(
        "INVALID_REDIRECT_URI",
        "the redirect URI is not one the client registered",
      );
    }
    try {
      checkRequestShape(request, options);
    } catch (error) {
      if (!(error instanceof SourcegraphError)) throw error;
      throw new AuthorizationRefused(error, { redirectUri, state: request.state });
    }
    let scopes: string[];
    try {
      scopes = requestedScopes(request.scope);
    } catch (error) {
      throw new AuthorizationRefused(error as SourcegraphError, {
        redirectUri,
        state: request.state,
      });
    }
    return {
      client,
      redirectUri,
      codeChallenge: request.codeChallenge!,
      scopes,
      resource: options.resource,
      state: request.state,
    };
  }

  /** The scopes `identity` may grant of those `checked` asks for (empty: none). */
  grantable(checked: CheckedAuthorization, identity: GrantIdentity): string[] {
    const rights = identity.kind === "service" ? SCOPES : [READ_SCOPE];
    return checked.scopes.filter((scope) => rights.includes(scope));
  }

  /** Issues a code for `checked`, approved by `identity` (ACCESS_DENIED when it may grant nothing). */
  async issueCode(checked: CheckedAuthorization, identity: GrantIdentity): Promise<string> {
    const scopes = this.grantable(checked, identity);
    if (scopes.length === 0) {
      throw new SourcegraphError(
        "ACCESS_DENIED",
        "this sign-in may grant none of the scopes asked",
      );
    }
    const code = randomSecret();
    const grant: OAuthGrant = {
      clientId: checked.client.clientId,
      identity,
      scopes,
      resource: checked.resource,
      redirectUri: checked.redirectUri,
      codeChallenge: checked.codeChallenge,
    };
    await this.#store.saveCode(
      {
        hash: secretHash(code),
        grant,
        familyId: randomSecret(),
        expiresAt: this.#now() + CODE_TTL_MS,
        used: false,
      },
      { now: this.#now() },
    );
    return code;
  }

  /**
   * Exchanges a code for tokens. A code works once: a second exchange
   * ends every token the first one issued (the code was stolen).
   */
  async exchangeCode(
    request: {
      code: string;
      clientId?: string;
      redirectUri?: string;
      codeVerifier?: string;
      resource?: string;
    },
  ): Promise<TokenSet> {
    const taken = request.code.length > 200
      ? null
      : await this.#store.takeCode(secretHash(request.code));
    const invalid = (why: string) => new SourcegraphError("INVALID_GRANT", why);
    if (taken === null) throw invalid("the code is not valid");
    const { code, first } = taken;
    if (!first) {
      await this.#store.revokeFamily(code.familyId);
      throw invalid("the code was already used; its tokens are revoked");
    }
    const grant = code.grant;
    if (code.expiresAt <= this.#now()) throw invalid("the code expired; authorize again");
    if (request.clientId !== grant.clientId) throw invalid("the code was issued to another client");
    if (request.redirectUri !== grant.redirectUri) {
      throw invalid("redirect_uri differs from the authorization request's");
    }
    if (!pkceMatches(request.codeVerifier, grant.codeChallenge!)) {
      throw invalid("the code_verifier does not match the code_challenge");
    }
    if (request.resource !== undefined && request.resource !== grant.resource) {
      throw new SourcegraphError("INVALID_TARGET", "the resource differs from the authorization's");
    }
    if (!this.#valid(grant.identity)) throw invalid("the signed-in key was revoked");
    const { redirectUri: _r, codeChallenge: _c, ...tokenGrant } = grant;
    return await this.#issueTokens(tokenGrant, code.familyId);
  }

  /** Rotates a refresh token: the old one is used up; a second use of it ends its family. */
  async refresh(
    request: { refreshToken: string; clientId?: string; scope?: string; resource?: string },
  ): Promise<TokenSet> {
    const invalid = (why: string) => new SourcegraphError("INVALID_GRANT", why);
    const token = await this.#lookup(request.refreshToken);
    if (token === null || token.kind !== "refresh") throw invalid("the refresh token is not valid");
    if (token.grant.clientId !== request.clientId) {
      throw invalid("the refresh token was issued to another client");
    }
    if (!(await this.#store.useToken(token.hash))) {
      await this.#store.revokeFamily(token.familyId);
      throw invalid("the refresh token was already used; its tokens are revoked");
    }
    if (token.expiresAt <= this.#now()) throw invalid("the refresh token expired; authorize again");
    if (!this.#valid(token.grant.identity)) throw invalid("the signed-in key was revoked");
    if (request.resource !== undefined && request.resource !== token.grant.resource) {
      throw new SourcegraphError("INVALID_TARGET", "the resource differs from the grant's");
    }
    let scopes = token.grant.scopes;
    if (request.scope !== undefined) {
      scopes = requestedScopes(request.scope);
      if (scopes.some((scope) => !token.grant.scopes.includes(scope))) {
        throw new SourcegraphError("INVALID_SCOPE", "a refresh may only narrow the scopes");
      }
    }
    return await this.#issueTokens({ ...token.grant, scopes }, token.familyId);
  }

  /** Revokes a token and every token of its family (RFC 7009: unknown tokens are no error). */
  async revoke(token: string, options: { clientId?: string } = {}): Promise<void> {
    const found = await this.#lookup(token);
    if (found === null) return;
    if (options.clientId !== undefined && options.clientId !== found.grant.clientId) return;
    await this.#store.revokeFamily(found.familyId);
  }

  /**
   * What the access token `token` grants at `resource`, or INVALID_TOKEN:
   * unknown, revoked, expired, for another resource, or of a revoked key.
   */
  async authenticate(token: string, options: { resource: string }): Promise<TokenGrant> {
    const found = await this.#lookup(token);
    const invalid = (why: string) => new SourcegraphError("INVALID_TOKEN", why);
    if (found === null || found.kind !== "access") {
      throw invalid("the access token is not valid; authorize again");
    }
    if (found.expiresAt <= this.#now()) throw invalid("the access token expired; refresh it");
    if (found.grant.resource !== options.resource) {
      throw invalid(`the access token was issued for another resource, not ${options.resource}`);
    }
    if (!this.#valid(found.grant.identity)) throw invalid("the signed-in key was revoked");
    return {
      identity: found.grant.identity,
      scopes: found.grant.scopes,
      clientId: found.grant.clientId,
    };
  }

  // A registered client, or one a metadata document describes (INVALID_CLIENT with why not).
  async #client(clientId: string | undefined): Promise<OAuthClientRecord | null> {
    if (clientId === undefined || clientId.length > 2_000) return null;
    if (this.#documents && isDocumentClientId(clientId)) {
      try {
        return await this.#documents.client(clientId);
      } catch (error) {
        if (!(error instanceof SourcegraphError)) throw error;
        throw new UnsafeAuthorizationRequest(error.code, error.message);
      }
    }
    return clientId.length > 200 ? null : await this.#store.client(clientId);
  }

  async #lookup(token: string): Promise<OAuthTokenRecord | null> {
    if (token.length > 200) return null;
    return await this.#store.token(secretHash(token));
  }

  async #issueTokens(grant: OAuthGrant, familyId: string): Promise<TokenSet> {
    const accessToken = `${ACCESS_TOKEN_PREFIX}${randomSecret()}`;
    const refreshToken = `${REFRESH_TOKEN_PREFIX}${randomSecret()}`;
    const now = this.#now();
    const record = (kind: "access" | "refresh", token: string, ttl: number): OAuthTokenRecord => ({
      kind,
      hash: secretHash(token),
      grant,
      familyId,
      expiresAt: now + ttl,
      used: false,
    });
    await this.#store.saveTokens([
      record("access", accessToken, ACCESS_TOKEN_TTL_MS),
      record("refresh", refreshToken, REFRESH_TOKEN_TTL_MS),
    ], {
      now,
      keep: TOKENS_PER_GRANT,
      accessTtlMs: ACCESS_TOKEN_TTL_MS,
      refreshTtlMs: REFRESH_TOKEN_TTL_MS,
    });
    return {
      accessToken,
      refreshToken,
      expiresInSeconds: ACCESS_TOKEN_TTL_MS / 1000,
      scopes: grant.scopes,
    };
  }
}

// RFC 7636: a challenge is the base64url SHA-256 of the verifier (43
// characters); a verifier is 43 to 128 unreserved characters.
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** Whether `verifier` is the S256 preimage of `challenge`. */
export function pkceMatches(verifier: string | undefined, challenge: string): boolean {
  if (verifier === undefined || !PKCE_VERIFIER.test(verifier)) return false;
  const digest = createHash("sha256").update(verifier).digest("base64url");
  return digest === challenge;
}

/** The scopes a space-separated `scope` names (default: read); INVALID_SCOPE for unknown ones. */
export function requestedScopes(scope: string | undefined): string[] {
  const names = (scope ?? "").split(" ").filter((name) => name !== "");
  if (names.length === 0) return [READ_SCOPE];
  const unknown = names.filter((name) => !SCOPES.includes(name));
  if (unknown.length > 0) {
    throw new SourcegraphError(
      "INVALID_SCOPE",
      `unknown scope; the scopes are ${SCOPES.join(" ")}`,
    );
  }
  return [...new Set(names)];
}

/** The stored form of a code or token. */
export function secretHash(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

function randomSecret(): string {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The authorization server over a control store's OAuth state: a key's
 * grants end when the key is revoked, the service token's when the
 * service runs without one.
 */
export function storeOAuthServer(
  store: ControlStore,
  options: { serviceToken: boolean; now?: () => number; documents?: ClientDocuments },
): OAuthServer {
  return new OAuthServer(store.oauth, {
    valid: (identity) =>
      identity.kind === "service" ? options.serviceToken : store.hasKey(identity.id),
    now: options.now,
    documents: options.documents,
  });
}
