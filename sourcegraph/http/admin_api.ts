/**
 * The admin HTTP API under `/sourcegraph/api/admin/v1` (service token only):
 * register, update, disable and delete repositories, set, replace or remove
 * a repository's fetch credential (answers name its kind, never its value),
 * sync one now, and create or revoke read-only personal keys (`sgk_…`, stored only as SHA-256
 * hashes). Creating requests need an `Idempotency-Key`; bodies are strict
 * JSON.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { keyHash } from "../access/credentials.ts";
import { z } from "zod";
import type { ControlStore, RepositoryRecord, RetentionPolicy } from "../store/control_store.ts";
import {
  CREDENTIAL,
  credentialFromWire,
  DEFAULT_SYNC_INTERVAL_MINUTES,
  PATH_GROUPS,
  POLICY,
  policyFromWire,
  registrationProblem,
  REPOSITORY_NAME,
  SOURCE,
  SYNC_INTERVAL_MINUTES,
  updateFromWire,
} from "../store/registration.ts";
import { SourcegraphError } from "../errors.ts";
import { encodeHex } from "../../shared/text.ts";
import type { RepositoryService } from "../service/repository_service.ts";
import { parseStrictBody } from "./strict_json.ts";
import { summaryJson } from "../render/repository_json.ts";
import { type BodyLimits, readBodyText } from "./request_body.ts";
import type { SyncScheduler } from "../git/sync_scheduler.ts";
import { syncFailureCode } from "../git/fetch_failures.ts";

const PREFIX = "/sourcegraph/api/admin/v1";
const CreateSchema = z.strictObject({
  name: REPOSITORY_NAME,
  source: SOURCE,
  code_provider: z.enum(["github", "git"]).optional(),
  public_read: z.boolean(),
  index_mode: z.enum(["full", "monorepo"]).optional(),
  path_groups: PATH_GROUPS.optional(),
  policy: POLICY,
  sync_interval_minutes: SYNC_INTERVAL_MINUTES.optional(),
  credential: CREDENTIAL.optional(),
});
const UpdateSchema = z.strictObject({
  source: SOURCE.optional(),
  public_read: z.boolean().optional(),
  disabled: z.boolean().optional(),
  path_groups: PATH_GROUPS.optional(),
  policy: POLICY.optional(),
  sync_interval_minutes: SYNC_INTERVAL_MINUTES.optional(),
});
const KeySchema = z.strictObject({ name: z.string().min(1).max(128) });

/** Whether a path belongs to the admin API. */
export function isAdminPath(pathname: string): boolean {
  return pathname === PREFIX || pathname.startsWith(`${PREFIX}/`);
}

/** Handles one admin request by an authenticated service caller. */
export async function handleAdmin(
  request: Request,
  context: {
    url: URL;
    store: ControlStore;
    service: RepositoryService;
    scheduler: SyncScheduler;
    body: BodyLimits;
  },
): Promise<Response> {
  const { url } = context;
  const route = `${request.method} ${url.pathname.slice(PREFIX.length)}`;
  const { store, scheduler } = context;
  const text = () => readBodyText(request, context.body);
  switch (route) {
    case "POST /repos": {
      const key = idempotencyKey(request);
      const raw = await text();
      const earlier = replayable(store, `admin:${key}`, route, raw);
      if (earlier) return Response.json(JSON.parse(earlier.result), { status: 202 });
      const body = parseStrictBody(CreateSchema, raw);
      if (store.repository(body.name)) {
        throw new SourcegraphError("REPOSITORY_EXISTS", "a repository with this name exists");
      }
      const policy = policyFromWire(body.policy);
      checkPolicy(policy);
      const repo = store.register({
        name: body.name,
        source: body.source,
        publicRead: body.public_read,
        policy,
        pathGroups: body.index_mode === "monorepo" ? body.path_groups ?? [] : [],
        syncIntervalMinutes: body.sync_interval_minutes ?? DEFAULT_SYNC_INTERVAL_MINUTES,
      });
      if (body.credential) context.service.setCredential(repo, credentialFromWire(body.credential));
      const result = {
        repo: summaryJson(context.service.summary(repo)),
        job: { job_id: key, state: "queued" },
      };
      store.saveJob(`admin:${key}`, {
        repositoryId: repo.id,
        result: JSON.stringify(result),
        requestHash: requestHash(route, raw),
      });
      void scheduler.sync(repo).catch(() => {});
      return Response.json(result, { status: 202 });
    }
    case "PATCH /repo": {
      const repo = existing(store, url);
      const changes = updateFromWire(parseStrictBody(UpdateSchema, await text()));
      if (changes.policy) checkPolicy(changes.policy);
      const updated = store.update(repo.name, changes)!;
      return Response.json({ repo: summaryJson(context.service.summary(updated)) });
    }
    case "DELETE /repo": {
      await context.service.removeRepository(existing(store, url));
      return new Response(null, { status: 204 });
    }
    case "PUT /repo/credential": {
      const repo = existing(store, url);
      const key = idempotencyKey(request);
      const raw = await text();
      const earlier = replayable(store, `credential:${key}`, `${route}?${repo.name}`, raw);
      if (earlier) return Response.json(JSON.parse(earlier.result));
      const credential = credentialFromWire(parseStrictBody(CREDENTIAL, raw));
      context.service.setCredential(repo, credential);
      // The answer (and the stored replay) names the kind, never a value.
      const result = { repo: repo.name, credential: { kind: credential.kind } };
      store.saveJob(`credential:${key}`, {
        repositoryId: repo.id,
        result: JSON.stringify(result),
        requestHash: requestHash(`${route}?${repo.name}`, raw),
      });
      return Response.json(result);
    }
    case "DELETE /repo/credential": {
      const repo = existing(store, url);
      if (!context.service.removeCredential(repo)) {
        throw new SourcegraphError("CREDENTIAL_NOT_FOUND", "the repository has no credential");
      }
      return new Response(null, { status: 204 });
    }
    case "POST /repo/prepare": {
      const repo = existing(store, url);
      try {
        const outcome = await scheduler.sync(repo);
        return Response.json({ repo: repo.name, state: "succeeded", heads: outcome.heads });
      } catch (error) {
        return Response.json({ repo: repo.name, state: "failed", code: syncFailureCode(error) }, {
          status: 502,
        });
      }
    }
    case "POST /keys": {
      const key = idempotencyKey(request);
      const raw = await text();
      const earlier = replayable(store, `key:${key}`, route, raw);
      if (earlier) {
        const created = JSON.parse(earlier.result) as { id: string; name: string };
        if (!store.hasKey(created.id)) {
          throw new SourcegraphError(
            "KEY_REVOKED",
            "the key created with this Idempotency-Key has been revoked",
          );
        }
        // The secret is shown once; a replay returns the id only.
        return Response.json({ ...created, replayed: true }, { status: 201 });
      }
      const body = parseStrictBody(KeySchema, raw);
      const secret = `sgk_${randomHex(24)}`;
      const id = `key_${randomHex(8)}`;
      store.addKey(id, { keyHash: keyHash(secret), name: body.name });
      store.saveJob(`key:${key}`, {
        repositoryId: 0,
        result: JSON.stringify({ id, name: body.name }),
        requestHash: requestHash(route, raw),
      });
      return Response.json({ id, name: body.name, key: secret }, { status: 201 });
    }
    case "DELETE /keys": {
      const id = url.searchParams.get("id") ?? "";
      if (!store.removeKey(id)) throw new SourcegraphError("KEY_NOT_FOUND", "no such key");
      return new Response(null, { status: 204 });
    }
    default:
      throw new SourcegraphError("NOT_FOUND", "no such endpoint");
  }
}

/** The fingerprint of a request: same key + same fingerprint replays, another is refused. */
function requestHash(route: string, body: string): string {
  return createHash("sha256").update(`${route}\n${body}`).digest("hex");
}

/** The stored job of `key` when this request repeats it; IDEMPOTENCY_KEY_REUSED when it differs. */
function replayable(
  store: ControlStore,
  key: string,
  route: string,
  body: string,
): { result: string } | null {
  const earlier = store.job(key);
  if (!earlier) return null;
  if (earlier.requestHash !== requestHash(route, body)) {
    throw new SourcegraphError(
      "IDEMPOTENCY_KEY_REUSED",
      "this Idempotency-Key was used for a different request",
    );
  }
  return earlier;
}

function checkPolicy(policy: RetentionPolicy): void {
  const problem = registrationProblem(policy);
  if (problem !== null) throw new SourcegraphError("INVALID_REQUEST", problem);
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

function existing(store: ControlStore, url: URL): RepositoryRecord {
  const names = url.searchParams.getAll("repo");
  if (names.length !== 1) {
    throw new SourcegraphError("INVALID_REQUEST", "give exactly one repo parameter");
  }
  const repo = store.repository(names[0]);
  if (!repo) throw new SourcegraphError("REPOSITORY_NOT_FOUND", "no such repository");
  return repo;
}

function randomHex(bytes: number): string {
  return encodeHex(crypto.getRandomValues(new Uint8Array(bytes)));
}
