/**
 * The admin API's bodies (snake_case JSON, strict) and their mapping to the
 * store's records and the service's values: a registration, an update, a
 * fetch credential (its values arrive once and are never answered back) and
 * a personal key's name. Field rules come from `store/registration.ts` and
 * `store/fetch_credentials.ts`.
 *
 * @module
 */

import { z } from "zod";
import {
  CREDENTIAL_VALUES,
  type FetchCredential,
  HTTPS_CREDENTIAL,
} from "../store/fetch_credentials.ts";
import type { PathGroup, RepositoryUpdate, RetentionPolicy } from "../store/control_store.ts";
import {
  BRANCH,
  BRANCHES,
  INDEX_MODE,
  indexModeProblem,
  PATH_GROUPS,
  REPOSITORY_NAME,
  RETAIN_COUNT,
  RETAIN_DAYS,
  SOURCE,
  SYNC_INTERVAL_MINUTES,
} from "../store/registration.ts";

/** The retention policy as the admin API takes it. */
export const POLICY = z.strictObject({
  branches: BRANCHES,
  default_branch: BRANCH.optional(),
  count: RETAIN_COUNT.optional(),
  days: RETAIN_DAYS.optional(),
});

/** A fetch credential as the admin API takes it. */
export const CREDENTIAL = z.discriminatedUnion("kind", [
  HTTPS_CREDENTIAL,
  z.strictObject({
    kind: z.literal("ssh"),
    private_key: CREDENTIAL_VALUES.privateKey,
    known_hosts: CREDENTIAL_VALUES.knownHosts,
  }),
]);

// The index mode and the path groups of a body agree (`indexModeProblem`),
// said as a problem of `path_groups`.
function agreeingIndexMode(
  body: { index_mode?: "full" | "monorepo"; path_groups?: unknown[] },
  context: z.RefinementCtx,
): void {
  const problem = indexModeProblem(body.index_mode, body.path_groups?.length ?? 0);
  if (problem !== null) {
    context.addIssue({ code: "custom", path: ["path_groups"], message: problem });
  }
}

/** `POST /repos`: path groups mean "monorepo" (`indexModeProblem`). */
export const CREATE = z.strictObject({
  name: REPOSITORY_NAME,
  source: SOURCE,
  code_provider: z.enum(["github", "git"]).optional(),
  public_read: z.boolean(),
  index_mode: INDEX_MODE.optional(),
  path_groups: PATH_GROUPS.optional(),
  policy: POLICY,
  sync_interval_minutes: SYNC_INTERVAL_MINUTES.optional(),
  credential: CREDENTIAL.optional(),
}).superRefine(agreeingIndexMode);

/**
 * `PATCH /repo`: `path_groups` replaces the groups (`[]` removes them);
 * `index_mode` "full" alone removes them too, "monorepo" needs path groups.
 */
export const UPDATE = z.strictObject({
  source: SOURCE.optional(),
  public_read: z.boolean().optional(),
  disabled: z.boolean().optional(),
  index_mode: INDEX_MODE.optional(),
  path_groups: PATH_GROUPS.optional(),
  policy: POLICY.optional(),
  sync_interval_minutes: SYNC_INTERVAL_MINUTES.optional(),
}).superRefine(agreeingIndexMode);

/** `POST /keys`. */
export const KEY = z.strictObject({ name: z.string().min(1).max(128) });

/** `PUT /repo/pin`: the replicas that own the repository while they are alive. */
export const PIN = z.strictObject({
  replicas: z.array(z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/)).min(1).max(16),
});

/** A credential from its admin API form. */
export function credentialFromWire(wire: z.infer<typeof CREDENTIAL>): FetchCredential {
  return wire.kind === "https"
    ? { kind: "https", token: wire.token, ...(wire.username ? { username: wire.username } : {}) }
    : { kind: "ssh", privateKey: wire.private_key, knownHosts: wire.known_hosts };
}

/** A registration's policy from its admin API form. */
export function policyFromWire(wire: z.infer<typeof POLICY>): RetentionPolicy {
  return {
    branches: wire.branches,
    ...(wire.default_branch !== undefined ? { defaultBranch: wire.default_branch } : {}),
    ...(wire.count !== undefined ? { count: wire.count } : {}),
    ...(wire.days !== undefined ? { days: wire.days } : {}),
  };
}

/** The path groups of a registration (path groups alone mean "monorepo"). */
export function pathGroupsFromWire(wire: z.infer<typeof CREATE>): PathGroup[] {
  return wire.path_groups ?? [];
}

/** The record changes of an update (absent fields stay as they are). */
export function updateFromWire(wire: z.infer<typeof UPDATE>): RepositoryUpdate {
  const pathGroups = wire.path_groups ?? (wire.index_mode === "full" ? [] : undefined);
  return {
    ...(wire.source !== undefined ? { source: wire.source } : {}),
    ...(wire.public_read !== undefined ? { publicRead: wire.public_read } : {}),
    ...(wire.disabled !== undefined ? { disabled: wire.disabled } : {}),
    ...(pathGroups !== undefined ? { pathGroups } : {}),
    ...(wire.policy !== undefined ? { policy: policyFromWire(wire.policy) } : {}),
    ...(wire.sync_interval_minutes !== undefined
      ? { syncIntervalMinutes: wire.sync_interval_minutes }
      : {}),
  };
}
