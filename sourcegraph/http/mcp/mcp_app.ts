/**
 * The MCP endpoint as a sub-app: `POST` carries JSON-RPC messages (bodies
 * measured for nesting before they are parsed, anonymous ones charged their
 * calls' cost once parsed, and calls across repositories a unit per
 * repository as they search them) to a pooled stateless server; `GET` and `DELETE`
 * are 405, since a stateless server has no session to delete and no
 * server-initiated messages to stream, except that a browser's `GET` (one that
 * asks for HTML, not an event stream) goes on to the pages when there are
 * some, which say what the address is. The caller travels with each request
 * (`authInfo.extra.context`), never with the pooled server. A call of an
 * operator's tool without the service's rights is a 401 challenge for an
 * anonymous caller and a 403 `insufficient_scope` one for an OAuth token
 * without the admin scope (a personal key keeps its `UNKNOWN_TOOL`).
 *
 * The MCP server's own modules (the SDK's server and transport with its JSON
 * Schema validator, every tool's schemas) are loaded on the first `POST`:
 * compiling them is about a quarter of what loading the service's modules
 * costs, which a service that answers only pages, the plain HTTP API or
 * health checks never pays.
 *
 * @module
 */

import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { parsePluginsParameter } from "../../plugins/selection_parameters.ts";
import type { EdgeEnv } from "../edge_env.ts";
import { callCost, repositoryCharge } from "../rate_limits.ts";
import { readBody } from "../request_body.ts";
import { checkJsonShape, MCP_JSON_LIMITS } from "../strict_json.ts";
import type { McpRequestContext } from "./server.ts";
import { SourcegraphError } from "../../errors.ts";
import { ADMIN_SCOPE } from "../../oauth/oauth_server.ts";

/** Makes an MCP server (`server.ts`'s, handed over once that module is loaded). */
export type CreateMcpServer = typeof import("./server.ts").createMcpServer;

/** What the endpoint needs of the MCP server's modules. */
interface McpRuntime {
  Transport: typeof WebStandardStreamableHTTPServerTransport;
  createMcpServer: CreateMcpServer;
  /** The tools only the service's rights may call. */
  serviceTools: ReadonlySet<string>;
}

let runtime: Promise<McpRuntime> | null = null;

/** The MCP server's modules, loaded once, on first use (a failed load is tried again). */
function mcpRuntime(): Promise<McpRuntime> {
  runtime ??= (async () => {
    const [{ WebStandardStreamableHTTPServerTransport: Transport }, { TOOLS, createMcpServer }] =
      await Promise.all([
        import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
        import("./server.ts"),
      ]);
    const serviceTools = new Set(TOOLS.filter((tool) => tool.serviceOnly).map((tool) => tool.name));
    return { Transport, createMcpServer, serviceTools };
  })().catch((error) => {
    runtime = null;
    throw error;
  });
  return runtime;
}

/**
 * Whether the caller has the service's rights (an OAuth token only with the
 * admin scope); a call of an operator's tool without them is refused here.
 */
function adminRightsFor(
  c: Context<EdgeEnv>,
  parsedBody: unknown,
  serviceTools: ReadonlySet<string>,
): boolean {
  const caller = c.var.caller;
  const adminRights = caller.kind === "service" &&
    (c.var.scopes === null || c.var.scopes.includes(ADMIN_SCOPE));
  if (!adminRights && callsServiceTool(parsedBody, serviceTools)) {
    if (caller.kind === "anonymous") {
      throw new SourcegraphError(
        "AUTHENTICATION_REQUIRED",
        "this tool needs the service's rights",
      );
    }
    if (c.var.scopes !== null) {
      throw new SourcegraphError(
        "INSUFFICIENT_SCOPE",
        `this tool needs the ${ADMIN_SCOPE} scope, granted by a sign-in with the service token`,
      );
    }
  }
  return adminRights;
}

/** Whether a JSON-RPC message (or batch) calls a tool only the service's rights may call. */
function callsServiceTool(body: unknown, serviceTools: ReadonlySet<string>): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    if (typeof message !== "object" || message === null) return false;
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    return method === "tools/call" && serviceTools.has(String(params?.name));
  });
}

/**
 * The MCP sub-app, mounted at the endpoint's path; `build` makes a server of
 * a kind with `create` (the server's modules load on the first request,
 * which waits for them).
 */
export function mcpApp(
  build: (serviceTools: boolean, create: CreateMcpServer) => McpServer,
  options: {
    maxBodyBytes: number;
    /**
     * Whether pages are mounted after this app: a browser's `GET` goes on to
     * them, and answers link to them.
     */
    pagesForBrowsers?: boolean;
    /** The service's public origin (SOURCEGRAPH_PUBLIC_URL); default the request's. */
    publicUrl?: string;
  },
): Hono<EdgeEnv> {
  const servers = new McpServerPool(async (serviceTools) =>
    build(serviceTools, (await mcpRuntime()).createMcpServer)
  );
  const app = new Hono<EdgeEnv>();
  app.post("/", async (c) => {
    const urlPlugins = parsePluginsParameter(c.req.queries("plugins") ?? []);
    const text = new TextDecoder().decode(
      await readBody(c.req.raw, c.var.bodyLimits(options.maxBodyBytes)),
    );
    checkJsonShape(text, MCP_JSON_LIMITS);
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      return c.json({
        jsonrpc: "2.0",
        error: { code: -32700, message: "Parse error: Invalid JSON" },
        id: null,
      }, 400);
    }
    c.var.budget?.spend(callCost(parsedBody) - 1);
    const caller = c.var.caller;
    const { Transport, serviceTools } = await mcpRuntime();
    const adminRights = adminRightsFor(c, parsedBody, serviceTools);
    const context: McpRequestContext = {
      caller,
      fanoutCharge: repositoryCharge(c.var.budget),
      urlPlugins,
      requestId: c.var.requestId,
      pageOrigin: options.pagesForBrowsers === true ? pageOrigin(c.req.url, options) : null,
    };
    return await servers.serve(adminRights, async (server) => {
      const transport = new Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(c.req.raw, {
          parsedBody,
          authInfo: { token: "", clientId: caller.kind, scopes: [], extra: { context } },
        });
      } finally {
        await transport.close();
      }
    });
  });
  app.on(["GET", "DELETE"], "/", notAllowed(options.pagesForBrowsers === true));
  return app;
}

/**
 * Where answers' page links start: the public URL when set, else the
 * request's origin (the Host checks ran first: it names a served host).
 */
function pageOrigin(url: string, options: { publicUrl?: string }): string {
  return options.publicUrl ?? new URL(url).origin;
}

/**
 * `GET` and `DELETE`: 405 with a JSON-RPC error, except a browser's `GET`,
 * which goes on to the pages when `pages` says there are some.
 */
function notAllowed(pages: boolean): MiddlewareHandler<EdgeEnv> {
  return async (c, next) => {
    if (pages && c.req.method === "GET" && wantsPage(c.req.header("accept"))) {
      await next();
      return c.res;
    }
    return c.json(
      {
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed: send JSON-RPC messages with POST" },
        id: null,
      },
      405,
      { allow: "POST" },
    );
  };
}

/** Whether a request's Accept header is a browser's: HTML, and no event stream (an MCP client's). */
function wantsPage(accept: string | undefined): boolean {
  const types = (accept ?? "").toLowerCase();
  return types.includes("text/html") && !types.includes("text/event-stream");
}

/**
 * Idle MCP servers, reconnected to each request's new stateless transport
 * (building one costs more than a small read). A server depends only on
 * whether it lists the service tools; who calls is passed per request.
 */
class McpServerPool {
  static readonly IDLE_PER_KIND = 16;
  #idle = new Map<boolean, McpServer[]>([[true, []], [false, []]]);
  #build: (serviceTools: boolean) => Promise<McpServer>;

  constructor(build: (serviceTools: boolean) => Promise<McpServer>) {
    this.#build = build;
  }

  async serve<T>(serviceTools: boolean, run: (server: McpServer) => Promise<T>): Promise<T> {
    const idle = this.#idle.get(serviceTools)!;
    const server = idle.pop() ?? await this.#build(serviceTools);
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
