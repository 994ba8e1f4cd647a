/**
 * The HTTP front: Host/Origin validation (a web page cannot drive a loopback
 * server through DNS rebinding), bearer authentication, the anonymous limits
 * (tool calls per minute, counted per call and weighted by cost, and requests
 * in flight per address), bounded request bodies, and routing to MCP, the
 * plain HTTP API, the admin API, metrics, health and the web pages.
 *
 * Expected failures answer with their stable code. Anything else is logged
 * once with the request id and its stack and answered as `INTERNAL_ERROR`
 * with that id only.
 *
 * @module
 */

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { handleAdmin, isAdminPath } from "./admin_api.ts";
import { callerForSecret } from "../access/credentials.ts";
import { SourcegraphError } from "../errors.ts";
import { handleHttpApi, isHttpApiPath } from "./http_api.ts";
import type { ClientConnection } from "./tracked_connection.ts";
import { type BodyLimits, readBody } from "./request_body.ts";
import { internalError } from "./internal_error.ts";
import { httpStatus } from "./status_codes.ts";
import { bodyUnits, callCost, RateLimiter } from "./rate_limits.ts";
import { checkJsonShape, MCP_JSON_LIMITS } from "./strict_json.ts";
import type { Metrics } from "./metrics.ts";
import { createMcpServer, type McpRequestContext } from "./mcp/server.ts";
import { parsePluginsParameter } from "../plugins/selection_parameters.ts";
import type { Caller } from "../access/caller.ts";
import type { RepositoryService } from "../service/repository_service.ts";
import type { SyncScheduler } from "../git/sync_scheduler.ts";
import type { ControlStore } from "../store/control_store.ts";
import { WebPages } from "../web/web_pages.tsx";

/** Front-end settings. */
export interface HttpSettings {
  /** The service token (full access), if configured. */
  serviceToken?: string;
  /** Host names accepted in Host and Origin (loopback names always are). */
  allowedHosts: readonly string[];
  /** Anonymous tool calls per minute per client address (a batch counts each call). */
  anonymousPerMinute: number;
  /** Anonymous requests in flight per client address. */
  anonymousConcurrency: number;
  /** Largest body of the plain HTTP and admin APIs. */
  maxBodyBytes: number;
  /** Largest MCP body. */
  maxMcpBodyBytes: number;
  /** Largest body of an anonymous caller, on every route. */
  maxAnonymousBodyBytes: number;
  /** A body must arrive within this time. */
  bodyTimeoutMs: number;
  /** The origin the web pages advertise (else the request's own). */
  publicUrl?: string;
}

/** What the transport knows about a request's connection. */
export interface RequestInfo {
  /** The client's address. */
  remoteAddr?: { hostname?: string };
  /** The front's connection, when the request came through it. */
  connection?: ClientConnection;
}

/** A request handler. */
export type Handler = (request: Request, info?: RequestInfo) => Promise<Response>;

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];
// Largest form a page accepts (sign-in and sign-out carry a token or two), and its most fields.
const PAGE_FORM_BYTES = 16 * 1024;
const PAGE_FORM_FIELDS = 16;
// A Host header: a DNS name or IPv4 address, or a bracketed IPv6 address, then an optional port.
const HOST_HEADER = /^(\[[0-9a-f:.]{2,45}\]|[a-z0-9](?:[a-z0-9.-]{0,252}))(?::(\d{1,5}))?$/;

/** Creates the request handler. */
export function createHandler(
  service: RepositoryService,
  options: {
    store: ControlStore;
    scheduler: SyncScheduler;
    settings: HttpSettings;
    metrics: Metrics;
    log: (message: string) => void;
  },
): Handler {
  const { store, scheduler, settings, metrics, log } = options;
  const hosts = new Set([...LOOPBACK, ...settings.allowedHosts.map((h) => h.toLowerCase())]);
  const limiter = new RateLimiter({
    perMinute: settings.anonymousPerMinute,
    concurrency: settings.anonymousConcurrency,
  });
  const servers = new McpServerPool((serviceTools) =>
    createMcpServer(service, { scheduler, metrics, log, serviceTools })
  );
  const pages = new WebPages(service, {
    store,
    serviceToken: settings.serviceToken,
    publicUrl: settings.publicUrl,
    log,
  });
  return async function handle(request, info) {
    const requestId = crypto.randomUUID();
    const client = info?.remoteAddr?.hostname ?? "unknown";
    let release = () => {};
    try {
      checkHostAndOrigin(request, hosts);
      const url = parseUrl(request);
      if (url.pathname === "/healthz") {
        return new Response("ok\n", { headers: { "content-type": "text/plain" } });
      }
      const caller = authenticate(request, settings, store);
      // An anonymous body is capped lower and paid for by its size, before and while it is read.
      let anonymous: AnonymousBody | null = null;
      const bodyLimits = (maxBytes: number): BodyLimits => ({
        maxBytes: anonymous === null
          ? maxBytes
          : Math.min(maxBytes, settings.maxAnonymousBodyBytes),
        timeoutMs: settings.bodyTimeoutMs,
        onRefused: () => info?.connection?.closeSoon(),
        onProgress: anonymous === null ? undefined : (bytes) => anonymous!.charge(bytes),
      });
      const enterAnonymous = (cost: number) => {
        release = limiter.enter(client);
        limiter.spend(client, cost); // an empty bucket refuses before the body is read
        anonymous = new AnonymousBody(limiter, client);
        anonymous.charge(Math.min(declaredLength(request), settings.maxAnonymousBodyBytes));
      };
      if (url.pathname === "/metrics") {
        return new Response(metrics.render(store, (repo) => service.visible(caller, repo)), {
          headers: { "content-type": "text/plain; version=0.0.4" },
        });
      }
      if (isAdminPath(url.pathname)) {
        if (caller.kind !== "service") {
          throw new SourcegraphError(
            "AUTHENTICATION_REQUIRED",
            "the admin API needs the service token",
          );
        }
        return await handleAdmin(request, {
          url,
          store,
          service,
          scheduler,
          body: bodyLimits(settings.maxBodyBytes),
        });
      }
      const isMcp = url.pathname === "/sourcegraph/mcp";
      if (!isMcp && !isHttpApiPath(url.pathname) && WebPages.handles(url.pathname)) {
        if ((pages.sessionCaller(request) ?? caller).kind === "anonymous") {
          enterAnonymous(WebPages.cost(url));
        }
        return await pages.fetch(request, {
          caller,
          requestId,
          readForm: async () => {
            const form = new URLSearchParams(
              new TextDecoder().decode(await readBody(request, bodyLimits(PAGE_FORM_BYTES))),
            );
            if ([...form.keys()].length > PAGE_FORM_FIELDS) {
              throw new SourcegraphError("INVALID_REQUEST", "the form has too many fields");
            }
            return form;
          },
        });
      }
      if (!isMcp && !isHttpApiPath(url.pathname)) {
        throw new SourcegraphError("NOT_FOUND", "no such endpoint");
      }
      if (isMcp && request.method !== "POST") {
        // Stateless: no session to delete and no server-initiated messages to stream.
        return Response.json({
          jsonrpc: "2.0",
          error: { code: -32000, message: "Method not allowed: send JSON-RPC messages with POST" },
          id: null,
        }, { status: 405, headers: { allow: "POST" } });
      }
      const urlPlugins = isMcp ? parsePluginsParameter(url) : null;
      if (caller.kind === "anonymous") enterAnonymous(1);
      if (!isMcp) {
        return await handleHttpApi(request, {
          url,
          service,
          caller,
          requestId,
          body: bodyLimits(settings.maxBodyBytes),
          log,
        });
      }
      const text = new TextDecoder().decode(
        await readBody(request, bodyLimits(settings.maxMcpBodyBytes)),
      );
      checkJsonShape(text, MCP_JSON_LIMITS);
      let parsedBody: unknown;
      try {
        parsedBody = JSON.parse(text);
      } catch {
        return Response.json({
          jsonrpc: "2.0",
          error: { code: -32700, message: "Parse error: Invalid JSON" },
          id: null,
        }, { status: 400 });
      }
      if (caller.kind === "anonymous") limiter.spend(client, callCost(parsedBody) - 1);
      const context: McpRequestContext = { caller, urlPlugins, requestId };
      return await servers.serve(caller.kind === "service", async (server) => {
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        await server.connect(transport);
        try {
          return await transport.handleRequest(request, {
            parsedBody,
            authInfo: { token: "", clientId: caller.kind, scopes: [], extra: { context } },
          });
        } finally {
          await transport.close();
        }
      });
    } catch (error) {
      // A body left unread is not worth receiving: the connection closes after the answer.
      if (request.body !== null && !request.bodyUsed) info?.connection?.closeSoon();
      const known = error instanceof SourcegraphError ? error : internalError(error, {
        requestId,
        log,
      });
      return Response.json({ code: known.code, message: known.message }, {
        status: httpStatus(known.code),
        headers: { "x-request-id": requestId },
      });
    } finally {
      release();
    }
  };
}

/**
 * What an anonymous body has paid: one unit per started `BODY_UNIT_BYTES`,
 * the first of them with the request's own unit. Charged from the declared
 * length before reading, then as the bytes arrive (a chunked body declares
 * nothing).
 */
class AnonymousBody {
  #limiter: RateLimiter;
  #client: string;
  #paid = 1;

  constructor(limiter: RateLimiter, client: string) {
    this.#limiter = limiter;
    this.#client = client;
  }

  charge(bytes: number): void {
    const units = bodyUnits(bytes);
    if (units <= this.#paid) return;
    this.#limiter.spend(this.#client, units - this.#paid);
    this.#paid = units;
  }
}

function declaredLength(request: Request): number {
  const declared = Number(request.headers.get("content-length") ?? 0);
  return Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
}

/**
 * Idle MCP servers, reconnected to each request's new stateless transport
 * (building one costs more than a small read). A server depends only on
 * whether it lists the service tools; who calls is passed per request.
 */
class McpServerPool {
  static readonly IDLE_PER_KIND = 16;
  #idle = new Map<boolean, McpServer[]>([[true, []], [false, []]]);
  #build: (serviceTools: boolean) => McpServer;

  constructor(build: (serviceTools: boolean) => McpServer) {
    this.#build = build;
  }

  async serve<T>(serviceTools: boolean, run: (server: McpServer) => Promise<T>): Promise<T> {
    const idle = this.#idle.get(serviceTools)!;
    const server = idle.pop() ?? this.#build(serviceTools);
    let clean = false;
    try {
      const result = await run(server);
      clean = true;
      return result;
    } finally {
      if (clean && idle.length < McpServerPool.IDLE_PER_KIND) idle.push(server);
    }
  }
}

function parseUrl(request: Request): URL {
  try {
    return new URL(request.url);
  } catch {
    throw new SourcegraphError("INVALID_REQUEST", "the request URL is not valid");
  }
}

function checkHostAndOrigin(request: Request, hosts: Set<string>): void {
  const host = request.headers.get("host");
  if (host === null || !hosts.has(hostName(host))) {
    throw new SourcegraphError("HOST_NOT_ALLOWED", "this host name is not served");
  }
  // An absolute-form request target names its own authority, which a server
  // must use instead of Host: both must be the same served name.
  let target: string | null = null;
  let named: string | null = null;
  try {
    target = new URL(request.url).host;
    named = new URL(`http://${host}`).host; // the same normal form (":80" dropped)
  } catch {
    // refused by parseUrl, or named stays null
  }
  if (target !== null && target !== named) {
    throw new SourcegraphError("HOST_NOT_ALLOWED", "the request target names another host");
  }
  const origin = request.headers.get("origin");
  if (origin !== null) {
    let originHost: string | null = null;
    try {
      const parsed = new URL(origin);
      if (parsed.protocol === "http:" || parsed.protocol === "https:") originHost = parsed.host;
    } catch {
      // refused below
    }
    if (originHost === null || !hosts.has(hostName(originHost))) {
      throw new SourcegraphError("ORIGIN_NOT_ALLOWED", "this origin may not call the service");
    }
  }
}

/** The host name of a Host header value, or "" when it is not a valid one. */
function hostName(header: string): string {
  const match = HOST_HEADER.exec(header.toLowerCase());
  if (!match || (match[2] !== undefined && Number(match[2]) > 65_535)) return "";
  return match[1];
}

function authenticate(request: Request, settings: HttpSettings, store: ControlStore): Caller {
  const header = request.headers.get("authorization");
  if (header === null) return { kind: "anonymous" };
  const match = /^Bearer ([\x21-\x7e]{1,512})$/.exec(header);
  const caller = match === null
    ? null
    : callerForSecret(match[1], { serviceToken: settings.serviceToken, store });
  if (caller === null) {
    throw new SourcegraphError("AUTHENTICATION_REQUIRED", "the bearer token is not valid");
  }
  return caller;
}
