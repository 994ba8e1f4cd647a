/**
 * The HTTP front: Host/Origin validation (a web page cannot drive a loopback
 * server through DNS rebinding), bearer authentication, the anonymous rate
 * limit, the `plugins` URL parameter, and routing to MCP and health.
 *
 * @module
 */

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { handleAdmin, isAdminPath, keyHash } from "./admin_api.ts";
import { SourcegraphError } from "./errors.ts";
import { handleHttpApi, isHttpApiPath } from "./http_api.ts";
import { Metrics } from "./metrics.ts";
import { createMcpServer } from "./mcp_tools.ts";
import { parsePluginsParameter, type UrlPlugins } from "./plugins/selection_parameters.ts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Caller, RepositoryService } from "./repository_service.ts";
import type { SyncScheduler } from "./sync_scheduler.ts";

/** Front-end settings. */
export interface HttpSettings {
  /** The service token (full access), if configured. */
  serviceToken?: string;
  /** Host names accepted in Host and Origin (loopback names always are). */
  allowedHosts: readonly string[];
  /** Anonymous requests per minute per client address. */
  anonymousPerMinute: number;
}

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]", "::1"];

/** Creates the request handler. */
export function createHandler(
  service: RepositoryService,
  scheduler: SyncScheduler,
  settings: HttpSettings,
  context: { metrics: Metrics } = { metrics: new Metrics() },
): (request: Request, info?: { remoteAddr?: { hostname?: string } }) => Promise<Response> {
  const hosts = new Set([...LOOPBACK, ...settings.allowedHosts.map((h) => h.toLowerCase())]);
  const limiter = new RateLimiter(settings.anonymousPerMinute);
  return async function handle(request, info) {
    const url = new URL(request.url);
    try {
      checkHostAndOrigin(request, hosts);
      if (url.pathname === "/healthz") {
        return new Response("ok\n", { headers: { "content-type": "text/plain" } });
      }
      if (url.pathname === "/metrics") {
        return new Response(context.metrics.render(service.store), {
          headers: { "content-type": "text/plain; version=0.0.4" },
        });
      }
      if (isAdminPath(url.pathname)) {
        if (authenticate(request, settings, service).kind !== "service") {
          throw new SourcegraphError(
            "AUTHENTICATION_REQUIRED",
            "the admin API needs the service token",
            401,
          );
        }
        return await handleAdmin(request, url, {
          store: service.store,
          service,
          scheduler,
          dataDir: service.dataDir,
        });
      }
      const isMcp = url.pathname === "/sourcegraph/mcp";
      if (!isMcp && !isHttpApiPath(url.pathname)) {
        throw new SourcegraphError("NOT_FOUND", "no such endpoint", 404);
      }
      const urlPlugins = isMcp ? parsePluginsParameter(url) : null;
      const caller = authenticate(request, settings, service);
      if (caller.kind === "anonymous" && !limiter.allow(info?.remoteAddr?.hostname ?? "unknown")) {
        throw new SourcegraphError(
          "RATE_LIMITED",
          "too many anonymous requests; slow down or authenticate",
          429,
        );
      }
      if (!isMcp) return await handleHttpApi(request, url, service, caller);
      return await serveMcp(request, service, caller, urlPlugins, scheduler, context.metrics);
    } catch (error) {
      const known = error instanceof SourcegraphError
        ? error
        : new SourcegraphError("INTERNAL", "internal error", 500);
      return Response.json({ code: known.code, message: known.message }, { status: known.status });
    }
  };
}

// Building a server costs more than a small read, so idle servers are kept
// per (caller kind, plugin selection) and reconnected to each request's new
// stateless transport; a server serves one request at a time.
const idleServers = new Map<string, McpServer[]>();
const MAX_IDLE_PER_KEY = 64;

async function serveMcp(
  request: Request,
  service: RepositoryService,
  caller: Caller,
  urlPlugins: UrlPlugins,
  scheduler: SyncScheduler,
  metrics: Metrics,
): Promise<Response> {
  const key = `${caller.kind}|${JSON.stringify(urlPlugins)}`;
  const server = idleServers.get(key)?.pop() ??
    createMcpServer(service, caller, urlPlugins, scheduler, metrics);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await transport.close();
    const idle = idleServers.get(key) ?? [];
    if (idle.length < MAX_IDLE_PER_KEY) {
      idle.push(server);
      idleServers.set(key, idle);
    }
  }
}

function checkHostAndOrigin(request: Request, hosts: Set<string>): void {
  const host = request.headers.get("host");
  if (host === null || !hosts.has(hostName(host))) {
    throw new SourcegraphError("HOST_NOT_ALLOWED", "this host name is not served", 421);
  }
  const origin = request.headers.get("origin");
  if (origin !== null) {
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      throw new SourcegraphError("ORIGIN_NOT_ALLOWED", "this origin may not call the service", 403);
    }
    if (!hosts.has(hostName(originHost))) {
      throw new SourcegraphError("ORIGIN_NOT_ALLOWED", "this origin may not call the service", 403);
    }
  }
}

function hostName(hostHeader: string): string {
  const lower = hostHeader.toLowerCase();
  if (lower.startsWith("[")) return lower.slice(0, lower.indexOf("]") + 1);
  const colon = lower.lastIndexOf(":");
  return colon === -1 ? lower : lower.slice(0, colon);
}

function authenticate(
  request: Request,
  settings: HttpSettings,
  service: RepositoryService,
): Caller {
  const header = request.headers.get("authorization");
  if (header === null) return { kind: "anonymous" };
  const match = /^Bearer (\S+)$/.exec(header);
  if (match && settings.serviceToken && constantTimeEqual(match[1], settings.serviceToken)) {
    return { kind: "service" };
  }
  if (match && match[1].startsWith("sgk_")) {
    const id = service.store.keyByHash(keyHash(match[1]));
    if (id !== null) return { kind: "key", id };
  }
  throw new SourcegraphError("AUTHENTICATION_REQUIRED", "the bearer token is not valid", 401);
}

function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** A fixed-window limiter per client address. */
class RateLimiter {
  #perMinute: number;
  #windows = new Map<string, { start: number; count: number }>();

  constructor(perMinute: number) {
    this.#perMinute = perMinute;
  }

  allow(client: string): boolean {
    const now = Date.now();
    const window = this.#windows.get(client);
    if (!window || now - window.start >= 60_000) {
      if (this.#windows.size > 10_000) this.#windows.clear();
      this.#windows.set(client, { start: now, count: 1 });
      return true;
    }
    window.count++;
    return window.count <= this.#perMinute;
  }
}
