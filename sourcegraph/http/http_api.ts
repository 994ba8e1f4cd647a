/**
 * The plain HTTP API under `/sourcegraph` (same auth and visibility as MCP):
 * `POST /v1/repo/{read,list,diff,resolve}?repo=` and `POST /api/search?repo=`
 * with strict JSON bodies of Go-style field names, `GET /v1/repos`,
 * `GET /v1/repo/availability?repo=` and `GET /v1/repo/plugins?repo=`.
 * Answers use Go-style names too (`http_json.ts`). Reads here run no
 * plugins. Errors are `{"Error","Meta":{"Protocol","RequestID","Status":
 * "error","Code"}}` with an `X-Request-ID` header.
 *
 * @module
 */

import { z } from "zod";
import { SourcegraphError } from "../errors.ts";
import type { Caller } from "../access/caller.ts";
import type { RepositoryService } from "../service/repository_service.ts";
import { parseStrictBody } from "./strict_json.ts";
import { type BodyLimits, readBodyText } from "./request_body.ts";
import { internalError } from "./internal_error.ts";
import { httpStatus } from "./status_codes.ts";
import {
  availabilityJson,
  catalogJson,
  changesJson,
  errorJson,
  fileJson,
  listingJson,
  repositoryPageJson,
  resolvedJson,
  searchJson,
} from "./http_json.ts";

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

/** Whether a path belongs to this API. */
export function isHttpApiPath(pathname: string): boolean {
  return pathname.startsWith("/sourcegraph/v1/") || pathname === "/sourcegraph/api/search";
}

/** Handles one request; errors become the API's error JSON. */
export async function handleHttpApi(
  request: Request,
  context: {
    url: URL;
    service: RepositoryService;
    caller: Caller;
    requestId: string;
    body: BodyLimits;
    log: (message: string) => void;
  },
): Promise<Response> {
  const { url, service, caller, requestId } = context;
  const headers = { "x-request-id": requestId };
  const parse = async <T>(schema: z.ZodType<T>): Promise<T> =>
    parseStrictBody(schema, await readBodyText(request, context.body));
  try {
    const route = `${request.method} ${url.pathname.slice("/sourcegraph".length)}`;
    if (route === "GET /v1/repos") {
      return Response.json(repositoryPageJson(service.repositories(caller)), { headers });
    }
    const repo = single(url, "repo");
    switch (route) {
      case "GET /v1/repo/availability":
        return Response.json(availabilityJson(await service.availability(caller, { repo })), {
          headers,
        });
      case "GET /v1/repo/plugins": {
        const revisions = url.searchParams.getAll("revision");
        if (revisions.length > 1) {
          throw new SourcegraphError("INVALID_REQUEST", "give at most one revision parameter");
        }
        const catalog = await service.pluginCatalog(caller, { repo, revision: revisions[0] });
        return Response.json(catalogJson(catalog), { headers });
      }
      case "POST /v1/repo/read": {
        const body = await parse(ReadBody);
        const file = await service.read(caller, {
          repo,
          path: body.Path,
          revision: body.Revision,
          startLine: body.StartLine,
          endLine: body.EndLine,
        });
        return Response.json(fileJson(file), { headers });
      }
      case "POST /v1/repo/resolve": {
        const body = await parse(ResolveBody);
        const resolved = service.resolve(caller, { repo, revision: body.Revision });
        return Response.json(resolvedJson(resolved), { headers });
      }
      case "POST /v1/repo/list": {
        const body = await parse(ListBody);
        const listing = await service.list(caller, {
          repo,
          revision: body.Revision,
          path: body.Path,
          first: body.First,
          after: body.After,
        });
        return Response.json(listingJson(listing), { headers });
      }
      case "POST /v1/repo/diff": {
        const body = await parse(DiffBody);
        const changes = await service.diff(caller, {
          repo,
          base: body.Base,
          head: body.Head,
          first: body.First,
          paths: body.Paths,
          after: body.After,
        });
        return Response.json(changesJson(changes), { headers });
      }
      case "POST /api/search": {
        const body = await parse(SearchBody);
        const found = await service.search(caller, {
          repo,
          revision: body.Revision,
          pattern: body.Pattern,
          fixedStrings: body.FixedStrings,
          ignoreCase: body.IgnoreCase,
          glob: body.Glob,
          paths: body.Paths,
          output: body.Output,
          maxLinesPerFile: body.MaxLinesPerFile,
        });
        return Response.json(searchJson(found, { requestId }), { headers });
      }
      default:
        throw new SourcegraphError("NOT_FOUND", "no such endpoint");
    }
  } catch (error) {
    const known = internalError(error, { requestId, log: context.log });
    return Response.json(errorJson(known, requestId), { status: httpStatus(known.code), headers });
  }
}

function single(url: URL, name: string): string {
  const values = url.searchParams.getAll(name);
  if (values.length !== 1 || values[0] === "") {
    throw new SourcegraphError("INVALID_REQUEST", `give exactly one ${name} parameter`);
  }
  return values[0];
}
