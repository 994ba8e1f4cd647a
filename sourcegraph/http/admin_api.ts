/**
 * The admin HTTP API under `/sourcegraph/api/admin/v1` (service token only):
 * register, update, disable and delete repositories, set, replace or remove
 * a repository's fetch credential (answers name its kind, never its value),
 * sync one now, upload a commit's SCIP index (the protobuf file as the body,
 * at most `SCIP_MAX_BYTES`), and create or revoke read-only personal keys (`sgk_…`, stored only
 * as SHA-256 hashes). Creating requests need an `Idempotency-Key`; other bodies are strict
 * JSON.
 *
 * @module
 */

import { type Context, Hono } from "hono";
import { DEFAULT_SYNC_INTERVAL_MINUTES } from "../store/registration.ts";
import { SourcegraphError } from "../errors.ts";
import { ADMIN_SCOPE } from "../oauth/oauth_server.ts";
import type { AdminService } from "../service/admin_service.ts";
import { IdempotencyRecords, type IdempotentRequest } from "../service/idempotency.ts";
import { summaryJson } from "../render/repository_json.ts";
import {
  CREATE,
  CREDENTIAL,
  credentialFromWire,
  KEY,
  pathGroupsFromWire,
  PIN,
  policyFromWire,
  UPDATE,
  updateFromWire,
} from "./admin_wire.ts";
import type { EdgeEnv } from "./edge_env.ts";
import { readBodyText, streamBody } from "./request_body.ts";
import { SCIP_MAX_BYTES } from "../search/scip/scip_store.ts";
import type { ScipUpload } from "../service/scip_uploads.ts";
import { parseStrictBody } from "./strict_json.ts";

/** The admin API as a sub-app, mounted at `/sourcegraph/api/admin/v1` (service token only). */
export function adminApp(admin: AdminService, options: { maxBodyBytes: number }): Hono<EdgeEnv> {
  const app = new Hono<EdgeEnv>();
  const text = (c: Context<EdgeEnv>) =>
    readBodyText(c.req.raw, c.var.bodyLimits(options.maxBodyBytes));
  // The idempotent request of this call: its key (header), and route and body as its fingerprint.
  const request = (c: Context<EdgeEnv>, scope: string, at: { route: string; raw: string }) => ({
    scope,
    key: idempotencyKey(c.req.raw),
    fingerprint: IdempotencyRecords.fingerprint(at.route, at.raw),
  });
  app.use(async (c, next) => {
    if (c.var.caller.kind !== "service") {
      throw new SourcegraphError(
        "AUTHENTICATION_REQUIRED",
        "the admin API needs the service token",
      );
    }
    if (c.var.scopes !== null && !c.var.scopes.includes(ADMIN_SCOPE)) {
      throw new SourcegraphError(
        "INSUFFICIENT_SCOPE",
        `the admin API needs the ${ADMIN_SCOPE} scope`,
      );
    }
    await next();
  });
  const io: BodyIo = { text, request };
  repositoryRoutes(app, admin, io);
  credentialRoutes(app, admin, io);
  keyRoutes(app, admin, io);
  pinRoutes(app, admin, io);
  app.post("/repo/scip", async (c) => {
    const name = repoParameter(c);
    const commit = c.req.queries("commit") ?? [];
    if (commit.length !== 1) {
      throw new SourcegraphError("INVALID_REQUEST", "give exactly one commit parameter");
    }
    admin.existing(name); // an unknown repository is refused before its body is read
    // Written to a file as it arrives: an upload is never held in memory whole.
    const limits = c.var.bodyLimits(SCIP_MAX_BYTES);
    const body = (write: (chunk: Uint8Array) => void) => streamBody(c.req.raw, limits, write);
    return c.json(scipUploadJson(await admin.uploadScip(name, { commit: commit[0], body })), 201);
  });
  app.all("*", () => {
    throw new SourcegraphError("NOT_FOUND", "no such endpoint");
  });
  return app;
}

// How a route reads its body and names its idempotent request.
interface BodyIo {
  text: (c: Context<EdgeEnv>) => Promise<string>;
  request: (
    c: Context<EdgeEnv>,
    scope: string,
    at: { route: string; raw: string },
  ) => IdempotentRequest;
}

// Registering (idempotent), changing, removing and syncing a repository now.
function repositoryRoutes(app: Hono<EdgeEnv>, admin: AdminService, io: BodyIo): void {
  const { text, request } = io;
  app.post("/repos", async (c) => {
    const raw = await text(c);
    const once = request(c, "admin", { route: "POST /repos", raw });
    const { answer } = await admin.idempotency.once(once, async () => {
      const body = parseStrictBody(CREATE, raw);
      const { repositoryId, summary } = await admin.register({
        name: body.name,
        source: body.source,
        publicRead: body.public_read,
        policy: policyFromWire(body.policy),
        pathGroups: pathGroupsFromWire(body),
        syncIntervalMinutes: body.sync_interval_minutes ?? DEFAULT_SYNC_INTERVAL_MINUTES,
      }, body.credential ? credentialFromWire(body.credential) : undefined);
      const result = { repo: summaryJson(summary), job: { job_id: once.key, state: "queued" } };
      return { repositoryId, answer: JSON.stringify(result) };
    });
    return c.json(JSON.parse(answer), 202);
  });
  app.patch("/repo", async (c) => {
    const name = repoParameter(c);
    const changes = updateFromWire(parseStrictBody(UPDATE, await text(c)));
    return c.json({ repo: summaryJson(await admin.update(name, changes)) });
  });
  app.delete("/repo", async (c) => {
    await admin.remove(repoParameter(c));
    return c.body(null, 204);
  });
  app.post("/repo/prepare", async (c) => {
    const name = repoParameter(c);
    const outcome = await admin.syncNow(name);
    return outcome.state === "succeeded"
      ? c.json({ repo: name, state: "succeeded", heads: outcome.heads })
      : c.json({ repo: name, state: "failed", code: outcome.code }, 502);
  });
}

// Setting (idempotent) and removing a repository's fetch credential.
function credentialRoutes(app: Hono<EdgeEnv>, admin: AdminService, io: BodyIo): void {
  const { text, request } = io;
  app.put("/repo/credential", async (c) => {
    const repo = admin.existing(repoParameter(c));
    const raw = await text(c);
    const once = request(c, "credential", { route: `PUT /repo/credential?${repo.name}`, raw });
    const { answer } = await admin.idempotency.once(once, async () => {
      const credential = credentialFromWire(parseStrictBody(CREDENTIAL, raw));
      await admin.setCredential(repo.name, credential);
      // The answer (and the stored replay) names the kind, never a value.
      const result = { repo: repo.name, credential: { kind: credential.kind } };
      return { repositoryId: repo.id, answer: JSON.stringify(result) };
    });
    return c.json(JSON.parse(answer));
  });
  app.delete("/repo/credential", async (c) => {
    await admin.removeCredential(repoParameter(c));
    return c.body(null, 204);
  });
}

// Creating (idempotent, the secret shown once) and revoking personal keys.
function keyRoutes(app: Hono<EdgeEnv>, admin: AdminService, io: BodyIo): void {
  const { text, request } = io;
  app.post("/keys", async (c) => {
    const raw = await text(c);
    const once = request(c, "key", { route: "POST /keys", raw });
    let secret: string | undefined;
    const { answer, replayed } = await admin.idempotency.once(once, async () => {
      const created = await admin.createKey(parseStrictBody(KEY, raw).name);
      secret = created.secret;
      const stored = JSON.stringify({ id: created.id, name: created.name });
      return { repositoryId: 0, answer: stored };
    });
    const created = JSON.parse(answer) as { id: string; name: string };
    if (!replayed) return c.json({ ...created, key: secret }, 201);
    if (!(await admin.keyExistsNow(created.id))) {
      throw new SourcegraphError(
        "KEY_REVOKED",
        "the key created with this Idempotency-Key has been revoked",
      );
    }
    // The secret is shown once; a replay returns the id only.
    return c.json({ ...created, replayed: true }, 201);
  });
  app.delete("/keys", async (c) => {
    await admin.revokeKey(c.req.query("id") ?? "");
    return c.body(null, 204);
  });
}

// Pinning a repository to named replicas of a cluster, and unpinning it.
function pinRoutes(app: Hono<EdgeEnv>, admin: AdminService, io: BodyIo): void {
  app.put("/repo/pin", async (c) => {
    const name = repoParameter(c);
    const body = parseStrictBody(PIN, await io.text(c));
    return c.json({ repo: name, pinned: await admin.pin(name, body.replicas) });
  });
  app.delete("/repo/pin", async (c) => {
    await admin.pin(repoParameter(c), null);
    return c.body(null, 204);
  });
}

function scipUploadJson(upload: ScipUpload): Record<string, unknown> {
  return {
    repo: upload.repo,
    commit: upload.source.commit,
    tool: { name: upload.source.tool, version: upload.source.version },
    documents: upload.documents,
    symbols: upload.symbols,
    occurrences: upload.occurrences,
  };
}

function idempotencyKey(request: Request): string {
  const key = request.headers.get("idempotency-key") ?? "";
  if (key.length < 8 || key.length > 128 || !/^[\x21-\x7e]+$/.test(key)) {
    throw new SourcegraphError(
      "IDEMPOTENCY_KEY_REQUIRED",
      "send an Idempotency-Key header of 8 to 128 characters",
    );
  }
  return key;
}

function repoParameter(c: Context<EdgeEnv>): string {
  const names = c.req.queries("repo") ?? [];
  if (names.length !== 1) {
    throw new SourcegraphError("INVALID_REQUEST", "give exactly one repo parameter");
  }
  return names[0];
}
