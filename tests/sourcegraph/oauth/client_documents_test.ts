// Client ID metadata documents over a real https server on loopback (a
// certificate made for the test by openssl): the guards refuse a private
// address unless the development setting allows it, redirects, oversized and
// slow documents, and documents that do not name themselves; a document is
// fetched once and kept until its time is up; the authorization server
// serves such a client with its redirect URIs matched exactly.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import {
  ClientDocuments,
  type DocumentFetching,
  isPublicAddress,
} from "../../../sourcegraph/oauth/client_documents.ts";
import {
  storeOAuthServer,
  UnsafeAuthorizationRequest,
} from "../../../sourcegraph/oauth/oauth_server.ts";
import { SqliteControlStore } from "../../../sourcegraph/store/sqlite_control_store.ts";
import { assert, assertEquals, assertIncludes, assertRejects } from "../../support/assert.ts";
import { removeDir, tempDir } from "../../support/git_repo.ts";
import { makeCertificate } from "../../support/test_certificate.ts";

const REDIRECT = "http://127.0.0.1:40111/callback";

interface DocumentServer {
  base: string;
  hits: string[];
  client: Deno.HttpClient;
  close(): Promise<void>;
}

// An https server on 127.0.0.1 whose answers `routes` gives, with a fresh certificate.
async function documentServer(
  dir: string,
  routes: (path: string, base: string) => Response | Promise<Response>,
): Promise<DocumentServer> {
  const certificate = await makeCertificate(dir);
  const hits: string[] = [];
  let base = "";
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: certificate.cert,
    key: certificate.key,
    onListen: () => {},
  }, (request) => {
    const path = new URL(request.url).pathname;
    hits.push(path);
    return routes(path, base);
  });
  base = `https://127.0.0.1:${server.addr.port}`;
  const client = Deno.createHttpClient({ caCerts: [certificate.ca] });
  return {
    base,
    hits,
    client,
    async close() {
      client.close();
      await server.shutdown();
    },
  };
}

function fetching(server: DocumentServer, extra: Partial<DocumentFetching> = {}): DocumentFetching {
  return {
    fetch: (url, init) => fetch(url, { ...init, client: server.client }),
    resolve: () => Promise.resolve(["127.0.0.1"]),
    allowPrivate: true,
    ...extra,
  };
}

function document(base: string, path: string, extra: Record<string, unknown> = {}): Response {
  return Response.json({
    client_id: `${base}${path}`,
    client_name: "Document agent",
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "none",
    ...extra,
  });
}

async function refusal(documents: ClientDocuments, url: string): Promise<string> {
  const error = await assertRejects(() => documents.client(url), SourcegraphError);
  assertEquals(error.code, "INVALID_CLIENT");
  return error.message;
}

Deno.test("client documents: addresses that are not public are refused before any fetch", async () => {
  for (
    const address of [
      "10.0.0.1",
      "127.0.0.1",
      "169.254.169.254",
      "172.16.0.1",
      "192.168.1.1",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "::",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "64:ff9b::a00:1",
    ]
  ) assert(!isPublicAddress(address), address);
  for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"]) {
    assert(isPublicAddress(address), address);
  }
  let fetched = 0;
  const documents = new ClientDocuments({
    fetch: () => {
      fetched++;
      return Promise.resolve(new Response("{}"));
    },
    resolve: (host) => Promise.resolve(host === "rebound.example" ? ["8.8.8.8", "10.0.0.5"] : []),
    allowPrivate: false,
  });
  assertIncludes(
    await refusal(documents, "https://rebound.example/client"),
    "not a public address",
  );
  assertIncludes(await refusal(documents, "https://127.0.0.1:8443/client"), "not a public address");
  assertIncludes(await refusal(documents, "https://[::1]/client"), "not a public address");
  assertIncludes(await refusal(documents, "https://nowhere.example/client"), "not a public");
  for (const url of ["https://8.8.8.8/", "https://8.8.8.8/a/../b", "https://u:p@8.8.8.8/c"]) {
    assertIncludes(await refusal(documents, url), "plain https URL with a path");
  }
  assertEquals(fetched, 0);
});

Deno.test("client documents: fetched over https once and kept until their time is up; every guard holds", async () => {
  const dir = await tempDir("sg-cimd-");
  const held: (() => void)[] = [];
  const server = await documentServer(dir, async (path, base) => {
    if (path === "/good") return document(base, path);
    if (path === "/other-id") return document(base, path, { client_id: `${base}/good` });
    if (path === "/secret") {
      return document(base, path, { token_endpoint_auth_method: "client_secret_basic" });
    }
    if (path === "/evil-redirect") return document(base, path, { redirect_uris: ["javascript:x"] });
    if (path === "/large") return document(base, path, { client_name: "x".repeat(10_000) });
    if (path === "/moved") return Response.redirect(`${base}/good`, 302);
    if (path === "/slow") {
      await new Promise<void>((resolve) => held.push(resolve)); // answers only at the end
      return document(base, path);
    }
    return new Response("no", { status: 404 });
  });
  const clock = { now: 1_000 };
  try {
    const refusing = new ClientDocuments(fetching(server, { allowPrivate: false }));
    assertIncludes(await refusal(refusing, `${server.base}/good`), "not a public address");
    assertEquals(server.hits, [], "a private address was fetched");

    const documents = new ClientDocuments(
      fetching(server, { now: () => clock.now, cacheMs: 60_000, timeoutMs: 300 }),
    );
    const client = await documents.client(`${server.base}/good`);
    assertEquals([client.clientName, client.redirectUris], ["Document agent", [REDIRECT]]);
    await documents.client(`${server.base}/good`);
    assertEquals(server.hits, ["/good"], "kept");
    clock.now += 60_000;
    await documents.client(`${server.base}/good`);
    assertEquals(server.hits, ["/good", "/good"], "fetched again once its time was up");

    assertIncludes(await refusal(documents, `${server.base}/other-id`), "not its own URL");
    assertIncludes(await refusal(documents, `${server.base}/secret`), "only public clients");
    assertIncludes(
      await refusal(documents, `${server.base}/evil-redirect`),
      "redirect URI refused",
    );
    assertIncludes(await refusal(documents, `${server.base}/large`), "larger than");
    assertIncludes(await refusal(documents, `${server.base}/moved`), "answered 302");
    assertIncludes(await refusal(documents, `${server.base}/missing`), "answered 404");
    assert(server.hits.filter((hit) => hit === "/good").length === 2, "the redirect was followed");
    assertIncludes(await refusal(documents, `${server.base}/slow`), "could not be");
  } finally {
    for (const release of held) release();
    await server.close();
    await removeDir(dir);
  }
});

Deno.test("client documents: the authorization server serves a document's client, redirect URIs matched exactly", async () => {
  const dir = await tempDir("sg-cimd-server-");
  const server = await documentServer(dir, (path, base) => document(base, path));
  const store = new SqliteControlStore(join(dir, "control.sqlite3"));
  try {
    const oauth = storeOAuthServer(store, {
      serviceToken: true,
      documents: new ClientDocuments(fetching(server)),
    });
    assert(oauth.clientDocuments);
    const resource = "http://127.0.0.1:4000/sourcegraph/mcp";
    const verifier = "v".repeat(60);
    const request = {
      clientId: `${server.base}/agent.json`,
      redirectUri: REDIRECT,
      responseType: "code",
      codeChallenge: createHash("sha256").update(verifier).digest("base64url"),
      codeChallengeMethod: "S256",
    };
    const checked = await oauth.checkAuthorization(request, { resource });
    const code = await oauth.issueCode(checked, { kind: "service" });
    const tokens = await oauth.exchangeCode({
      code,
      clientId: request.clientId,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    assertEquals(
      (await oauth.authenticate(tokens.accessToken, { resource })).clientId,
      request.clientId,
    );
    await assertRejects(
      () => oauth.checkAuthorization({ ...request, redirectUri: `${REDIRECT}/x` }, { resource }),
      UnsafeAuthorizationRequest,
    );
    // Without documents, such a client_id is simply unknown, and nothing is fetched.
    const plain = storeOAuthServer(store, { serviceToken: true });
    const before = server.hits.length;
    await assertRejects(
      () => plain.checkAuthorization(request, { resource }),
      UnsafeAuthorizationRequest,
    );
    assertEquals(server.hits.length, before);
  } finally {
    await store.close();
    await server.close();
    await removeDir(dir);
  }
});
