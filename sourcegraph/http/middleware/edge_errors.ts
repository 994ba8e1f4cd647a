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
 * import assert from "node:assert";
 * import { Hono } from "hono";
 * import { SourcegraphError } from "../../errors.ts";
 * import type { EdgeEnv } from "../edge_env.ts";
 * const logged: string[] = [];
 * const app = new Hono<EdgeEnv>();
 * app.onError(edgeErrors((line) => logged.push(line)));
 * app.get("/known", () => {
 *   throw new SourcegraphError("REPOSITORY_NOT_FOUND", "no repository org/x");
 * });
 * app.get("/bug", () => {
 *   throw new TypeError("a bug");
 * });
 * const known = await app.request("/known");
 * assert.strictEqual(known.status, 404);
 * assert.deepStrictEqual(await known.json(), {
 *   code: "REPOSITORY_NOT_FOUND",
 *   message: "no repository org/x",
 * });
 * assert.strictEqual(logged.length, 0);
 * const bug = await app.request("/bug");
 * const id = bug.headers.get("x-request-id");
 * assert.strictEqual(bug.status, 500);
 * assert.deepStrictEqual(await bug.json(), {
 *   code: "INTERNAL_ERROR",
 *   message: `internal error; request id ${id}`,
 * });
 * assert.strictEqual(logged.length, 1); // once, with the id and the stack
 * assert.ok(logged[0].includes(`request ${id}`) && logged[0].includes("TypeError: a bug"));
 * ```
 *
 * @module
 */

import type { Context, ErrorHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { internalError } from "../../internal_error.ts";
import type { EdgeEnv } from "../edge_env.ts";
import { httpStatus } from "../status_codes.ts";

/** The error handler of the edge (and of sub-apps without a wire of their own). */
export function edgeErrors(
  log: (message: string) => void,
  options: {
    /** The `WWW-Authenticate` value of an answer with error `code` (none when null). */
    challenge?: (c: Context<EdgeEnv>, code: string) => string | null;
  } = {},
): ErrorHandler<EdgeEnv> {
  return (error, c) => {
    const request = c.req.raw;
    if (request.body !== null && !request.bodyUsed) c.env?.connection?.closeSoon();
    const requestId = c.var.requestId ?? crypto.randomUUID();
    const known = internalError(error, { requestId, log });
    const challenge = options.challenge?.(c, known.code) ?? null;
    return c.json(
      { code: known.code, message: known.message },
      httpStatus(known.code) as ContentfulStatusCode,
      {
        "x-request-id": requestId,
        ...(challenge === null ? {} : { "www-authenticate": challenge }),
      },
    );
  };
}
