// An external issuer (as Keycloak would be) named by its issuer URL and
// JWKS URL: a real key set served over HTTP on loopback, keys and tokens
// made with jose here, and the real edge in process. A good token lists the
// tools and reads; every forged, foreign, stale or badly signed one is 401;
// a token without the service's scopes is 403 with the scope challenge; a
// rotated key is picked up; the embedded server's endpoints are gone; the
// key set is fetched within its bounds and only from its configured URL.
import {
  type CryptoKey,
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type JWK,
  type JWTPayload,
  SignJWT,
  UnsecuredJWT,
} from "jose";
import type { Handler } from "../../../sourcegraph/http/edge_env.ts";
import { ExternalIssuer, MAX_JWKS_BYTES } from "../../../sourcegraph/oauth/external_issuer.ts";
import { readSettings } from "../../../sourcegraph/settings.ts";
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import {
  connectInProcess,
  inProcessFetch,
  withInProcessService,
  WORLD_TOKEN,
} from "../../support/in_process_service.ts";
import { toolCall } from "../../support/mcp_messages.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { startService } from "../../support/sourcegraph_service.ts";

const RESOURCE = "http://127.0.0.1/sourcegraph/mcp";
const READ = "sourcegraph:read";
const ADMIN = "sourcegraph:admin";

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
  spki: string;
}

async function signingKey(kid: string, alg = "RS256"): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...await exportJWK(publicKey), kid, alg, use: "sig" };
  return { kid, privateKey, jwk, spki: await exportSPKI(publicKey) };
}

// The issuer's first key, made once: RSA key generation is slow, and no case changes the key.
let firstKey: Promise<SigningKey> | undefined;
function keyOne(): Promise<SigningKey> {
  return firstKey ??= signingKey("key-1");
}

// The same key pair published or named under another kid: a kid the key set does not list.
function underKid(key: SigningKey, kid: string): SigningKey {
  return { ...key, kid, jwk: { ...key.jwk, kid } };
}

/** A loopback key set server: what it serves can change; it counts its fetches. */
function keySetServer() {
  const state = {
    keys: [] as JWK[],
    fetches: 0,
    /** A body to answer with instead of the key set, or a redirect. */
    override: null as null | (() => Response),
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    state.fetches++;
    if (state.override) return state.override();
    return Response.json({ keys: state.keys });
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return { state, server, issuer: `${origin}/realms/test`, jwksUrl: `${origin}/realms/test/certs` };
}

type KeySet = ReturnType<typeof keySetServer>;

function sign(
  key: SigningKey,
  claims: JWTPayload,
  options: { issuer: string; alg?: string; header?: Record<string, unknown> },
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    sub: "alice",
    aud: RESOURCE,
    scope: READ,
    iat: now,
    exp: now + 300,
    ...claims,
  })
    .setProtectedHeader({ alg: options.alg ?? "RS256", kid: key.kid, ...options.header })
    .setIssuer(options.issuer)
    .sign(key.privateKey);
}

function mcpPost(handle: Handler, token: string, body: unknown): Promise<Response> {
  return inProcessFetch(handle)("/sourcegraph/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify(body),
  });
}

const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list" };

/** Asserts `token` is refused with 401 INVALID_TOKEN and the invalid_token challenge. */
async function assertRefused(handle: Handler, token: string, why: string): Promise<string> {
  const answer = await mcpPost(handle, token, LIST);
  const body = await answer.json();
  assertEquals(answer.status, 401, `${why}: ${JSON.stringify(body)}`);
  assertEquals(body.code, "INVALID_TOKEN", why);
  assertIncludes(answer.headers.get("www-authenticate") ?? "", 'error="invalid_token"');
  return body.message;
}

async function withIssuer(fn: (world: IssuerWorld) => Promise<void>): Promise<void> {
  const keys = keySetServer();
  const key = await keyOne();
  keys.state.keys = [key.jwk];
  const log: string[] = [];
  const issuer = new ExternalIssuer(
    { issuer: keys.issuer, jwksUrl: keys.jwksUrl },
    { cooldownMs: 0, log: (line) => log.push(line) },
  );
  try {
    await withInProcessService(({ handle }) => fn({ handle, keys, key, log }), { issuer });
  } finally {
    await keys.server.shutdown();
  }
}

type IssuerWorld = { handle: Handler; keys: KeySet; key: SigningKey; log: string[] };

// The cases over one in-process service and one key set run as its steps, in this order (the
// rotation, last, retires the first key).
const CASES: [string, (world: IssuerWorld) => Promise<void>][] = [];
function issuerCase(name: string, fn: (world: IssuerWorld) => Promise<void>): void {
  CASES.push([name, fn]);
}

Deno.test("external issuer: one in-process service trusting a loopback issuer", (t) =>
  withIssuer(async (world) => {
    for (const [name, fn] of CASES) await t.step(name, () => fn(world));
  }));

issuerCase(
  "external issuer: a good token lists the tools and reads; its scopes give its rights",
  async ({ handle, keys, key }) => {
    const reader = await sign(key, {}, { issuer: keys.issuer });
    const client = await connectInProcess(handle, { token: reader });
    try {
      const tools = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
      assert(tools.includes("read") && !tools.includes("prepare"), tools.join(","));
      const read = await client.callTool({
        name: "read",
        arguments: { repo: "org/open", path: "a.txt" },
      });
      assertIncludes(JSON.stringify(read.content), "org/open");
    } finally {
      await client.close();
    }
    // Read only: an operator's tool is 403 with the admin scope in the challenge.
    const prepare = await mcpPost(handle, reader, toolCall(2, "prepare", { repo: "org/open" }));
    assertEquals(prepare.status, 403);
    assertIncludes(prepare.headers.get("www-authenticate")!, `scope="${ADMIN}"`);
    assertEquals((await prepare.json()).code, "INSUFFICIENT_SCOPE");
    // The admin scope (here as a list, as some issuers write it) gives the service's rights.
    const admin = await sign(key, { scope: undefined, scp: [READ, ADMIN] }, {
      issuer: keys.issuer,
    });
    const issuerWithScp = new ExternalIssuer(
      { issuer: keys.issuer, jwksUrl: keys.jwksUrl, scopeClaim: "scp" },
      { cooldownMs: 0 },
    );
    const grant = await issuerWithScp.authenticate(admin, { resource: RESOURCE });
    assertEquals([grant.identity.kind, grant.scopes], ["service", [READ, ADMIN]]);
    const adminToken = await sign(key, { scope: `openid ${READ} ${ADMIN}` }, {
      issuer: keys.issuer,
    });
    const listed = await mcpPost(handle, adminToken, LIST);
    assertEquals(listed.status, 200);
    assertIncludes(await listed.text(), '"prepare"');
    // Verified but without any scope of the service: 403 naming the read scope.
    const none = await sign(key, { scope: "openid profile" }, { issuer: keys.issuer });
    const scopeless = await mcpPost(handle, none, LIST);
    assertEquals(scopeless.status, 403);
    assertIncludes(
      scopeless.headers.get("www-authenticate")!,
      `error="insufficient_scope", scope="${READ}"`,
    );
    const oddClaim = await sign(key, { scope: 7 }, { issuer: keys.issuer });
    assertEquals((await mcpPost(handle, oddClaim, LIST)).status, 403);
  },
);

issuerCase(
  "external issuer: wrong audience or issuer, expired, not yet valid, alg none, unknown kid, tampered, HS256 keyed by the public key: 401",
  async ({ handle, keys, key }) => {
    const issuer = keys.issuer;
    const now = Math.floor(Date.now() / 1000);
    const wrongAudience = await sign(key, { aud: "http://127.0.0.1:9/sourcegraph/mcp" }, {
      issuer,
    });
    assertIncludes(await assertRefused(handle, wrongAudience, "audience"), "another audience");
    await assertRefused(handle, await sign(key, {}, { issuer: `${issuer}-other` }), "issuer");
    await assertRefused(
      handle,
      await sign(key, {}, { issuer: `${issuer}/` }),
      "issuer with a slash",
    );
    const expired = await sign(key, { iat: now - 600, exp: now - 120 }, { issuer });
    assertIncludes(await assertRefused(handle, expired, "expired"), "expired");
    // Within the leeway an expiry just passed still counts.
    const justExpired = await sign(key, { exp: now - 5 }, { issuer });
    assertEquals((await mcpPost(handle, justExpired, LIST)).status, 200);
    await assertRefused(handle, await sign(key, { nbf: now + 600 }, { issuer }), "not before");
    await assertRefused(handle, await sign(key, { exp: undefined }, { issuer }), "no exp");
    await assertRefused(handle, await sign(key, { sub: undefined }, { issuer }), "no sub");
    await assertRefused(handle, await sign(key, { sub: "x".repeat(300) }, { issuer }), "long sub");
    const unsecured = new UnsecuredJWT({ sub: "alice", aud: RESOURCE, scope: READ })
      .setIssuer(issuer).setExpirationTime("5m").encode();
    // `alg: none` ends in an empty signature; it is refused, never taken for a key.
    assertEquals((await mcpPost(handle, unsecured, LIST)).status, 401);
    const stranger = await signingKey("key-1"); // the same kid, another key
    await assertRefused(handle, await sign(stranger, {}, { issuer }), "another key, same kid");
    const unknownKid = underKid(key, "key-unknown");
    assertIncludes(
      await assertRefused(handle, await sign(unknownKid, {}, { issuer }), "unknown kid"),
      "does not publish",
    );
    const good = await sign(key, {}, { issuer });
    const [head, payload, signature] = good.split(".");
    const claims = JSON.parse(new TextDecoder().decode(decode(payload)));
    const raised = encode(JSON.stringify({ ...claims, scope: `${READ} ${ADMIN}` }));
    await assertRefused(handle, `${head}.${raised}.${signature}`, "tampered payload");
    const flipped = signature.slice(0, -2) + (signature.endsWith("AA") ? "BB" : "AA");
    await assertRefused(handle, `${head}.${payload}.${flipped}`, "tampered signature");
    // HS256 with the issuer's public key (as PEM and as the JWK's modulus) as the secret.
    for (const secret of [key.spki, key.jwk.n!]) {
      const hmac = await new SignJWT({ sub: "mallory", aud: RESOURCE, scope: `${READ} ${ADMIN}` })
        .setProtectedHeader({ alg: "HS256", kid: key.kid })
        .setIssuer(issuer).setExpirationTime("5m")
        .sign(new TextEncoder().encode(secret));
      assertIncludes(await assertRefused(handle, hmac, "HS256"), "algorithm");
    }
    // The good token works, so each refusal above was for its own reason.
    assertEquals((await mcpPost(handle, good, LIST)).status, 200);
  },
);

Deno.test("external issuer: fetches of the key set are bounded; refetches wait for the cooldown", async () => {
  const keys = keySetServer();
  const key = await keyOne();
  keys.state.keys = [key.jwk];
  try {
    const unavailable = async (override: () => Response, why: string, timeoutMs?: number) => {
      keys.state.override = override;
      const issuer = new ExternalIssuer({ issuer: keys.issuer, jwksUrl: keys.jwksUrl }, {
        cooldownMs: 0,
        timeoutMs,
      });
      const error = await issuer.authenticate(await sign(key, {}, { issuer: keys.issuer }), {
        resource: RESOURCE,
      }).then(() => null, (caught) => caught);
      assertEquals(error?.code, "DEPENDENCY_UNAVAILABLE", why);
    };
    const big = JSON.stringify({ keys: [key.jwk], pad: "x".repeat(MAX_JWKS_BYTES) });
    await unavailable(() => new Response(big), "too large");
    await unavailable(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(big));
              controller.close();
            },
          }),
        ),
      "too large, streamed",
    );
    await unavailable(
      () => new Response(null, { status: 302, headers: { location: keys.jwksUrl } }),
      "a redirect",
    );
    await unavailable(() => new Response("not json"), "not JSON");
    await unavailable(() => new Response("{}", { status: 500 }), "a server error");
    await unavailable(() => Response.json({ keys: "none" }), "not a key set");
    // A set that starts and never ends is given up at the time limit (5 s; here 300 ms).
    const hanging: ReadableStreamDefaultController<Uint8Array>[] = [];
    await unavailable(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              hanging.push(controller);
              controller.enqueue(new TextEncoder().encode('{"keys":['));
            },
          }),
        ),
      "a set that never ends",
      300,
    );
    for (const controller of hanging) {
      try {
        controller.close();
      } catch {
        // already cancelled by the client
      }
    }
    keys.state.override = null;
    // With the default cooldown, a flood of unknown kids fetches the set once.
    const issuer = new ExternalIssuer({ issuer: keys.issuer, jwksUrl: keys.jwksUrl });
    const before = keys.state.fetches;
    for (let i = 0; i < 5; i++) {
      const stranger = underKid(key, `flood-${i}`);
      const error = await issuer.authenticate(await sign(stranger, {}, { issuer: keys.issuer }), {
        resource: RESOURCE,
      }).then(() => null, (caught) => caught);
      assertEquals(error?.code, "INVALID_TOKEN");
    }
    assertEquals(keys.state.fetches - before, 1);
    // A configured audience replaces the MCP URL.
    const audienced = new ExternalIssuer(
      { issuer: keys.issuer, jwksUrl: keys.jwksUrl, audience: "sourcegraph" },
      { cooldownMs: 0 },
    );
    const token = await sign(key, { aud: ["account", "sourcegraph"] }, { issuer: keys.issuer });
    assertEquals((await audienced.authenticate(token, { resource: RESOURCE })).identity, {
      kind: "key",
      id: "oauth:alice",
    });
  } finally {
    await keys.server.shutdown();
  }
});

issuerCase(
  "external issuer: the metadata name it; the embedded server's endpoints and consent page are 404",
  async ({ handle, keys, key }) => {
    const get = inProcessFetch(handle);
    const metadata = await (await get("/.well-known/oauth-protected-resource/sourcegraph/mcp"))
      .json();
    assertEquals([metadata.resource, metadata.authorization_servers], [RESOURCE, [keys.issuer]]);
    for (
      const path of [
        "/.well-known/oauth-authorization-server",
        "/sourcegraph/-/oauth/authorize?client_id=x",
      ]
    ) {
      const answer = await get(path);
      await answer.body?.cancel();
      assertEquals(answer.status, 404, path);
    }
    for (
      const path of [
        "/sourcegraph/oauth/register",
        "/sourcegraph/oauth/token",
        "/sourcegraph/oauth/revoke",
      ]
    ) {
      const answer = await get(path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=refresh_token&refresh_token=sgr_x",
      });
      await answer.body?.cancel();
      assertEquals(answer.status, 404, path);
    }
    // The connect page says who signs clients in.
    const connect = await (await get("/sourcegraph/-/connect")).text();
    assertIncludes(connect, "the authorization server this site trusts");
    assert(!connect.includes("approve it"), "the connect page offers the consent page");
    // The anonymous challenge points at the metadata that name the issuer.
    const anonymous = await get("/sourcegraph/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(toolCall(1, "prepare", { repo: "org/open" })),
    });
    await anonymous.body?.cancel();
    assertEquals(anonymous.status, 401);
    assertIncludes(
      anonymous.headers.get("www-authenticate")!,
      "/.well-known/oauth-protected-resource/sourcegraph/mcp",
    );
    // The embedded server's tokens mean nothing here; the service token still works.
    assertEquals((await mcpPost(handle, `sgo_${"a".repeat(43)}`, LIST)).status, 401);
    assertEquals((await mcpPost(handle, WORLD_TOKEN, LIST)).status, 200);
    // A header over the limit, or a JWT-shaped value with junk, is a clean 401.
    assertEquals((await mcpPost(handle, `eyJ${"a".repeat(9000)}.e30.x`, LIST)).status, 401);
    assertEquals((await mcpPost(handle, "eyJhbGciOiJSUzI1NiJ9.!!!.x", LIST)).status, 401);
    assertEquals((await mcpPost(handle, "eyJub3QganNvbg.e30.c2ln", LIST)).status, 401);
    const good = await sign(key, {}, { issuer: keys.issuer });
    assertEquals((await mcpPost(handle, good, LIST)).status, 200);
  },
);

issuerCase(
  "external issuer: a rotated key (a new kid) is picked up; a jku in a token is never fetched",
  async ({ handle, keys, key }) => {
    assertEquals(
      (await mcpPost(handle, await sign(key, {}, { issuer: keys.issuer }), LIST)).status,
      200,
    );
    const fetchesBefore = keys.state.fetches;
    // Another request with the known key is served from the cached set.
    assertEquals(
      (await mcpPost(handle, await sign(key, {}, { issuer: keys.issuer }), LIST)).status,
      200,
    );
    assertEquals(keys.state.fetches, fetchesBefore);
    const rotated = await signingKey("key-2", "ES256");
    keys.state.keys = [rotated.jwk]; // the old key is retired
    const fresh = await sign(rotated, {}, { issuer: keys.issuer, alg: "ES256" });
    assertEquals((await mcpPost(handle, fresh, LIST)).status, 200);
    assertEquals(keys.state.fetches, fetchesBefore + 1);
    await assertRefused(handle, await sign(key, {}, { issuer: keys.issuer }), "a retired key");
    // A token naming its own key set: that server is never asked.
    const elsewhere = keySetServer();
    try {
      const forger = await signingKey("key-3");
      elsewhere.state.keys = [forger.jwk];
      const forged = await sign(forger, {}, {
        issuer: keys.issuer,
        header: { jku: elsewhere.jwksUrl, jwk: forger.jwk },
      });
      await assertRefused(handle, forged, "jku/jwk in the header");
      assertEquals(elsewhere.state.fetches, 0);
    } finally {
      await elsewhere.server.shutdown();
    }
  },
);

Deno.test("external issuer settings: both URLs, https or loopback http, a claim name; not with client documents", () => {
  const settings = (env: Record<string, string>) => readSettings((name) => env[name], "/srv");
  const issuer = "https://id.example/realms/main";
  const jwks = "https://id.example/realms/main/protocol/openid-connect/certs";
  const ok = settings({ SOURCEGRAPH_OAUTH_ISSUER: issuer, SOURCEGRAPH_OAUTH_JWKS_URL: jwks });
  assert(ok.ok);
  assertEquals(ok.settings.oauthIssuer, { issuer, jwksUrl: jwks, scopeClaim: "scope" });
  const problems = (env: Record<string, string>) => {
    const result = settings(env);
    assert(!result.ok, JSON.stringify(env));
    return result.problems.join("\n");
  };
  assertIncludes(problems({ SOURCEGRAPH_OAUTH_ISSUER: issuer }), "must be set together");
  assertIncludes(problems({ SOURCEGRAPH_OAUTH_JWKS_URL: jwks }), "must be set together");
  for (
    const bad of [
      "http://id.example/x",
      "ftp://id.example",
      "https://u:p@id.example",
      "https://id.example/#x",
      "not a url",
    ]
  ) {
    assertIncludes(
      problems({ SOURCEGRAPH_OAUTH_ISSUER: bad, SOURCEGRAPH_OAUTH_JWKS_URL: jwks }),
      "SOURCEGRAPH_OAUTH_ISSUER must be an https URL",
    );
  }
  assert(
    settings({
      SOURCEGRAPH_OAUTH_ISSUER: "http://127.0.0.1:8080/realms/dev",
      SOURCEGRAPH_OAUTH_JWKS_URL: "http://localhost:8080/certs",
    }).ok,
  );
  const both = { SOURCEGRAPH_OAUTH_ISSUER: issuer, SOURCEGRAPH_OAUTH_JWKS_URL: jwks };
  assertIncludes(problems({ ...both, SOURCEGRAPH_OAUTH_SCOPE_CLAIM: "scope claim" }), "claim name");
  assertIncludes(
    problems({ ...both, SOURCEGRAPH_OAUTH_AUDIENCE: "a b" }),
    "SOURCEGRAPH_OAUTH_AUDIENCE",
  );
  assertIncludes(problems({ SOURCEGRAPH_OAUTH_AUDIENCE: "x" }), "need SOURCEGRAPH_OAUTH_ISSUER");
  assertIncludes(
    problems({ ...both, SOURCEGRAPH_OAUTH_CLIENT_DOCUMENTS: "true" }),
    "SOURCEGRAPH_OAUTH_CLIENT_DOCUMENTS",
  );
  const custom = settings({
    ...both,
    SOURCEGRAPH_OAUTH_AUDIENCE: "sourcegraph",
    SOURCEGRAPH_OAUTH_SCOPE_CLAIM: "scp",
  });
  assert(custom.ok);
  assertEquals(custom.settings.oauthIssuer?.audience, "sourcegraph");
  assertEquals(custom.settings.oauthIssuer?.scopeClaim, "scp");
});

function decode(segment: string): Uint8Array {
  const base64 = segment.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(
    atob(base64 + "=".repeat((4 - base64.length % 4) % 4)),
    (c) => c.charCodeAt(0),
  );
}

function encode(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

Deno.test("external issuer: the running service, started with the settings, names it and takes its tokens", async () => {
  const keys = keySetServer();
  const key = await keyOne();
  keys.state.keys = [key.jwk];
  const parent = await tempDir("sg-issuer-");
  try {
    const repo = await createRepo({ "a.txt": "through an issuer\n" }, { parent, name: "site" });
    const service = await startService(parent, {
      SOURCEGRAPH_OAUTH_ISSUER: keys.issuer,
      SOURCEGRAPH_OAUTH_JWKS_URL: keys.jwksUrl,
      SOURCEGRAPH_PUBLIC_READ: "false",
    }, { repositories: [repo.path] });
    try {
      const metadata = await fetch(`${service.url}/.well-known/oauth-protected-resource`);
      assertEquals((await metadata.json()).authorization_servers, [keys.issuer]);
      const server = await fetch(`${service.url}/.well-known/oauth-authorization-server`);
      await server.body?.cancel();
      assertEquals(server.status, 404);
      const post = async (token: string) => {
        const answer = await fetch(`${service.url}/sourcegraph/mcp`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${token}`,
          },
          body: JSON.stringify(toolCall(1, "read", { repo: "local/site", path: "a.txt" })),
        });
        return { status: answer.status, text: await answer.text() };
      };
      const audience = `${service.url}/sourcegraph/mcp`;
      const good = await sign(key, { aud: audience }, { issuer: keys.issuer });
      const read = await post(good);
      assertEquals(read.status, 200, read.text);
      assertIncludes(read.text, "through an issuer");
      // A token for the in-process default audience (another URL) is refused here.
      assertEquals((await post(await sign(key, {}, { issuer: keys.issuer }))).status, 401);
      for (const line of service.log) assert(!line.includes(good), "a token in the log");
    } finally {
      await service.stop();
    }
  } finally {
    await keys.server.shutdown();
    await removeDir(parent);
  }
});
