/**
 * The optional `sourcegraph.toml` in the working directory: repositories to
 * register at start (those already registered keep their stored settings;
 * the admin API changes them later).
 *
 * ```toml
 * [[repositories]]
 * name = "org/app"
 * source = "https://example.org/org/app.git"
 * public_read = false
 * branches = ["main"]
 * default_branch = "main"
 * retain_count = 20
 * path_groups = [{ name = "docs", paths = ["docs"] }] # index_mode "monorepo"
 * ```
 *
 * @module
 */

import * as fs from "node:fs";
import { parse } from "smol-toml";
import { z } from "zod";
import {
  type ControlStore,
  type NewRepository,
  RepositoryNameTaken,
  type RepositoryRecord,
} from "../store/control_store.ts";
import {
  CREDENTIAL_VALUES,
  FETCH_CREDENTIAL,
  type FetchCredential,
} from "../store/fetch_credentials.ts";
import {
  BRANCH,
  BRANCHES,
  DEFAULT_SYNC_INTERVAL_MINUTES,
  INDEX_MODE,
  indexModeProblem,
  PATH_GROUPS,
  registrationProblem,
  REPOSITORY_NAME,
  RETAIN_COUNT,
  RETAIN_DAYS,
  SOURCE,
  SYNC_INTERVAL_MINUTES,
} from "../store/registration.ts";

/** A fetch credential as `sourcegraph.toml` names it: files to read, never the secret inline. */
const CREDENTIAL_FILES = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("https"),
    username: CREDENTIAL_VALUES.username.optional(),
    token_file: z.string().min(1).max(4096),
  }),
  z.strictObject({
    kind: z.literal("ssh"),
    private_key_file: z.string().min(1).max(4096),
    known_hosts_file: z.string().min(1).max(4096),
  }),
]);

const RepositoryEntry = z.strictObject({
  name: REPOSITORY_NAME,
  source: SOURCE,
  public_read: z.boolean().default(false),
  branches: BRANCHES,
  default_branch: BRANCH.optional(),
  retain_count: RETAIN_COUNT.optional(),
  retain_days: RETAIN_DAYS.optional(),
  index_mode: INDEX_MODE.optional(),
  path_groups: PATH_GROUPS.default([]),
  sync_interval_minutes: SYNC_INTERVAL_MINUTES.default(DEFAULT_SYNC_INTERVAL_MINUTES),
  credential: CREDENTIAL_FILES.optional(),
}).superRefine((entry, context) => {
  // As the admin API: path groups mean "monorepo", and the two never disagree.
  const problem = indexModeProblem(entry.index_mode, entry.path_groups.length);
  if (problem !== null) {
    context.addIssue({ code: "custom", path: ["path_groups"], message: problem });
  }
});
const ConfigFile = z.strictObject({ repositories: z.array(RepositoryEntry).default([]) });

/**
 * Reads `path` if it exists and registers new repositories; returns their
 * names. A `credential` entry's files are read at every start and stored
 * through `setCredential` (editing a file and restarting rotates it).
 */
export async function applyConfigFile(
  path: string,
  store: ControlStore,
  options: {
    setCredential?: (repo: RepositoryRecord, credential: FetchCredential) => Promise<void>;
  } = {},
): Promise<string[]> {
  let text: string;
  try {
    text = fs.readFileSync(path, "utf8");
  } catch {
    return [];
  }
  let config: z.infer<typeof ConfigFile>;
  try {
    config = ConfigFile.parse(parse(text));
  } catch (error) {
    throw new Error(`sourcegraph.toml is invalid: ${configProblem(error)}`);
  }
  const policies = config.repositories.map((entry) => ({
    branches: entry.branches,
    ...(entry.default_branch ? { defaultBranch: entry.default_branch } : {}),
    ...(entry.retain_count ? { count: entry.retain_count } : {}),
    ...(entry.retain_days ? { days: entry.retain_days } : {}),
  }));
  for (const [i, policy] of policies.entries()) {
    const problem = registrationProblem(policy);
    if (problem !== null) {
      throw new Error(`sourcegraph.toml is invalid: ${config.repositories[i].name}: ${problem}`);
    }
  }
  const added: string[] = [];
  for (const [i, entry] of config.repositories.entries()) {
    if (store.repository(entry.name)) continue;
    const registered = await registerOnce(store, {
      name: entry.name,
      source: entry.source,
      publicRead: entry.public_read,
      policy: policies[i],
      pathGroups: entry.path_groups,
      syncIntervalMinutes: entry.sync_interval_minutes,
    });
    if (registered) added.push(entry.name);
  }
  for (const entry of config.repositories) {
    if (entry.credential === undefined || options.setCredential === undefined) continue;
    await options.setCredential(store.repository(entry.name)!, readCredentialFiles(entry));
  }
  return added;
}

function readCredentialFiles(
  entry: { name: string; credential?: z.infer<typeof CREDENTIAL_FILES> },
): FetchCredential {
  const credential = entry.credential!;
  const read = (file: string) => {
    try {
      return fs.readFileSync(file, "utf8");
    } catch {
      throw new Error(
        `sourcegraph.toml: ${entry.name}: the credential file ${file} cannot be read`,
      );
    }
  };
  const values = credential.kind === "https"
    ? {
      kind: "https" as const,
      token: read(credential.token_file).trim(),
      ...(credential.username ? { username: credential.username } : {}),
    }
    : {
      kind: "ssh" as const,
      privateKey: read(credential.private_key_file),
      knownHosts: read(credential.known_hosts_file),
    };
  const parsed = FETCH_CREDENTIAL.safeParse(values);
  if (!parsed.success) {
    throw new Error(
      `sourcegraph.toml: ${entry.name}: the credential files do not hold a valid credential`,
    );
  }
  return parsed.data;
}

/**
 * Registers `repository` unless another process sharing the store (a
 * replica starting from the same file) just did; whether this call did.
 */
export async function registerOnce(
  store: ControlStore,
  repository: NewRepository,
): Promise<boolean> {
  try {
    await store.register(repository);
    return true;
  } catch (error) {
    if (error instanceof RepositoryNameTaken) return false;
    throw error;
  }
}

// One line on what is wrong: the first schema issue with where it is
// (`repositories.0.path_groups.0.paths.0: …`), else the parser's first line.
function configProblem(error: unknown): string {
  if (error instanceof z.ZodError) {
    const issue = error.issues[0];
    if (issue !== undefined) {
      const at = issue.path.map(String).join(".");
      return at === "" ? issue.message : `${at}: ${issue.message}`;
    }
  }
  return error instanceof Error ? error.message.split("\n")[0] : "parse error";
}
