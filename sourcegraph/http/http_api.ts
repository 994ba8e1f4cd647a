/**
 * The plain HTTP API under `/sourcegraph` (same auth and visibility as MCP):
 * `POST /v1/repo/{read,list,diff,resolve,symbols}?repo=`, `POST /api/search?repo=` and
 * `POST /v1/search` and `POST /v1/symbols` (across repositories)
 * with strict JSON bodies of Go-style field names, `GET /v1/repos`,
 * `GET /v1/repo/availability?repo=` and `GET /v1/repo/plugins?repo=`.
 * Answers use Go-style names too (`http_json.ts`). Reads here run no
 * plugins. Errors are `{"Error","Meta":{"Protocol","RequestID","Status":
 * "error","Code"}}` with an `X-Request-ID` header.
 *
 * @module
 */

import type { RepositorySearchRequest } from "../service/repository_reads.ts";
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import type { Caller } from "../access/caller.ts";
import { SourcegraphError } from "../errors.ts";
import { internalError } from "../internal_error.ts";
import type { RepositoryService } from "../service/repository_service.ts";
import type { EdgeEnv } from "./edge_env.ts";
import { parseStrictBody } from "./strict_json.ts";
import { readBodyText } from "./request_body.ts";
import { httpStatus } from "./status_codes.ts";
import { repositoryCharge } from "./rate_limits.ts";
import {
  availabilityJson,
  catalogJson,
  changesJson,
  errorJson,
  fanoutSearchJson,
  fanoutSymbolsPageJson,
  fileJson,
  listingJson,
  repositoryPageJson,
  resolvedJson,
  searchJson,
  symbolsPageJson,
} from "./http_json.ts";
import { FANOUT_MAX_REPOSITORIES } from "../service/repository_pins.ts";
import { decodeFanoutCursor } from "../render/fanout_search_text.ts";
import { SYMBOL_KINDS } from "../symbols/defined_symbol.ts";
import { SYMBOLS_MAX_FIRST } from "../service/repository_symbols.ts";
import { decodeFanoutSymbolCursor, decodeSymbolCursor } from "../render/symbols_json.ts";

const line = z.number().int().min(1).optional();
const ReadBody = z.strictObject({
  Revision: z.string().min(1).max(256).optional(),
  Path: z.string().min(1).max(4096),
  StartLine: line,
  EndLine: line,
});
const ResolveBody = z.strictObject({ Revision: z.string().min(1).max(256).optional() });
const ListBody = z.strictObject({
  Revision: z.string().min(1).max(256).optional(),
  Path: z.string().min(1).max(4096).optional(),
  First: z.number().int().min(1).max(1000),
  After: z.string().min(1).max(4096).optional(),
});
const DiffBody = z.strictObject({
  Base: z.string().min(1).max(256),
  Head: z.string().min(1).max(256),
  First: z.number().int().min(1).max(100),
  Paths: z.array(z.string().min(1).max(4096)).max(64).optional(),
  After: z.string().min(1).max(4096).optional(),
});
const SearchBody = z.strictObject({
  Revision: z.string().min(1).max(256).optional(),
  Pattern: z.string().min(1).max(8192),
  FixedStrings: z.boolean().optional(),
  IgnoreCase: z.boolean().optional(),
  Glob: z.array(z.string().min(1).max(1024)).max(64).optional(),
  Paths: z.array(z.string().min(1).max(4096)).max(64).optional(),
  Output: z.enum(["content", "files"]).optional(),
  MaxLinesPerFile: z.number().int().min(1).max(1000).optional(),
});

// What a body across repositories adds: the repositories (none: every
// visible one), and a cursor that holds their pins.
const ACROSS_REPOSITORIES = {
  Repos: z.array(z.string().min(1).max(256)).min(1).max(FANOUT_MAX_REPOSITORIES).optional(),
  After: z.string().min(1).max(16384).optional(),
};

const FanoutSearchBody = SearchBody.extend(ACROSS_REPOSITORIES);

const SymbolsBody = z.strictObject({
  Revision: z.string().min(1).max(256).optional(),
  Query: z.string().min(1).max(1024),
  Match: z.enum(["exact", "prefix", "regex"]).optional(),
  IgnoreCase: z.boolean().optional(),
  Kinds: z.array(z.enum(SYMBOL_KINDS)).max(SYMBOL_KINDS.length).optional(),
  Languages: z.array(z.string().min(1).max(32)).max(32).optional(),
  Paths: z.array(z.string().min(1).max(4096)).max(64).optional(),
  Glob: z.array(z.string().min(1).max(1024)).max(64).optional(),
  First: z.number().int().min(1).max(SYMBOLS_MAX_FIRST).optional(),
  After: z.string().min(1).max(512).optional(),
});

const FanoutSymbolsBody = SymbolsBody.extend(ACROSS_REPOSITORIES);

/** The plain HTTP API as a sub-app, mounted at `/sourcegraph`; errors in its own JSON. */
export function httpApiApp(
  service: RepositoryService,
  options: { maxBodyBytes: number; log: (message: string) => void },
): Hono<EdgeEnv> {
  const app = new Hono<EdgeEnv>();
  const parse = async <T>(c: Context<EdgeEnv>, schema: z.ZodType<T>): Promise<T> =>
    parseStrictBody(
      schema,
      await readBodyText(c.req.raw, c.var.bodyLimits(options.maxBodyBytes)),
    );
  const answer = (c: Context<EdgeEnv>, body: unknown) =>
    c.json(body, 200, { "x-request-id": c.var.requestId });
  app.onError((error, c) => {
    const requestId = c.var.requestId;
    const request = c.req.raw;
    if (request.body !== null && !request.bodyUsed) c.env?.connection?.closeSoon();
    const known = internalError(error, { requestId, log: options.log });
    return c.json(errorJson(known, requestId), httpStatus(known.code) as ContentfulStatusCode, {
      "x-request-id": requestId,
    });
  });
  getRoutes(app, service, answer);
  const post = postRoute(app, { parse, answer });
  readRoutes(post, service);
  searchRoutes(post, service);
  // Across repositories: no repo parameter; the body names them (or every visible one).
  app.post("/v1/search", async (c) => {
    const body = await parse(c, FanoutSearchBody);
    const found = await service.searchRepositories(c.var.caller, {
      ...searchOptions(body),
      repos: body.Repos ?? null,
      after: body.After === undefined ? undefined : decodeFanoutCursor(body.After),
    }, repositoryCharge(c.var.budget));
    return answer(c, fanoutSearchJson(found, { requestId: c.var.requestId }));
  });
  app.post("/v1/symbols", async (c) => {
    const body = await parse(c, FanoutSymbolsBody);
    const page = await service.symbolsAcrossRepositories(c.var.caller, {
      ...symbolLookup(body),
      repos: body.Repos ?? null,
      after: body.After === undefined ? undefined : decodeFanoutSymbolCursor(body.After),
    }, repositoryCharge(c.var.budget));
    return answer(c, fanoutSymbolsPageJson(page));
  });
  // Anything else under the API's prefixes is its own 404, in its own JSON.
  const missing = () => {
    throw new SourcegraphError("NOT_FOUND", "no such endpoint");
  };
  app.all("/v1/*", missing);
  app.all("/api/search", missing);
  return app;
}

type Answer = (c: Context<EdgeEnv>, body: unknown) => Response;

// The GET routes: repositories, availability, the plugin catalog.
function getRoutes(app: Hono<EdgeEnv>, service: RepositoryService, answer: Answer): void {
  app.get("/v1/repos", (c) => answer(c, repositoryPageJson(service.repositories(c.var.caller))));
  app.get("/v1/repo/availability", async (c) =>
    answer(
      c,
      availabilityJson(await service.availability(c.var.caller, { repo: single(c, "repo") })),
    ));
  app.get("/v1/repo/plugins", async (c) => {
    const repo = single(c, "repo");
    const revisions = c.req.queries("revision") ?? [];
    if (revisions.length > 1) {
      throw new SourcegraphError("INVALID_REQUEST", "give at most one revision parameter");
    }
    const catalog = await service.calls.pluginCatalog(c.var.caller, {
      repo,
      revision: revisions[0],
    });
    return answer(c, catalogJson(catalog));
  });
}

type Post = <T>(
  path: string,
  schema: z.ZodType<T>,
  run: (call: { caller: Caller; repo: string; body: T; requestId: string }) => Promise<unknown>,
) => void;

// A POST route: the repo parameter, then its strict body, then the call.
function postRoute(
  app: Hono<EdgeEnv>,
  at: { parse: <T>(c: Context<EdgeEnv>, schema: z.ZodType<T>) => Promise<T>; answer: Answer },
): Post {
  return (path, schema, run) => {
    app.post(path, async (c) => {
      const repo = single(c, "repo");
      const body = await at.parse(c, schema);
      return at.answer(
        c,
        await run({ caller: c.var.caller, repo, body, requestId: c.var.requestId }),
      );
    });
  };
}

// A search body's options in the domain's names.
function searchOptions(body: z.infer<typeof SearchBody>): Omit<RepositorySearchRequest, "repo"> {
  return {
    revision: body.Revision,
    pattern: body.Pattern,
    fixedStrings: body.FixedStrings,
    ignoreCase: body.IgnoreCase,
    glob: body.Glob,
    paths: body.Paths,
    output: body.Output,
    maxLinesPerFile: body.MaxLinesPerFile,
  };
}

// A symbol body's lookup in the domain's names.
function symbolLookup(body: z.infer<typeof SymbolsBody>) {
  return {
    revision: body.Revision,
    query: body.Query,
    match: body.Match,
    ignoreCase: body.IgnoreCase,
    kinds: body.Kinds,
    languages: body.Languages,
    paths: body.Paths,
    glob: body.Glob,
    first: body.First,
  };
}

// Search and symbols.
function searchRoutes(post: Post, service: RepositoryService): void {
  post("/v1/repo/symbols", SymbolsBody, async ({ caller, repo, body }) =>
    symbolsPageJson(
      await service.calls.symbols(caller, {
        ...symbolLookup(body),
        repo,
        after: body.After === undefined ? undefined : decodeSymbolCursor(body.After),
      }),
    ));
  post("/api/search", SearchBody, async ({ caller, repo, body, requestId }) =>
    searchJson(
      await service.calls.search(caller, { ...searchOptions(body), repo }),
      { requestId },
    ));
}

// Read, resolve, list and diff.
function readRoutes(post: Post, service: RepositoryService): void {
  post("/v1/repo/read", ReadBody, async ({ caller, repo, body }) =>
    fileJson(
      await service.calls.read(caller, {
        repo,
        path: body.Path,
        revision: body.Revision,
        startLine: body.StartLine,
        endLine: body.EndLine,
      }),
    ));
  post(
    "/v1/repo/resolve",
    ResolveBody,
    async ({ caller, repo, body }) =>
      resolvedJson(await service.resolveIndexed(caller, { repo, revision: body.Revision })),
  );
  post("/v1/repo/list", ListBody, async ({ caller, repo, body }) =>
    listingJson(
      await service.calls.list(caller, {
        repo,
        revision: body.Revision,
        path: body.Path,
        first: body.First,
        after: body.After,
      }),
    ));
  post("/v1/repo/diff", DiffBody, async ({ caller, repo, body }) =>
    changesJson(
      await service.calls.diff(caller, {
        repo,
        base: body.Base,
        head: body.Head,
        first: body.First,
        paths: body.Paths,
        after: body.After,
      }),
    ));
}

function single(c: Context<EdgeEnv>, name: string): string {
  const values = c.req.queries(name) ?? [];
  if (values.length !== 1 || values[0] === "") {
    throw new SourcegraphError("INVALID_REQUEST", `give exactly one ${name} parameter`);
  }
  return values[0];
}
