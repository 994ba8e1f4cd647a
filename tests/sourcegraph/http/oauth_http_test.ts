// The OAuth endpoints of the real edge and pages, in process: metadata, the
// 401 and 403 challenges, dynamic registration, sign-in and consent, the
// token and revocation endpoints, and the hostile requests each must refuse
// (open redirects, CSRF, code replay, PKCE mismatch, foreign tokens).
import { createHash } from "node:crypto";
import type { Handler } from "../../../sourcegraph/http/edge_env.ts";
import { storeOAuthServer } from "../../../sourcegraph/oauth/oauth_server.ts";
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import {
  adminFetch,
  type InProcessWorld,
  withInProcessService,
  WORLD_KEY,
  WORLD_TOKEN,
} from "../../support/in_process_service.ts";
import {
  cookiePair,
  hiddenField,
  pageRequest,
  setCookie,
  signIn,
} from "../../support/page_requests.ts";
import { callHandler } from "../../support/tool_calls.ts";
import { mcpRequest, toolCall } from "../../support/mcp_messages.ts";

const BASE = "http://127.0.0.1";
const RESOURCE = `${BASE}/sourcegraph/mcp`;
const METADATA = `${BASE}/.well-known/oauth-protected-resource/sourcegraph/mcp`;
const REDIRECT = "http://127.0.0.1:47123/callback";

/** A hidden field's value as a browser sends it back (entities decoded). */
function field(html: string, name: string): string | null {
  return hiddenField(html, name)?.replaceAll("&amp;", "&").replaceAll("&quot;", '"') ?? null;
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = `${crypto.randomUUID()}-${crypto.randomUUID()}`;
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

function request(handle: Handler, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("host", "127.0.0.1");
  return handle(new Request(`${BASE}${path}`, { ...init, headers, redirect: "manual" }));
}

function postForm(handle: Handler, path: string, form: Record<string, string>) {
  return request(handle, path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
}

async function register(handle: Handler, body: unknown): Promise<Response> {
  return await request(handle, "/sourcegraph/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function clientId(handle: Handler): Promise<string> {
  const answer = await register(handle, { client_name: "Test agent", redirect_uris: [REDIRECT] });
  assertEquals(answer.status, 201);
  return (await answer.json()).client_id;
}

/** The authorization parameters of a fresh request by `client`. */
function authorization(client: string, extra: Record<string, string> = {}) {
  const { verifier, challenge } = pkce();
  const fields: Record<string, string> = {
    client_id: client,
    redirect_uri: REDIRECT,
    response_type: "code",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "sourcegraph:read sourcegraph:admin",
    resource: RESOURCE,
    state: "state-123",
    ...extra,
  };
  return { verifier, fields, query: new URLSearchParams(fields).toString() };
}

/** Signs in with `secret`, opens the consent page and approves; the 303's Location. */
async function approve(
  handle: Handler,
  options: { secret: string; fields: Record<string, string>; query: string },
): Promise<URL> {
  const session = (await signIn(handle, options.secret)).cookie!;
  const consent = await pageRequest(handle, `/sourcegraph/-/oauth/authorize?${options.query}`, {
    cookie: session,
  });
  assertEquals(consent.status, 200, consent.body);
  const approved = await pageRequest(handle, "/sourcegraph/-/oauth/authorize", {
    cookie: session,
    form: { ...options.fields, csrf: hiddenField(consent.body, "csrf")!, decision: "approve" },
  });
  assertEquals(approved.status, 303, approved.body);
  return new URL(approved.headers.get("location")!);
}

async function tokens(
  handle: Handler,
  options: { secret?: string; scope?: string } = {},
) {
  const client = await clientId(handle);
  const auth = authorization(client, options.scope ? { scope: options.scope } : {});
  const back = await approve(handle, { secret: options.secret ?? WORLD_TOKEN, ...auth });
  const exchanged = await postForm(handle, "/sourcegraph/oauth/token", {
    grant_type: "authorization_code",
    code: back.searchParams.get("code")!,
    client_id: client,
    redirect_uri: REDIRECT,
    code_verifier: auth.verifier,
    resource: RESOURCE,
  });
  assertEquals(exchanged.status, 200);
  assertEquals(exchanged.headers.get("cache-control"), "no-store");
  const body = await exchanged.json();
  return { client, back, body, code: back.searchParams.get("code")!, verifier: auth.verifier };
}

// What the shared world logged (no case's token may be in it).
const logged: string[] = [];

// The cases with the world's defaults run as steps of one world, in file order.
const CASES: [string, (world: InProcessWorld) => Promise<void>][] = [];
function oauthCase(name: string, fn: (world: InProcessWorld) => Promise<void>): void {
  CASES.push([name, fn]);
}

Deno.test("OAuth over HTTP: one in-process world with the defaults", (t) =>
  withInProcessService(async (world) => {
    for (const [name, fn] of CASES) await t.step(name, () => fn(world));
  }, { log: (line) => logged.push(line) }));

oauthCase(
  "OAuth over HTTP: the metadata name the MCP URL, the issuer and S256 only",
  async ({ handle }) => {
    for (
      const path of [
        "/.well-known/oauth-protected-resource/sourcegraph/mcp",
        "/.well-known/oauth-protected-resource",
      ]
    ) {
      const answer = await request(handle, path);
      const metadata = await answer.json();
      assertEquals([metadata.resource, metadata.authorization_servers], [RESOURCE, [BASE]]);
    }
    const server = await (await request(handle, "/.well-known/oauth-authorization-server")).json();
    assertEquals(server.issuer, BASE);
    assertEquals(server.code_challenge_methods_supported, ["S256"]);
    assertEquals(server.client_id_metadata_document_supported, false); // off by default
    assertEquals(server.authorization_endpoint, `${BASE}/sourcegraph/-/oauth/authorize`);
    assertEquals(server.token_endpoint, `${BASE}/sourcegraph/oauth/token`);
    assertEquals(server.registration_endpoint, `${BASE}/sourcegraph/oauth/register`);
    assertEquals(server.revocation_endpoint, `${BASE}/sourcegraph/oauth/revoke`);
    const connect = await pageRequest(handle, "/sourcegraph/-/connect");
    assertIncludes(connect.body, "Sign in with OAuth");
  },
);

Deno.test("OAuth over HTTP: the public URL names every address", () =>
  withInProcessService(async ({ handle }) => {
    const metadata = await (await request(handle, "/.well-known/oauth-protected-resource")).json();
    assertEquals(metadata.resource, "https://sg.example.org/sourcegraph/mcp");
    const server = await (await request(handle, "/.well-known/oauth-authorization-server")).json();
    assertEquals(server.issuer, "https://sg.example.org");
    const anonymous = await request(handle, "/sourcegraph/api/admin/v1/repos");
    assertEquals(
      anonymous.headers.get("www-authenticate"),
      'Bearer resource_metadata="https://sg.example.org/.well-known/oauth-protected-resource/sourcegraph/mcp"',
    );
  }, { publicUrl: "https://sg.example.org", repositories: [] })); // metadata only: no repository

Deno.test("OAuth over HTTP: behind a proxy at a path, the metadata sit at the origin's root followed by that path", () =>
  withInProcessService(async ({ handle }) => {
    const prefixed = "/.well-known/oauth-protected-resource/code/sourcegraph/mcp";
    const metadata = await (await request(handle, prefixed)).json();
    assertEquals(metadata.resource, "https://sg.example.org/code/sourcegraph/mcp");
    assertEquals(metadata.authorization_servers, ["https://sg.example.org/code"]);
    const server = await (await request(handle, "/.well-known/oauth-authorization-server/code"))
      .json();
    assertEquals(server.issuer, "https://sg.example.org/code");
    assertEquals(server.token_endpoint, "https://sg.example.org/code/sourcegraph/oauth/token");
    const anonymous = await request(handle, "/sourcegraph/api/admin/v1/repos");
    assertEquals(
      anonymous.headers.get("www-authenticate"),
      `Bearer resource_metadata="https://sg.example.org${prefixed}"`,
    );
  }, { publicUrl: "https://sg.example.org/code", repositories: [] })); // metadata only: no repository

Deno.test("OAuth over HTTP: without public reads an anonymous MCP request is a 401 challenge; keys still work", () =>
  withInProcessService(async ({ handle }) => {
    const anonymous = await handle(
      mcpRequest(BASE, toolCall(1, "repositories", {}), { host: "127.0.0.1" }),
    );
    assertEquals(anonymous.status, 401);
    assertEquals(
      anonymous.headers.get("www-authenticate"),
      `Bearer resource_metadata="${METADATA}"`,
    );
    assertEquals((await anonymous.json()).code, "AUTHENTICATION_REQUIRED");
    const key = await callHandler(handle, "read", {
      args: { repo: "org/closed", path: "a.txt" },
      token: WORLD_KEY,
    });
    assertEquals(key.code, "OK");
    const mistyped = await handle(
      mcpRequest(BASE, toolCall(1, "repositories", {}), { host: "127.0.0.1", token: "sgk_wrong" }),
    );
    assertEquals(mistyped.status, 401);
    assertEquals(
      mistyped.headers.get("www-authenticate"),
      `Bearer error="invalid_token", resource_metadata="${METADATA}"`,
    );
  }, { settings: { publicRead: false } }));

oauthCase(
  "OAuth over HTTP: with public reads, an anonymous call of an operator's tool is a 401 challenge",
  async ({ handle }) => {
    const answer = await handle(
      mcpRequest(BASE, toolCall(1, "prepare", { repo: "org/open", idempotency_key: "prep-0001" }), {
        host: "127.0.0.1",
      }),
    );
    assertEquals(answer.status, 401);
    assertEquals(answer.headers.get("www-authenticate"), `Bearer resource_metadata="${METADATA}"`);
    const read = await callHandler(handle, "read", { args: { repo: "org/open", path: "a.txt" } });
    assertEquals(read.code, "OK");
  },
);

oauthCase(
  "OAuth over HTTP: a service sign-in grants read and admin; refresh rotates; revocation ends it; no token in a log line or URL",
  async ({ handle }) => {
    const { client, back, body } = await tokens(handle);
    assertEquals(back.origin + back.pathname, REDIRECT);
    assertEquals(back.searchParams.get("state"), "state-123");
    assertEquals(back.searchParams.get("iss"), BASE);
    assertEquals([...back.searchParams.keys()].sort(), ["code", "iss", "state"]);
    assertEquals(body.token_type, "Bearer");
    assertEquals(body.scope, "sourcegraph:read sourcegraph:admin");
    const access = body.access_token as string;
    const closed = await callHandler(handle, "read", {
      args: { repo: "org/closed", path: "a.txt" },
      token: access,
    });
    assertEquals(closed.code, "OK");
    const prepare = await callHandler(handle, "prepare", {
      args: { repo: "org/open", idempotency_key: "prep-oauth-01" },
      token: access,
    });
    assertEquals(prepare.code, "OK");

    const refreshed = await postForm(handle, "/sourcegraph/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: body.refresh_token,
      client_id: client,
    });
    const rotated = await refreshed.json();
    assert(rotated.refresh_token !== body.refresh_token);
    const reuse = await postForm(handle, "/sourcegraph/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: body.refresh_token,
      client_id: client,
    });
    assertEquals([reuse.status, (await reuse.json()).error], [400, "invalid_grant"]);
    const revokedFamily = await callHandler(handle, "repositories", {
      token: rotated.access_token,
    });
    assertEquals(revokedFamily.code, "HTTP 401 INVALID_TOKEN");

    const again = await tokens(handle);
    const revoked = await postForm(handle, "/sourcegraph/oauth/revoke", {
      token: again.body.access_token,
      client_id: again.client,
    });
    assertEquals(revoked.status, 200);
    const after = await handle(
      mcpRequest(BASE, toolCall(1, "repositories", {}), {
        host: "127.0.0.1",
        token: again.body.access_token,
      }),
    );
    assertEquals(after.status, 401);
    assertEquals(
      after.headers.get("www-authenticate"),
      `Bearer error="invalid_token", resource_metadata="${METADATA}"`,
    );
    const secrets = [
      access,
      body.refresh_token,
      rotated.access_token,
      again.code,
      again.body.access_token,
    ];
    for (const line of logged) {
      for (const secret of secrets) assert(!line.includes(secret), `a secret in the log: ${line}`);
    }
  },
);

oauthCase(
  "OAuth over HTTP: a personal key's sign-in grants read only; the operator's tool and API answer 403 insufficient_scope",
  async ({ handle }) => {
    const { body } = await tokens(handle, { secret: WORLD_KEY });
    assertEquals(body.scope, "sourcegraph:read");
    const read = await callHandler(handle, "read", {
      args: { repo: "org/closed", path: "a.txt" },
      token: body.access_token,
    });
    assertEquals(read.code, "OK");
    const prepare = await handle(
      mcpRequest(BASE, toolCall(1, "prepare", { repo: "org/open", idempotency_key: "prep-0002" }), {
        host: "127.0.0.1",
        token: body.access_token,
      }),
    );
    assertEquals(prepare.status, 403);
    assertEquals(
      prepare.headers.get("www-authenticate"),
      `Bearer error="insufficient_scope", scope="sourcegraph:admin", resource_metadata="${METADATA}"`,
    );
    const readOnly = await tokens(handle, { scope: "sourcegraph:read" }); // the service, reading
    const admin = await adminFetch(handle, readOnly.body.access_token)("GET", "/repos");
    assertEquals([admin.status, (await admin.json()).code], [403, "INSUFFICIENT_SCOPE"]);
  },
);

oauthCase(
  "OAuth over HTTP: a token minted for another resource is refused with invalid_token",
  async ({ handle, store }) => {
    const oauth = storeOAuthServer(store, { serviceToken: true });
    const client = await oauth.register({ redirectUris: [REDIRECT] });
    const { verifier, challenge } = pkce();
    const elsewhere = "http://sg.other.example/sourcegraph/mcp";
    const checked = await oauth.checkAuthorization({
      clientId: client.clientId,
      redirectUri: REDIRECT,
      responseType: "code",
      codeChallenge: challenge,
      codeChallengeMethod: "S256",
    }, { resource: elsewhere });
    const code = await oauth.issueCode(checked, { kind: "service" });
    const minted = await oauth.exchangeCode({
      code,
      clientId: client.clientId,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    const answer = await callHandler(handle, "repositories", { token: minted.accessToken });
    assertEquals(answer.code, "HTTP 401 INVALID_TOKEN");
    // At the resource it was minted for (that Host), it would be accepted.
    assertEquals(
      (await oauth.authenticate(minted.accessToken, { resource: elsewhere })).identity.kind,
      "service",
    );
  },
);

oauthCase(
  "OAuth over HTTP hostile: registration refuses script, data and foreign http redirect URIs",
  async ({ handle }) => {
    for (const uri of ["javascript:alert(1)", "data:text/html,x", "http://evil.example/cb"]) {
      const answer = await register(handle, { redirect_uris: [uri] });
      assertEquals(
        [answer.status, (await answer.json()).error],
        [400, "invalid_redirect_uri"],
        uri,
      );
    }
    const notJson = await request(handle, "/sourcegraph/oauth/register", {
      method: "POST",
      body: "{",
    });
    assertEquals((await notJson.json()).error, "invalid_client_metadata");
  },
);

oauthCase(
  "OAuth over HTTP hostile: an unregistered redirect URI is shown, never followed; a bad request goes back to the registered one",
  async ({ handle }) => {
    const client = await clientId(handle);
    const session = (await signIn(handle, WORLD_TOKEN)).cookie!;
    for (const redirect of ["https://evil.example/cb", `${REDIRECT}/../evil`, `${REDIRECT}?a=1`]) {
      const { query } = authorization(client, { redirect_uri: redirect });
      const answer = await pageRequest(handle, `/sourcegraph/-/oauth/authorize?${query}`, {
        cookie: session,
      });
      assertEquals([answer.status, answer.headers.get("location")], [400, null], redirect);
      assertIncludes(answer.body, "INVALID_REDIRECT_URI");
    }
    const badPkce: Record<string, string>[] = [{ code_challenge_method: "plain" }, {
      code_challenge: "",
    }];
    for (const extra of badPkce) {
      const { query } = authorization(client, extra);
      const answer = await pageRequest(handle, `/sourcegraph/-/oauth/authorize?${query}`, {
        cookie: session,
      });
      assertEquals(answer.status, 303);
      const back = new URL(answer.headers.get("location")!);
      assertEquals(back.origin + back.pathname, REDIRECT);
      assertEquals(back.searchParams.get("error"), "invalid_request");
      assertEquals(back.searchParams.get("state"), "state-123");
      assertEquals(back.searchParams.get("code"), null);
    }
  },
);

oauthCase(
  "OAuth over HTTP hostile: consent needs the session's CSRF token and a served Origin, and re-checks the redirect URI",
  async ({ handle }) => {
    const client = await clientId(handle);
    const { fields, query } = authorization(client);
    const session = (await signIn(handle, WORLD_TOKEN)).cookie!;
    const consent = await pageRequest(handle, `/sourcegraph/-/oauth/authorize?${query}`, {
      cookie: session,
    });
    assertIncludes(consent.body, "Test agent");
    assertIncludes(
      consent.headers.get("content-security-policy")!,
      `form-action 'self' http://127.0.0.1:47123`,
    );
    const csrf = hiddenField(consent.body, "csrf")!;
    for (
      const [form, origin] of [
        [{ ...fields, decision: "approve" }, undefined],
        [{ ...fields, decision: "approve", csrf: "x".repeat(csrf.length) }, undefined],
        [{ ...fields, decision: "approve", csrf }, "https://evil.example"],
      ] as const
    ) {
      const forged = await pageRequest(handle, "/sourcegraph/-/oauth/authorize", {
        cookie: session,
        form,
        origin,
      });
      assertEquals(forged.status, 403);
      assertEquals(forged.headers.get("location"), null);
    }
    const noSession = await pageRequest(handle, "/sourcegraph/-/oauth/authorize", {
      form: { ...fields, decision: "approve", csrf },
    });
    assertEquals([noSession.status, noSession.headers.get("location")], [403, null]);
    const switched = await pageRequest(handle, "/sourcegraph/-/oauth/authorize", {
      cookie: session,
      form: { ...fields, redirect_uri: "https://evil.example/cb", decision: "approve", csrf },
    });
    assertEquals([switched.status, switched.headers.get("location")], [400, null]);
    const denied = await pageRequest(handle, "/sourcegraph/-/oauth/authorize", {
      cookie: session,
      form: { ...fields, decision: "deny", csrf },
    });
    const back = new URL(denied.headers.get("location")!);
    assertEquals([back.searchParams.get("error"), back.searchParams.get("code")], [
      "access_denied",
      null,
    ]);
  },
);

oauthCase(
  "OAuth over HTTP hostile: without a session the request goes through sign-in and back; sign-in's next never leaves the consent page",
  async ({ handle }) => {
    const client = await clientId(handle);
    const { query } = authorization(client);
    const start = await pageRequest(handle, `/sourcegraph/-/oauth/authorize?${query}`);
    assertEquals(start.status, 303);
    const signInUrl = start.headers.get("location")!;
    assert(signInUrl.startsWith("/sourcegraph/-/sign-in?next="), signInUrl);
    const next = new URL(signInUrl, BASE).searchParams.get("next")!;
    for (
      const [target, expected] of [
        [next, next],
        ["https://evil.example/", "/sourcegraph/"],
        ["//evil.example/", "/sourcegraph/"],
        ["/sourcegraph/-/oauth/authorize/../../x?", "/sourcegraph/"],
      ]
    ) {
      const form = await pageRequest(
        handle,
        `/sourcegraph/-/sign-in?${new URLSearchParams({ next: target })}`,
      );
      const signedIn = await pageRequest(handle, "/sourcegraph/-/sign-in", {
        form: {
          csrf: hiddenField(form.body, "csrf")!,
          secret: WORLD_TOKEN,
          ...(field(form.body, "next") === null ? {} : { next: field(form.body, "next")! }),
        },
        cookie: cookiePair(setCookie(form, "sg_sign_in")!),
      });
      assertEquals([signedIn.status, signedIn.headers.get("location")], [303, expected], target);
    }
  },
);

oauthCase(
  "OAuth over HTTP hostile: a replayed code is refused and its tokens revoked; a wrong verifier is refused",
  async ({ handle }) => {
    const first = await tokens(handle);
    const replay = await postForm(handle, "/sourcegraph/oauth/token", {
      grant_type: "authorization_code",
      code: first.code,
      client_id: first.client,
      redirect_uri: REDIRECT,
      code_verifier: first.verifier,
    });
    assertEquals([replay.status, (await replay.json()).error], [400, "invalid_grant"]);
    const revoked = await callHandler(handle, "repositories", { token: first.body.access_token });
    assertEquals(revoked.code, "HTTP 401 INVALID_TOKEN");

    const client = await clientId(handle);
    const auth = authorization(client);
    const back = await approve(handle, { secret: WORLD_TOKEN, ...auth });
    const mismatch = await postForm(handle, "/sourcegraph/oauth/token", {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      client_id: client,
      redirect_uri: REDIRECT,
      code_verifier: pkce().verifier,
    });
    assertEquals([mismatch.status, (await mismatch.json()).error], [400, "invalid_grant"]);
    const implicit = await postForm(handle, "/sourcegraph/oauth/token", { grant_type: "password" });
    assertEquals((await implicit.json()).error, "unsupported_grant_type");
  },
);
