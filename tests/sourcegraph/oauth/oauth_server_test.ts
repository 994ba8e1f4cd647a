// The authorization server's rules over both control stores (the SQLite file
// and a private PostgreSQL server), with an injected clock: PKCE, code
// replay, expiry, rotation and reuse of refresh tokens, resource binding,
// revocation, a revoked key; and, in PostgreSQL, a code issued through one
// replica's store exchanged through another's.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import {
  ACCESS_TOKEN_TTL_MS,
  AuthorizationRefused,
  CODE_TTL_MS,
  type OAuthServer,
  REFRESH_TOKEN_TTL_MS,
  secretHash,
  storeOAuthServer,
  TOKENS_PER_GRANT,
  UnsafeAuthorizationRequest,
} from "../../../sourcegraph/oauth/oauth_server.ts";
import type { ControlStore } from "../../../sourcegraph/store/control_store.ts";
import { PostgresControlStore } from "../../../sourcegraph/store/postgres/postgres_control_store.ts";
import { SqliteControlStore } from "../../../sourcegraph/store/sqlite_control_store.ts";
import { assert, assertEquals, assertIncludes, assertRejects } from "../../support/assert.ts";
import { removeDir, tempDir } from "../../support/git_repo.ts";
import { postgresBin, startPostgres } from "../../support/postgres_server.ts";

const BIN = postgresBin();
const RESOURCE = "http://127.0.0.1:4000/sourcegraph/mcp";
const REDIRECT = "http://127.0.0.1:9999/callback";

/** A PKCE pair: a verifier and its S256 challenge. */
function pkce(): { verifier: string; challenge: string } {
  const verifier = `v${crypto.randomUUID().replaceAll("-", "")}${crypto.randomUUID()}`;
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

interface World {
  store: ControlStore;
  oauth: OAuthServer;
  clock: { now: number };
  /** Another replica's view of the same state (PostgreSQL), or the same store. */
  other: OAuthServer;
}

async function authorize(
  world: World,
  options: { scope?: string; identity?: { kind: "service" } | { kind: "key"; id: string } } = {},
) {
  const client = await world.oauth.register({ clientName: "Test", redirectUris: [REDIRECT] });
  const { verifier, challenge } = pkce();
  const checked = await world.oauth.checkAuthorization({
    clientId: client.clientId,
    redirectUri: REDIRECT,
    responseType: "code",
    codeChallenge: challenge,
    codeChallengeMethod: "S256",
    scope: options.scope,
    resource: RESOURCE,
  }, { resource: RESOURCE });
  const code = await world.oauth.issueCode(checked, options.identity ?? { kind: "service" });
  return { client, verifier, challenge, code };
}

async function codeOf(error: Promise<unknown>): Promise<string> {
  return (await assertRejects(() => error, SourcegraphError)).code;
}

const STEPS: [string, (world: World) => Promise<void>][] = [
  ["a code with the right verifier gives tokens bound to the resource", async (world) => {
    const { client, verifier, code } = await authorize(world);
    const tokens = await world.other.exchangeCode({
      code,
      clientId: client.clientId,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
      resource: RESOURCE,
    });
    assert(tokens.accessToken.startsWith("sgo_"));
    const grant = await world.other.authenticate(tokens.accessToken, { resource: RESOURCE });
    assertEquals(grant.identity, { kind: "service" });
    assertEquals(grant.scopes, ["sourcegraph:read"]);
    assertEquals(
      await codeOf(world.oauth.authenticate(tokens.accessToken, { resource: "http://x/mcp" })),
      "INVALID_TOKEN",
    );
    // The refresh token is no access token.
    assertEquals(
      await codeOf(world.oauth.authenticate(tokens.refreshToken, { resource: RESOURCE })),
      "INVALID_TOKEN",
    );
  }],
  ["a wrong verifier is refused and uses the code up", async (world) => {
    const { client, verifier, code } = await authorize(world);
    const wrong = pkce().verifier;
    const request = { code, clientId: client.clientId, redirectUri: REDIRECT };
    assertEquals(
      await codeOf(world.oauth.exchangeCode({ ...request, codeVerifier: wrong })),
      "INVALID_GRANT",
    );
    assertEquals(
      await codeOf(world.oauth.exchangeCode({ ...request, codeVerifier: undefined })),
      "INVALID_GRANT",
    );
    assertEquals(
      await codeOf(world.oauth.exchangeCode({ ...request, codeVerifier: verifier })),
      "INVALID_GRANT",
    );
  }],
  ["a replayed code is refused and revokes the tokens of its first exchange", async (world) => {
    const { client, verifier, code } = await authorize(world);
    const request = {
      code,
      clientId: client.clientId,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    };
    const tokens = await world.oauth.exchangeCode(request);
    await world.oauth.authenticate(tokens.accessToken, { resource: RESOURCE });
    assertEquals(await codeOf(world.other.exchangeCode(request)), "INVALID_GRANT");
    assertEquals(
      await codeOf(world.oauth.authenticate(tokens.accessToken, { resource: RESOURCE })),
      "INVALID_TOKEN",
    );
    assertEquals(
      await codeOf(
        world.oauth.refresh({ refreshToken: tokens.refreshToken, clientId: client.clientId }),
      ),
      "INVALID_GRANT",
    );
  }],
  [
    "a code for another client, another redirect URI or past its minute is refused",
    async (world) => {
      for (const change of ["client", "redirect", "late"] as const) {
        const { client, verifier, code } = await authorize(world);
        if (change === "late") world.clock.now += CODE_TTL_MS;
        const refused = world.oauth.exchangeCode({
          code,
          clientId: change === "client" ? "sgc_other" : client.clientId,
          redirectUri: change === "redirect" ? `${REDIRECT}/x` : REDIRECT,
          codeVerifier: verifier,
        });
        assertEquals(await codeOf(refused), "INVALID_GRANT", change);
      }
    },
  ],
  ["plain and missing PKCE challenges, and another resource, are refused", async (world) => {
    const client = await world.oauth.register({ redirectUris: [REDIRECT] });
    const base = { clientId: client.clientId, redirectUri: REDIRECT, responseType: "code" };
    const { challenge } = pkce();
    for (
      const request of [
        { ...base },
        { ...base, codeChallenge: challenge },
        { ...base, codeChallenge: challenge, codeChallengeMethod: "plain" },
        { ...base, codeChallenge: challenge, codeChallengeMethod: "S256", resource: "http://x/" },
        { ...base, codeChallenge: challenge, codeChallengeMethod: "S256", scope: "root" },
      ]
    ) {
      const refused = await assertRejects(
        () => world.oauth.checkAuthorization(request, { resource: RESOURCE }),
        AuthorizationRefused,
      );
      assertEquals(refused.redirectUri, REDIRECT);
    }
  }],
  ["an unknown client or redirect URI is never sent back to", async (world) => {
    const client = await world.oauth.register({ redirectUris: [REDIRECT] });
    const { challenge } = pkce();
    const request = {
      responseType: "code",
      codeChallenge: challenge,
      codeChallengeMethod: "S256",
    };
    for (
      const [clientId, redirectUri] of [
        ["sgc_unknown", REDIRECT],
        [client.clientId, "https://evil.example/callback"],
        [client.clientId, `${REDIRECT}?x=1`],
        [client.clientId, "http://127.0.0.1:9999/callback/"],
      ]
    ) {
      await assertRejects(
        () =>
          world.oauth.checkAuthorization({ ...request, clientId, redirectUri }, {
            resource: RESOURCE,
          }),
        UnsafeAuthorizationRequest,
      );
    }
  }],
  ["refresh tokens rotate; reusing a rotated one revokes the family", async (world) => {
    const { client, verifier, code } = await authorize(world);
    const first = await world.oauth.exchangeCode({
      code,
      clientId: client.clientId,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    const second = await world.other.refresh({
      refreshToken: first.refreshToken,
      clientId: client.clientId,
    });
    assert(second.refreshToken !== first.refreshToken && second.accessToken !== first.accessToken);
    await world.oauth.authenticate(second.accessToken, { resource: RESOURCE });
    assertEquals(
      await codeOf(
        world.oauth.refresh({ refreshToken: first.refreshToken, clientId: client.clientId }),
      ),
      "INVALID_GRANT",
    );
    for (const token of [first.accessToken, second.accessToken]) {
      assertEquals(
        await codeOf(world.oauth.authenticate(token, { resource: RESOURCE })),
        "INVALID_TOKEN",
      );
    }
    assertEquals(
      await codeOf(
        world.oauth.refresh({ refreshToken: second.refreshToken, clientId: client.clientId }),
      ),
      "INVALID_GRANT",
    );
  }],
  [
    "a grant keeps its newest tokens only; a recent rotated token's reuse still revokes",
    async (world) => {
      const { client, verifier, code } = await authorize(world);
      const first = await world.oauth.exchangeCode({
        code,
        clientId: client.clientId,
        redirectUri: REDIRECT,
        codeVerifier: verifier,
      });
      const issued = [first];
      for (let i = 0; i < TOKENS_PER_GRANT / 2 + 8; i++) {
        world.clock.now += 1;
        issued.push(
          await world.oauth.refresh({
            refreshToken: issued.at(-1)!.refreshToken,
            clientId: client.clientId,
          }),
        );
      }
      const current = issued.at(-1)!;
      // The first refresh token was forgotten: its reuse is refused without ending the grant.
      assertEquals(
        await codeOf(
          world.oauth.refresh({ refreshToken: first.refreshToken, clientId: client.clientId }),
        ),
        "INVALID_GRANT",
      );
      await world.oauth.authenticate(current.accessToken, { resource: RESOURCE });
      assertEquals(await world.store.oauth.token(secretHash(first.accessToken)), null);
      // The one before the current is remembered: its reuse ends the grant.
      assertEquals(
        await codeOf(
          world.oauth.refresh({
            refreshToken: issued.at(-2)!.refreshToken,
            clientId: client.clientId,
          }),
        ),
        "INVALID_GRANT",
      );
      assertEquals(
        await codeOf(world.oauth.authenticate(current.accessToken, { resource: RESOURCE })),
        "INVALID_TOKEN",
      );
    },
  ],
  ["access tokens end after an hour, refresh tokens after 30 days", async (world) => {
    const { client, verifier, code } = await authorize(world);
    const tokens = await world.oauth.exchangeCode({
      code,
      clientId: client.clientId,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    world.clock.now += ACCESS_TOKEN_TTL_MS - 1;
    await world.oauth.authenticate(tokens.accessToken, { resource: RESOURCE });
    world.clock.now += 1;
    assertEquals(
      await codeOf(world.oauth.authenticate(tokens.accessToken, { resource: RESOURCE })),
      "INVALID_TOKEN",
    );
    world.clock.now += REFRESH_TOKEN_TTL_MS;
    assertEquals(
      await codeOf(
        world.oauth.refresh({ refreshToken: tokens.refreshToken, clientId: client.clientId }),
      ),
      "INVALID_GRANT",
    );
  }],
  ["revoking a token ends its family; unknown tokens are no error", async (world) => {
    const { client, verifier, code } = await authorize(world);
    const tokens = await world.oauth.exchangeCode({
      code,
      clientId: client.clientId,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    await world.oauth.revoke("sgo_unknown");
    await world.oauth.revoke(tokens.refreshToken, { clientId: "sgc_other" }); // not its client
    await world.oauth.authenticate(tokens.accessToken, { resource: RESOURCE });
    await world.other.revoke(tokens.refreshToken, { clientId: client.clientId });
    assertEquals(
      await codeOf(world.oauth.authenticate(tokens.accessToken, { resource: RESOURCE })),
      "INVALID_TOKEN",
    );
  }],
  ["a personal key grants read only, and its tokens end with the key", async (world) => {
    await world.store.addKey("key_9", { keyHash: "f".repeat(64), name: "reader" });
    const { client, verifier, code } = await authorize(world, {
      scope: "sourcegraph:read sourcegraph:admin",
      identity: { kind: "key", id: "key_9" },
    });
    const tokens = await world.oauth.exchangeCode({
      code,
      clientId: client.clientId,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    assertEquals(tokens.scopes, ["sourcegraph:read"]);
    await world.store.removeKey("key_9");
    const refused = await codeOf(
      world.oauth.authenticate(tokens.accessToken, { resource: RESOURCE }),
    );
    assertEquals(refused, "INVALID_TOKEN");
  }],
  ["codes and tokens are stored only as hashes", async (world) => {
    const { client, verifier, code } = await authorize(world);
    const tokens = await world.oauth.exchangeCode({
      code,
      clientId: client.clientId,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    for (const secret of [code, tokens.accessToken, tokens.refreshToken]) {
      assertEquals(await world.store.oauth.token(secret), null);
      const hash = createHash("sha256").update(secret).digest("hex");
      if (secret !== code) assert((await world.store.oauth.token(hash)) !== null);
    }
  }],
  ["registration refuses unsafe redirect URIs and keeps the ones it accepts", async (world) => {
    for (
      const uri of [
        "javascript:alert(1)",
        "data:text/html,x",
        "http://evil.example/cb",
        "https://user:pw@example.org/cb",
        "https://example.org/cb#frag",
        "relative/cb",
      ]
    ) {
      const error = await assertRejects(
        () => world.oauth.register({ redirectUris: [uri] }),
        SourcegraphError,
      );
      assertEquals(error.code, "INVALID_REDIRECT_URI", uri);
    }
    const ok = await world.oauth.register({
      clientName: "App",
      redirectUris: ["https://example.org/cb", "http://[::1]:8080/cb", "com.example.app:/cb"],
    });
    assertIncludes(ok.clientId, "sgc_");
    assertEquals((await world.store.oauth.client(ok.clientId))?.redirectUris.length, 3);
  }],
];

function worldOver(stores: [ControlStore, ControlStore]): World {
  const clock = { now: 1_800_000_000_000 };
  const now = () => clock.now;
  return {
    store: stores[0],
    clock,
    oauth: storeOAuthServer(stores[0], { serviceToken: true, now }),
    other: storeOAuthServer(stores[1], { serviceToken: true, now }),
  };
}

Deno.test("OAuth server rules: SQLite", async (t) => {
  const dir = await tempDir("sg-oauth-");
  try {
    for (const [i, [name, step]] of STEPS.entries()) {
      await t.step(name, async () => {
        const store = new SqliteControlStore(join(dir, `control-${i}.sqlite3`));
        try {
          await step(worldOver([store, store]));
        } finally {
          await store.close();
        }
      });
    }
  } finally {
    await removeDir(dir);
  }
});

Deno.test({
  name: "OAuth server rules: PostgreSQL, two replicas' stores over one database",
  ignore: BIN === null,
  fn: async (t) => {
    const server = await startPostgres(BIN!);
    try {
      for (const [i, [name, step]] of STEPS.entries()) {
        await t.step(name, async () => {
          const url = await server.createDatabase(`oauth_${i}`);
          const one = await PostgresControlStore.open(url, { log: () => {} });
          const two = await PostgresControlStore.open(url, { log: () => {} });
          try {
            await step(worldOver([one, two]));
          } finally {
            await one.close();
            await two.close();
          }
        });
      }
    } finally {
      await server.stop();
    }
  },
});
