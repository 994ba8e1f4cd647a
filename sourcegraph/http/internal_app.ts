/**
 * The internal listener of a replica: what other replicas call, on its own
 * address (`SOURCEGRAPH_INTERNAL_LISTEN`), never on the public one. Its
 * socket belongs to a front of its own (`front_door.ts`: head and idle
 * timeouts, connection caps, descriptor back-off), so a client that never
 * finishes a head cannot hold a connection however the secret is checked.
 * Every request must carry the cluster secret (`Authorization: Bearer`,
 * compared in constant time); the caller a forwarded call names is trusted
 * only here, because only a replica that checked it knows the secret.
 *
 * - `POST /internal/v1/call`: a forwarded mirror read (`cluster/remote_calls.ts`);
 *   409 when this replica does not hold the repository (the sender asks
 *   the next holder).
 * - `GET /internal/v1/git/:id/info/refs?service=git-upload-pack` and
 *   `POST /internal/v1/git/:id/git-upload-pack`: Git's smart HTTP protocol
 *   over this replica's mirror, so a new owner fills its mirror from a
 *   holder instead of upstream.
 *
 * @module
 */

import { createHash, timingSafeEqual } from "node:crypto";
import { deserialize, serialize } from "node:v8";
import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { uploadPackAdvertisement, uploadPackResult } from "../../shared/git_upload_pack.ts";
import { internalError } from "../internal_error.ts";
import type { RoutedMethod } from "../service/routed_calls.ts";
import type { InternalParts } from "../cluster/cluster_member.ts";
import { CALL_CONTENT_TYPE, CALL_PATH, SYNC_PATH } from "../cluster/remote_calls.ts";
import { readBody } from "./request_body.ts";
import { httpStatus } from "./status_codes.ts";

const CALLER = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("anonymous") }),
  z.strictObject({ kind: z.literal("service") }),
  z.strictObject({ kind: z.literal("key"), id: z.string().min(1).max(64) }),
]);

// A forwarded call names one of `methods` (the routed calls' keys).
function callSchema(methods: readonly RoutedMethod[]) {
  return z.strictObject({
    method: z.enum(methods as [RoutedMethod, ...RoutedMethod[]]),
    caller: CALLER,
    repo: z.string().min(1).max(512),
    request: z.record(z.string(), z.unknown()),
    partial: z.boolean(),
  });
}

const SYNC = z.strictObject({ repositoryId: z.number().int().positive() });

const MAX_CALL_BYTES = 8 * 1024 * 1024;
const MAX_NEGOTIATION_BYTES = 64 * 1024 * 1024;
/** How long a request body to the internal listener may take to arrive. */
export const INTERNAL_BODY_TIMEOUT_MS = 60_000;

/** The internal app. */
export function internalApp(parts: InternalParts): Hono {
  const app = new Hono();
  const expected = digest(parts.secret);
  app.use("*", async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    const given = header.startsWith("Bearer ") ? header.slice(7) : "";
    if (!timingSafeEqual(digest(given), expected)) return c.json({ error: "unauthorized" }, 401);
    await next();
  });
  callRoutes(app, parts);
  gitRoutes(app, parts);
  app.onError((error, c) => {
    const requestId = crypto.randomUUID();
    const answer = internalError(error, { requestId, log: parts.log });
    return c.json({ error: answer.code }, httpStatus(answer.code) as ContentfulStatusCode);
  });
  return app;
}

// Forwarded reads and syncs asked of an owner; 409 when this replica is not the one to ask.
function callRoutes(app: Hono, parts: InternalParts): void {
  const forwarded = callSchema(parts.methods);
  app.post(CALL_PATH, async (c) => {
    const body = await readBody(c.req.raw, {
      maxBytes: MAX_CALL_BYTES,
      timeoutMs: INTERNAL_BODY_TIMEOUT_MS,
    });
    const parsed = forwarded.safeParse(decoded(body));
    if (!parsed.success) return encoded({ error: "malformed call" }, 400);
    const call = parsed.data;
    if (!parts.accepts(call)) return encoded({ notHeld: true }, 409);
    return await answered(
      parts,
      () => parts.serve(call),
    );
  });
  app.post(SYNC_PATH, async (c) => {
    const body = await readBody(c.req.raw, { maxBytes: 1024, timeoutMs: INTERNAL_BODY_TIMEOUT_MS });
    const parsed = SYNC.safeParse(decoded(body));
    if (!parsed.success) return encoded({ error: "malformed sync" }, 400);
    let owned = true;
    const answer = await answered(parts, async () => {
      const outcome = await parts.sync(parsed.data.repositoryId);
      owned = outcome !== null;
      return outcome;
    });
    return owned ? answer : encoded({ notHeld: true }, 409);
  });
}

// Git's smart HTTP fetch over the mirrors this replica holds.
function gitRoutes(app: Hono, parts: InternalParts): void {
  app.get("/internal/v1/git/:id/info/refs", async (c) => {
    const held = heldMirror(parts, c.req.param("id"));
    if (held === null || c.req.query("service") !== "git-upload-pack") return c.body(null, 404);
    return await uploadPackAdvertisement(held.path);
  });
  app.post("/internal/v1/git/:id/git-upload-pack", async (c) => {
    const held = heldMirror(parts, c.req.param("id"));
    if (held === null) return c.body(null, 404);
    const body = await readBody(c.req.raw, {
      maxBytes: MAX_NEGOTIATION_BYTES,
      timeoutMs: INTERNAL_BODY_TIMEOUT_MS,
    });
    return await uploadPackResult(held.path, {
      body,
      gzip: c.req.header("content-encoding") === "gzip",
      maxBytes: MAX_NEGOTIATION_BYTES,
    });
  });
}

// The result, or its error's code, message and hint (an unexpected one logged here, once).
async function answered(parts: InternalParts, work: () => Promise<unknown>): Promise<Response> {
  try {
    return encoded({ result: await work() }, 200);
  } catch (error) {
    const requestId = crypto.randomUUID();
    const answer = internalError(error, { requestId, log: parts.log });
    if (answer.code === "INTERNAL_ERROR") return encoded({ internal: requestId }, 500);
    return encoded(
      { error: { code: answer.code, message: answer.message, hint: answer.hint } },
      200,
    );
  }
}

// A body of V8's serialization (sent only by replicas holding the secret), or undefined.
function decoded(bytes: Uint8Array): unknown {
  try {
    return deserialize(bytes);
  } catch {
    return undefined;
  }
}

function encoded(value: unknown, status: number): Response {
  return new Response(new Uint8Array(serialize(value)), {
    status,
    headers: { "Content-Type": CALL_CONTENT_TYPE },
  });
}

function heldMirror(parts: InternalParts, id: string): { path: string } | null {
  if (!/^\d{1,15}$/.test(id)) return null;
  return parts.heldMirror(Number(id));
}

function digest(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}
