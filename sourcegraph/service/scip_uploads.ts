/**
 * Uploading a commit's SCIP index: the commit must be a retained commit of
 * the repository; the body must decode as a SCIP `Index`; every document
 * must name a file of that commit (a relative path inside the repository).
 * Anything else is refused with one error and nothing is stored; an index
 * that passes is stored in its derived form, replacing an earlier one of
 * the same commit. Decoding and deriving run in the SCIP worker
 * (`search/scip/scip_jobs.ts`), never on the service's thread.
 *
 * @module
 */

import type { Visibility } from "../access/visibility.ts";
import { commitPaths } from "../git/commit_paths.ts";
import type { MirrorReaders } from "../git/mirror_readers.ts";
import { SourcegraphError } from "../errors.ts";
import type { ScipSource } from "../search/scip/scip_derived.ts";
import type { ScipJobs } from "../search/scip/scip_jobs.ts";
import type { ScipIndexes } from "../search/scip/scip_store.ts";
import type { RepositoryRecord } from "../store/control_store.ts";

/** What an upload stored. */
export interface ScipUpload {
  repo: string;
  source: ScipSource;
  documents: number;
  symbols: number;
  occurrences: number;
}

/** Checks and stores one SCIP index of `repo` at `commit` (the service's caller). */
export async function uploadScip(
  repo: RepositoryRecord,
  upload: { commit: string; bytes: Uint8Array },
  parts: { visibility: Visibility; mirrors: MirrorReaders; scip: ScipIndexes; jobs: ScipJobs },
): Promise<ScipUpload> {
  if (!/^[0-9a-f]{40}$/.test(upload.commit)) {
    throw new SourcegraphError("INVALID_REQUEST", "commit must be a full 40-character SHA", {
      hint: "Pass the commit the index was made from: git rev-parse HEAD.",
    });
  }
  // A commit the service does not retain is refused as any read of it is.
  const { commit } = parts.visibility.resolve({ kind: "service" }, {
    repo: repo.name,
    revision: upload.commit,
  });
  const derived = await parts.jobs.derive(upload.bytes, commit);
  if (derived.paths.length === 0) {
    throw new SourcegraphError("SCIP_INVALID", "the index has no documents", {
      hint: "Upload the index file the indexer wrote (index.scip), unchanged.",
    });
  }
  await requireFiles(derived.paths, { mirror: parts.mirrors.path(repo), commit });
  parts.scip.putText(repo.id, { commit, text: derived.text });
  return {
    repo: repo.name,
    source: derived.source,
    documents: derived.paths.length,
    symbols: derived.symbols,
    occurrences: derived.occurrences,
  };
}

// Every document names a file of the commit (never a path of another repository).
async function requireFiles(
  paths: readonly string[],
  at: { mirror: string; commit: string },
): Promise<void> {
  const files = new Set(await commitPaths(at.mirror, { commit: at.commit }));
  const missing = paths.filter((path) => !files.has(path));
  if (missing.length === 0) return;
  const named = missing.slice(0, 3).map((path) => JSON.stringify(path.slice(0, 200))).join(", ");
  throw new SourcegraphError(
    "SCIP_UNKNOWN_FILE",
    `${missing.length} document(s) name no file of this commit: ${named}`,
    {
      hint: "Index the checkout of this commit from the repository's root, and upload it " +
        "with the commit it was made from.",
    },
  );
}
