/**
 * The edge's error answer: a `SourcegraphError` keeps its code, with the
 * status `status_codes.ts` gives it; anything else is logged once with the
 * request id and its stack and answered `INTERNAL_ERROR` with that id only
 * (`internal_error.ts`). The body is `{"code","message"}` with an
 * `X-Request-ID` header. A body left unread is not worth receiving: its
 * connection closes after the answer.
 *
 * @example
 * ```ts
 * app.onError(edgeErrors(console.error));
 * ```
 *
 * @module
 */

import type { ErrorHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { internalError } from "../../internal_error.ts";
import type { EdgeEnv } from "../edge_env.ts";
import { httpStatus } from "../status_codes.ts";

/** The error handler of the edge (and of sub-apps without a wire of their own). */
export function edgeErrors(log: (message: string) => void): ErrorHandler<EdgeEnv> {
  return (error, c) => {
    const request = c.req.raw;
    if (request.body !== null && !request.bodyUsed) c.env?.connection?.closeSoon();
    const requestId = c.var.requestId ?? crypto.randomUUID();
    const known = internalError(error, { requestId, log });
    return c.json(
      { code: known.code, message: known.message },
      httpStatus(known.code) as ContentfulStatusCode,
      { "x-request-id": requestId },
    );
  };
}
