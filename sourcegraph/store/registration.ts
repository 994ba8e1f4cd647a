/**
 * The registration rules of a repository, shared by `sourcegraph.toml` and
 * the admin API: the name, the source, monitored branches (Git-safe names,
 * at most 64), the default branch (one of them), retention by count and/or
 * days, monorepo path groups (at most 64 groups of 64 paths) and the sync
 * interval. Each wire shape builds its schema from these pieces, maps its
 * snake_case fields to the store's records here, and checks the rules that
 * span fields with `registrationProblem`.
 *
 * @module
 */

import { z } from "zod";
import type { RepositoryRecord, RetentionPolicy } from "./control_store.ts";
import type { FetchCredential } from "../git/fetch_credentials.ts";

/** `owner/name` or `host/owner/name`. */
export const REPOSITORY_NAME = z.string().regex(
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,99}){1,2}$/,
);
/**
 * Anything `git fetch` accepts, except a URL carrying a password (secrets go
 * in a credential, which is never shown).
 */
export const SOURCE = z.string().min(1).max(4096).refine((source) => {
  try {
    return new URL(source).password === "";
  } catch {
    return true; // a path or an scp-like ssh address
  }
});
/** A branch name: no `..`, no leading `/`, letters, digits and `._/-` only. */
export const BRANCH = z.string().min(1).max(255).regex(/^(?!.*\.\.)(?!\/)[A-Za-z0-9._\/-]+$/);
/** The monitored branches. */
export const BRANCHES = z.array(BRANCH).min(1).max(64);
/** Versions kept by count. */
export const RETAIN_COUNT = z.number().int().min(1).max(10_000);
/** Versions kept by age in days. */
export const RETAIN_DAYS = z.number().int().min(1).max(3650);
/** Monorepo path groups. */
export const PATH_GROUPS = z.array(z.strictObject({
  name: z.string().min(1).max(64),
  paths: z.array(z.string().min(1).max(4096)).min(1).max(64),
})).max(64);
/** Minutes between syncs. */
export const SYNC_INTERVAL_MINUTES = z.number().int().min(1).max(10_080);
/** The default interval. */
export const DEFAULT_SYNC_INTERVAL_MINUTES = 5;
/** The retention policy as the admin API takes it. */
export const POLICY = z.strictObject({
  branches: BRANCHES,
  default_branch: BRANCH.optional(),
  count: RETAIN_COUNT.optional(),
  days: RETAIN_DAYS.optional(),
});

const USERNAME = z.string().min(1).max(256).regex(/^[\x21-\x7e]+$/).refine((name) =>
  !name.includes("=")
);
/** A fetch credential as the admin API takes it (its values, once; never answered back). */
export const CREDENTIAL = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("https"),
    username: USERNAME.optional(),
    token: z.string().min(1).max(4096).regex(/^[\x21-\x7e]+$/),
  }),
  z.strictObject({
    kind: z.literal("ssh"),
    private_key: z.string().min(1).max(16_384).regex(/PRIVATE KEY/),
    known_hosts: z.string().min(1).max(65_536),
  }),
]);
/** A fetch credential as `sourcegraph.toml` names it: files to read, never the secret inline. */
export const CREDENTIAL_FILES = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("https"),
    username: USERNAME.optional(),
    token_file: z.string().min(1).max(4096),
  }),
  z.strictObject({
    kind: z.literal("ssh"),
    private_key_file: z.string().min(1).max(4096),
    known_hosts_file: z.string().min(1).max(4096),
  }),
]);

/** A credential from its admin API form. */
export function credentialFromWire(wire: z.infer<typeof CREDENTIAL>): FetchCredential {
  return wire.kind === "https"
    ? { kind: "https", token: wire.token, ...(wire.username ? { username: wire.username } : {}) }
    : { kind: "ssh", privateKey: wire.private_key, knownHosts: wire.known_hosts };
}

/** The policy as the admin API and `sourcegraph.toml` spell it. */
export type PolicyWire = z.infer<typeof POLICY>;

/** A registration's policy from its wire form. */
export function policyFromWire(wire: PolicyWire): RetentionPolicy {
  return {
    branches: wire.branches,
    ...(wire.default_branch !== undefined ? { defaultBranch: wire.default_branch } : {}),
    ...(wire.count !== undefined ? { count: wire.count } : {}),
    ...(wire.days !== undefined ? { days: wire.days } : {}),
  };
}

/** The mutable fields of a registration as the admin API's update spells them. */
export interface UpdateWire {
  source?: string;
  public_read?: boolean;
  disabled?: boolean;
  path_groups?: RepositoryRecord["pathGroups"];
  policy?: PolicyWire;
  sync_interval_minutes?: number;
}

/** The record changes of an update from its wire form (absent fields stay as they are). */
export function updateFromWire(wire: UpdateWire): Partial<Omit<RepositoryRecord, "id" | "name">> {
  return {
    ...(wire.source !== undefined ? { source: wire.source } : {}),
    ...(wire.public_read !== undefined ? { publicRead: wire.public_read } : {}),
    ...(wire.disabled !== undefined ? { disabled: wire.disabled } : {}),
    ...(wire.path_groups !== undefined ? { pathGroups: wire.path_groups } : {}),
    ...(wire.policy !== undefined ? { policy: policyFromWire(wire.policy) } : {}),
    ...(wire.sync_interval_minutes !== undefined
      ? { syncIntervalMinutes: wire.sync_interval_minutes }
      : {}),
  };
}

/** What is wrong across the fields of a policy, or null. */
export function registrationProblem(policy: RetentionPolicy): string | null {
  if (policy.defaultBranch !== undefined && !policy.branches.includes(policy.defaultBranch)) {
    return "default_branch must be a monitored branch";
  }
  return null;
}
