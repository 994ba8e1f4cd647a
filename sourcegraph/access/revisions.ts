/**
 * Revision rules: an omitted revision is the default branch, a monitored
 * branch is its last synced head, a full 40-hex SHA must be retained, and
 * everything else is refused with its code. Nothing here ever fetches.
 *
 * @module
 */

import type { ControlStore, RepositoryRecord } from "../store/control_store.ts";
import { quotedNames, SourcegraphError } from "../errors.ts";
import { nearestNames } from "../../shared/nearest_names.ts";

/** A resolved revision. */
export interface ResolvedRevision {
  commit: string;
  committerTime: number | null;
  /** The branch it came from, when it came from one. */
  branch?: string;
}

/** Resolves a caller's revision for `repo`. */
export function resolveRevision(
  store: ControlStore,
  repo: RepositoryRecord,
  options: { revision?: string },
): ResolvedRevision {
  const { revision } = options;
  if (repo.disabled) {
    throw new SourcegraphError("REPOSITORY_DISABLED", "the repository is disabled");
  }
  // Read only for a branch: a full SHA (each pin of a search across repositories) needs none.
  const heads = (): Map<string, string> => store.heads(repo.id);
  const monitored = new Set(repo.policy.branches);
  if (revision === undefined || revision === "") {
    if (repo.policy.defaultBranch) {
      const head = heads().get(repo.policy.defaultBranch);
      if (!head) {
        throw new SourcegraphError(
          "DEFAULT_BRANCH_NOT_OBSERVED",
          "the default branch has not been synced yet",
        );
      }
      return retained(store, repo, head, repo.policy.defaultBranch);
    }
    const candidates = ["main", "master"].filter((name) => monitored.has(name));
    if (candidates.length !== 1) {
      throw new SourcegraphError(
        "DEFAULT_BRANCH_UNDETERMINED",
        "no single default branch (main or master)",
      );
    }
    return branchHead(store, repo, heads(), candidates[0]);
  }
  const branch = revision.startsWith("refs/heads/")
    ? revision.slice("refs/heads/".length)
    : revision;
  // A monitored branch wins even when its name looks like a SHA.
  if (monitored.has(branch)) return branchHead(store, repo, heads(), branch);
  if (/^[0-9a-f]{40}$/.test(revision)) return retained(store, repo, revision);
  if (/^[0-9a-f]{1,39}$/.test(revision)) {
    throw new SourcegraphError(
      "SHORT_SHA_UNSUPPORTED",
      "use the full 40-character commit SHA",
      { hint: revisionHint(store, repo, revision) },
    );
  }
  if (
    revision === "HEAD" || revision.startsWith("refs/") ||
    /[\s~^:@{}\\*?[\]\p{Cc}]/u.test(revision) ||
    /^[0-9a-fA-F]{40,}$/.test(revision) || revision.includes("..") || revision.length > 255
  ) {
    throw new SourcegraphError(
      "INVALID_REVISION",
      "not a monitored branch or a full commit SHA",
      { hint: revisionHint(store, repo, revision) },
    );
  }
  throw new SourcegraphError("BRANCH_NOT_MONITORED", "the branch is not monitored", {
    hint: revisionHint(store, repo, revision),
  });
}

// How many retained versions a hint names (the newest); `availability` lists all.
const HINTED_VERSIONS = 5;

// What a caller may pass instead of `revision`: the monitored branches (the
// nearest first) and the newest retained versions, or those a short SHA begins.
function revisionHint(store: ControlStore, repo: RepositoryRecord, revision: string): string {
  const branches = nearestNames(revision, repo.policy.branches, { limit: 10 });
  const heads = store.heads(repo.id);
  const versions = store.versions(repo.id);
  const prefixed = versions.filter((version) => version.commit.startsWith(revision));
  const shown = (prefixed.length > 0 ? prefixed : versions).slice(0, HINTED_VERSIONS);
  const branchOf = new Map([...heads].map(([branch, commit]) => [commit, branch]));
  const listed = shown.map((version) => {
    const branch = branchOf.get(version.commit);
    return branch === undefined ? version.commit : `${version.commit} (${branch})`;
  });
  const parts = [
    branches.length === 0
      ? "No branch is monitored."
      : `Monitored branches: ${quotedNames(branches)}.`,
    listed.length === 0
      ? "No version is retained yet."
      : `${prefixed.length > 0 ? "Retained versions starting so" : "Newest retained versions"}: ${
        listed.join(", ")
      }${versions.length > shown.length ? ` (${versions.length} retained)` : ""}.`,
    "Omit revision for the default branch; `availability` lists every retained version.",
  ];
  return parts.join(" ");
}

function branchHead(
  store: ControlStore,
  repo: RepositoryRecord,
  heads: Map<string, string>,
  branch: string,
): ResolvedRevision {
  const head = heads.get(branch);
  if (!head) {
    throw new SourcegraphError("BRANCH_NOT_OBSERVED", "the branch has not been synced yet");
  }
  return retained(store, repo, head, branch);
}

function retained(
  store: ControlStore,
  repo: RepositoryRecord,
  commit: string,
  branch?: string,
): ResolvedRevision {
  const version = store.isRetained(repo.id, commit);
  if (!version) {
    throw new SourcegraphError(
      "REVISION_NOT_ELIGIBLE",
      "the commit is not a retained version",
      { hint: revisionHint(store, repo, commit) },
    );
  }
  return { commit, committerTime: version.committerTime, ...(branch ? { branch } : {}) };
}
