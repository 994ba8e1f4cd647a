// End to end: the MCP SDK's own client-side OAuth (`auth()` with an
// OAuthClientProvider) against the real service over loopback HTTP, with
// public reads off. The SDK discovers the metadata from the 401 challenge,
// registers itself, and headless Chromium signs in and approves on the
// consent page; the SDK then exchanges the code, lists the tools and reads
// a file. A token minted for the service reached under another name
// (another resource) is refused. The same with a client named by the https
// URL of its metadata document (CIMD), served on loopback with a
// certificate made for the test. Both on one service and one Chromium.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { auth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Browser, BrowserContext, Page } from "puppeteer-core";
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import { chromiumPath, launchBrowser } from "../../support/browser.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { withCertificate } from "../../support/test_certificate.ts";
import { type RunningService, startService } from "../../support/sourcegraph_service.ts";
import { SharedCases } from "../../support/shared_cases.ts";

const CHROMIUM = chromiumPath();
const TOKEN = "o".repeat(40);

/** A client's OAuth state kept in memory, as an MCP client keeps it. */
class MemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl: URL | null = null;
  readonly redirectUrl: string;

  constructor(redirectUrl: string) {
    this.redirectUrl = redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "E2E agent",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** A loopback listener standing for the client's redirect URI: it keeps the codes it receives. */
function callbackServer() {
  const codes: URL[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const url = new URL(request.url);
    // Only the redirects: the browser also asks this origin for its icon.
    if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
    codes.push(url);
    return new Response("You may close this window.");
  });
  return { codes, server, url: `http://127.0.0.1:${server.addr.port}/callback` };
}

/** Completes sign-in (when asked) and approval in Chromium; returns the page it ended on. */
async function signInAndApprove(
  page: Page,
  url: string,
  clientName = "E2E agent",
): Promise<string> {
  await page.goto(url);
  if (new URL(page.url()).pathname === "/sourcegraph/-/sign-in") {
    await page.type('input[name="secret"]', TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  }
  assertEquals(new URL(page.url()).pathname, "/sourcegraph/-/oauth/authorize");
  assertIncludes(await page.content(), clientName);
  await Promise.all([page.waitForNavigation(), page.click("#approve")]);
  return page.url();
}

/** What every case shares: one service, the client's redirect URI, the document server, one Chromium. */
interface OAuthWorld {
  service: RunningService;
  /** The service's MCP endpoint. */
  serverUrl: string;
  callback: ReturnType<typeof callbackServer>;
  /** The https origin of the client metadata documents. */
  documents: string;
  /** How many requests the document server has answered. */
  served: () => number;
  browser: Browser;
}

// The cases below, in order, on one service (public reads off, client metadata documents
// on, trusting the test's CA) and one Chromium, each case in a browser context of its own.
const oauthCases = new SharedCases<OAuthWorld>();

Deno.test({
  name: "OAuth end to end, one service and one Chromium for every case",
  ignore: CHROMIUM === null,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: (t) => withOAuthWorld((world) => oauthCases.run(t, world)),
});

/** Runs `fn` on a fresh OAuth world; everything is stopped and removed afterwards. */
async function withOAuthWorld(fn: (world: OAuthWorld) => Promise<void>): Promise<void> {
  const parent = await tempDir("sg-oauth-e2e-");
  const callback = callbackServer();
  try {
    await withCertificate(join(parent, "tls"), async (tls) => {
      const documents = documentServer(tls, callback.url);
      const repo = await createRepo({ "a.txt": "hello through OAuth\n" }, { parent, name: "site" });
      const service = await startService(parent, {
        SOURCEGRAPH_API_TOKEN: TOKEN,
        SOURCEGRAPH_PUBLIC_READ: "false",
        SOURCEGRAPH_OAUTH_CLIENT_DOCUMENTS: "true",
        SOURCEGRAPH_OAUTH_CLIENT_DOCUMENTS_PRIVATE: "true",
        // The service trusts the test's CA (the document server's certificate).
        DENO_CERT: tls.caFile,
      }, { repositories: [repo.path] });
      try {
        const browser = await launchBrowser(CHROMIUM!);
        try {
          await fn({
            service,
            serverUrl: `${service.url}/sourcegraph/mcp`,
            callback,
            documents: documents.base,
            served: () => documents.served,
            browser,
          });
        } finally {
          await browser.close();
        }
      } finally {
        await service.stop();
        await documents.server.shutdown();
      }
    });
  } finally {
    await callback.server.shutdown();
    await removeDir(parent);
  }
}

/**
 * An https server of client metadata documents on loopback: `agent.json` is a
 * client redirecting to `redirectUri`, `foreign.json` names another URL as its id.
 */
function documentServer(
  tls: { cert: string; key: string },
  redirectUri: string,
): { server: Deno.HttpServer; base: string; served: number } {
  const document = (base: string) => ({
    client_id: `${base}/clients/agent.json`,
    client_name: "CIMD agent",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  });
  const answered = { served: 0 };
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: tls.cert,
    key: tls.key,
    onListen: () => {},
  }, (request) => {
    const url = new URL(request.url);
    answered.served++;
    if (url.pathname === "/clients/agent.json") return Response.json(document(url.origin));
    if (url.pathname === "/clients/foreign.json") {
      return Response.json({ ...document(url.origin), client_id: "https://elsewhere.example/c" });
    }
    return new Response("not found", { status: 404 });
  });
  return {
    server,
    base: `https://127.0.0.1:${server.addr.port}`,
    get served() {
      return answered.served;
    },
  };
}

/** Runs `fn` in a fresh context of `browser` (its own cookies), closed after it. */
async function inContext(
  browser: Browser,
  fn: (context: BrowserContext) => Promise<void>,
): Promise<void> {
  const context = await browser.createBrowserContext();
  try {
    await fn(context);
  } finally {
    await context.close();
  }
}

oauthCases.add(
  "OAuth end to end: the SDK's auth() registers, Chromium signs in and approves, the SDK lists tools and reads; a token for another resource is refused",
  ({ service, serverUrl, callback, browser }) =>
    inContext(browser, async (context) => {
      // Without credentials the endpoint answers with the challenge the SDK follows.
      const anonymous = new Client({ name: "anonymous", version: "0.0.0" });
      const refused = await anonymous.connect(new StreamableHTTPClientTransport(new URL(serverUrl)))
        .then(() => "connected", (error: Error) => String(error));
      assert(refused !== "connected", "an anonymous client connected");

      const provider = new MemoryProvider(callback.url);
      assertEquals(await auth(provider, { serverUrl }), "REDIRECT");
      assert(provider.client?.client_id.startsWith("sgc_"), "dynamically registered");
      const authorizationUrl = provider.authorizationUrl!;
      assertEquals(authorizationUrl.searchParams.get("code_challenge_method"), "S256");
      assertEquals(authorizationUrl.searchParams.get("resource"), serverUrl);

      const page = await context.newPage();
      const landed = await signInAndApprove(page, authorizationUrl.href);
      assert(landed.startsWith(callback.url), landed);
      const code = callback.codes.at(-1)!.searchParams.get("code")!;
      assertEquals(await auth(provider, { serverUrl, authorizationCode: code }), "AUTHORIZED");
      const access = provider.saved!.access_token;
      assert(!landed.includes(access), "the access token in a URL");

      const client = new Client({ name: "oauth", version: "0.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }),
      );
      try {
        const tools = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
        assert(tools.includes("read") && tools.includes("prepare"), tools.join(","));
        const read = await client.callTool({
          name: "read",
          arguments: { repo: "local/site", path: "a.txt" },
        });
        assertIncludes(JSON.stringify(read.content), "hello through OAuth");
      } finally {
        await client.close();
      }

      // The same service under another name (localhost) is another resource: a token it
      // mints there is refused here.
      const other = `http://localhost:${new URL(service.url).port}`;
      const { verifier, challenge } = pkce();
      const foreign = new URL(`${other}/sourcegraph/-/oauth/authorize`);
      for (
        const [name, value] of Object.entries({
          client_id: provider.client!.client_id,
          redirect_uri: callback.url,
          response_type: "code",
          code_challenge: challenge,
          code_challenge_method: "S256",
        })
      ) foreign.searchParams.set(name, value);
      await signInAndApprove(page, foreign.href);
      const foreignCode = callback.codes.at(-1)!.searchParams.get("code")!;
      const exchanged = await fetch(`${service.url}/sourcegraph/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: foreignCode,
          client_id: provider.client!.client_id,
          redirect_uri: callback.url,
          code_verifier: verifier,
        }),
      });
      const minted = await exchanged.json();
      assertEquals(exchanged.status, 200);
      const answer = await fetch(`${serverUrl}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${minted.access_token}`,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      assertEquals(answer.status, 401);
      assertIncludes(answer.headers.get("www-authenticate")!, 'error="invalid_token"');
      assertEquals((await answer.json()).code, "INVALID_TOKEN");
      for (const line of service.log) {
        assert(!line.includes(access) && !line.includes(code), `a secret in the log: ${line}`);
      }
    }),
);

/** A provider that names itself by the URL of its metadata document instead of registering. */
class DocumentProvider extends MemoryProvider {
  readonly clientMetadataUrl: string;

  constructor(redirectUrl: string, documentUrl: string) {
    super(redirectUrl);
    this.clientMetadataUrl = documentUrl;
  }
}

/** Lists the tools and reads `a.txt` of `local/site` with `provider`'s tokens. */
async function listAndRead(serverUrl: string, provider: OAuthClientProvider): Promise<string[]> {
  const client = new Client({ name: "oauth", version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }),
  );
  try {
    const tools = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
    const read = await client.callTool({
      name: "read",
      arguments: { repo: "local/site", path: "a.txt" },
    });
    assertIncludes(JSON.stringify(read.content), "hello through OAuth");
    return tools;
  } finally {
    await client.close();
  }
}

oauthCases.add(
  "OAuth end to end with a client metadata document: the SDK names its https document, Chromium signs in and approves, the SDK lists tools and reads",
  ({ service, serverUrl, callback, documents, served, browser }) =>
    inContext(browser, async (context) => {
      const provider = new DocumentProvider(callback.url, `${documents}/clients/agent.json`);
      assertEquals(await auth(provider, { serverUrl }), "REDIRECT");
      // No registration: the client id is the document's URL.
      assertEquals(provider.client?.client_id, `${documents}/clients/agent.json`);
      const authorizationUrl = provider.authorizationUrl!;
      assertEquals(
        authorizationUrl.searchParams.get("client_id"),
        `${documents}/clients/agent.json`,
      );
      const page = await context.newPage();
      const landed = await signInAndApprove(page, authorizationUrl.href, "CIMD agent");
      assert(landed.startsWith(callback.url), landed);
      assert(served() >= 1, "the service fetched the document");
      const code = callback.codes.at(-1)!.searchParams.get("code")!;
      assertEquals(await auth(provider, { serverUrl, authorizationCode: code }), "AUTHORIZED");
      const tools = await listAndRead(serverUrl, provider);
      assert(tools.includes("read") && tools.includes("prepare"), tools.join(","));

      // Documents that do not hold: never a redirect, an error page naming the reason.
      for (
        const [path, reason] of [
          ["/clients/foreign.json", "its client_id is not its own URL"],
          ["/clients/missing.json", "it answered 404"],
        ]
      ) {
        const refused = new URL(authorizationUrl);
        refused.searchParams.set("client_id", `${documents}${path}`);
        const answer = await page.goto(refused.href);
        assertEquals(answer?.status(), 401, path); // INVALID_CLIENT
        assertEquals(new URL(page.url()).origin, service.url, "never redirected");
        assertIncludes(await page.content(), reason);
      }
      // The redirect URI must be one the document names.
      const elsewhere = new URL(authorizationUrl);
      elsewhere.searchParams.set("redirect_uri", "http://127.0.0.1:9/callback");
      assertEquals((await page.goto(elsewhere.href))?.status(), 400);
    }),
);

function pkce(): { verifier: string; challenge: string } {
  const verifier = `${crypto.randomUUID()}-${crypto.randomUUID()}`;
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}
