/**
 * The registration rules of a repository, whatever wire it arrives by
 * (`sourcegraph.toml`, the admin API): the name, the source, monitored
 * branches (Git-safe names, at most 64), the default branch (one of them),
 * retention by count and/or days, monorepo path groups (at most 64 groups of
 * 64 paths) and the sync interval. Each wire builds its own shape from these
 * values, maps its fields to the store's records at its edge, and checks
 * the rules that span fields with `registrationProblem`.
 *
 * @module
 */

import { z } from "zod";
import type { RetentionPolicy } from "./control_store.ts";

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
/** What a path group's folder must be, said to whoever registers one. */
export const PATH_GROUP_PATH_RULE =
  "a path group's path must be a folder relative to the repository root: no leading /, " +
  "no empty, . or .. parts (nor lookalikes of ., .., / or \\), no backslash, no control, " +
  "format or bidi character, no part starting or ending with a space, valid Unicode only";
/** What a path group's name must be, said to whoever registers one. */
export const PATH_GROUP_NAME_RULE =
  "a path group's name must be 1 to 64 characters of valid Unicode: no control, format or " +
  "bidi character, no line break, no leading or trailing space";

// Characters no folder or group name plausibly holds, and that make one read
// as something else: control characters (C0, DEL, C1), format characters
// (zero-width spaces and joiners, bidi embeddings, overrides and isolates, the
// byte order mark) and line or paragraph separators.
const INVISIBLE_OR_CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
// Characters that read as a slash or a backslash but are neither, and that
// NFKC keeps as they are (it maps the fullwidth and small forms itself).
const SLASH_LOOKALIKES = /[\u2044\u2215\u2216\u2571\u2572\u29f5\u29f8\u29f9]/u;

// Whether `text` is well-formed (no lone surrogate), has no invisible or
// control character and does not start or end with white space (which also
// refuses a text of white space only).
function isPlainText(text: string): boolean {
  return text.isWellFormed() && !INVISIBLE_OR_CONTROL.test(text) && !/^\s|\s$/u.test(text);
}

// Whether one part of a folder path names a folder and reads as what it is:
// not empty, `.` or `..`, nor a lookalike of them or of a slash.
function isFolderPart(part: string): boolean {
  if (part === "" || part === "." || part === ".." || !isPlainText(part)) return false;
  if (SLASH_LOOKALIKES.test(part)) return false;
  const compatible = part.normalize("NFKC");
  return !/[\/\\]/.test(compatible) && !(part !== compatible && /^\.+$/.test(compatible));
}

/**
 * Whether `path` names a folder inside the repository as the path scope
 * compares folders (`docs`, `docs/public`; trailing slashes are dropped):
 * `/`, `../..` or `docs/./private` would be stored as given and then match
 * nothing, or not what was meant, and `․․`, `docs∕private` or
 * a part with a bidi override would read as another folder than it is.
 */
export function isPathGroupPath(path: string): boolean {
  const folder = path.replace(/\/+$/, "");
  return folder.length > 0 && !folder.startsWith("/") && !folder.includes("\\") &&
    folder.split("/").every(isFolderPart);
}

/**
 * Whether `name` can name a path group: shown to every caller who may read
 * the repository, so it is 1 to 64 characters of plain text
 * (`PATH_GROUP_NAME_RULE`).
 */
export function isPathGroupName(name: string): boolean {
  return name.length >= 1 && name.length <= 64 && isPlainText(name);
}

/** A path group's folder (`isPathGroupPath`). */
export const PATH_GROUP_PATH = z.string().min(1).max(4096).refine(isPathGroupPath, {
  message: PATH_GROUP_PATH_RULE,
});
/** A path group's name (`isPathGroupName`). */
export const PATH_GROUP_NAME = z.string().refine(isPathGroupName, {
  message: PATH_GROUP_NAME_RULE,
});
/** Monorepo path groups. */
export const PATH_GROUPS = z.array(z.strictObject({
  name: PATH_GROUP_NAME,
  paths: z.array(PATH_GROUP_PATH).min(1).max(64),
})).max(64);
/** How a registration is indexed: the whole repository, or its path groups only. */
export const INDEX_MODE = z.enum(["full", "monorepo"]);

/**
 * What is wrong between a registration's index mode and its path groups
 * (`groups`: how many it gives), or null. Path groups alone mean
 * "monorepo"; "full" with path groups is refused rather than either
 * dropping the groups (and showing the whole repository) or keeping them
 * against what was asked, and "monorepo" without a group would show
 * everything.
 */
export function indexModeProblem(
  indexMode: "full" | "monorepo" | undefined,
  groups: number,
): string | null {
  if (indexMode === "full" && groups > 0) {
    return 'path groups need index_mode "monorepo" (or no index_mode); ' +
      '"full" makes the whole repository visible: give "monorepo" or remove path_groups';
  }
  if (indexMode === "monorepo" && groups === 0) {
    return 'index_mode "monorepo" needs at least one path group: give path_groups';
  }
  return null;
}

/** Minutes between syncs. */
export const SYNC_INTERVAL_MINUTES = z.number().int().min(1).max(10_080);
/** The default interval. */
export const DEFAULT_SYNC_INTERVAL_MINUTES = 5;
/** What is wrong across the fields of a policy, or null. */
export function registrationProblem(policy: RetentionPolicy): string | null {
  if (policy.defaultBranch !== undefined && !policy.branches.includes(policy.defaultBranch)) {
    return "default_branch must be a monitored branch";
  }
  return null;
}
