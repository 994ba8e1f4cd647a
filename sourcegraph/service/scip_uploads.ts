/**
 * Uploading a commit's SCIP index: the commit must be a retained commit of
 * the repository; the body must decode as a SCIP `Index`; every document
 * must name a file of that commit (a relative path inside the repository).
 * Anything else is refused with one error and nothing is stored; an index
 * that passes is stored in its derived form, replacing an earlier one of
 * the same commit.
 *
 * Memory stays bounded whatever the body: it is written to a private temp
 * file as it arrives (never held whole), the SCIP worker
 * (`search/scip/scip_jobs.ts`) reads it back one document at a time and
 * writes the derived form to a second temp file in pieces, and that file is
 * renamed into place once every check passed. Both temp files are removed
 * on a refusal. In a cluster the derived form is shared (`ScipShare`)
 * before this replica keeps it: every owner of the repository then copies
 * it from the shared store.
 *
 * @module
 */

import * as fs from "node:fs";
import type { Caller } from "../access/caller.ts";
import type { Visibility } from "../access/visibility.ts";
import { commitPaths } from "../git/commit_paths.ts";
import type { MirrorReaders } from "../git/mirror_readers.ts";
import { SourcegraphError } from "../errors.ts";
import type { ScipSource } from "../search/scip/scip_derived.ts";
import type { DerivedUpload, ScipJobs } from "../search/scip/scip_jobs.ts";
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

/**
 * An upload's body: writes its bytes through `write` as they arrive (and
 * fails with the body's own error: too large, too slow).
 */
export type UploadBody = (write: (chunk: Uint8Array) => void) => Promise<void>;

/** The document paths of an upload that name no file of its commit: how many, and a few. */
export interface UnknownFiles {
  count: number;
  named: string[];
}

/** A checked upload, about to be kept. */
export interface CheckedScip {
  commit: string;
  /** The stored text (a private temp file). */
  stored: string;
  /** SHA-256 (hex) and size of the stored text. */
  digest: string;
  bytes: number;
  source: ScipSource;
}

/** Where uploads are shared between the replicas of a cluster. */
export interface ScipShare {
  /**
   * Stores a checked index in the shared store, whole or not at all, for
   * every owner of `repo`; whether this replica keeps a copy too.
   */
  publish(repo: RepositoryRecord, checked: CheckedScip): Promise<boolean>;
}

/** What an upload needs. */
export interface ScipUploadParts {
  visibility: Visibility;
  mirrors: MirrorReaders;
  scip: ScipIndexes;
  jobs: ScipJobs;
  /** The paths naming no file of the commit, checked where the repository is held. */
  unknownFiles?: (
    caller: Caller,
    request: { repo: string; commit: string; paths: string[] },
  ) => Promise<UnknownFiles>;
  share?: ScipShare | null;
}

/** Checks and stores one SCIP index of `repo` at `commit` (the service's caller). */
export async function uploadScip(
  repo: RepositoryRecord,
  upload: { commit: string; body: Uint8Array | UploadBody },
  parts: ScipUploadParts,
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
  const temp = parts.scip.incoming(repo.id, commit);
  try {
    await receive(temp.raw, upload.body);
    const derived = await parts.jobs.derive({ input: temp.raw, output: temp.stored, commit });
    fs.rmSync(temp.raw, { force: true });
    if (derived.paths.length === 0) {
      throw new SourcegraphError("SCIP_INVALID", "the index has no documents", {
        hint: "Upload the index file the indexer wrote (index.scip), unchanged.",
      });
    }
    const unknown = parts.unknownFiles ??
      ((_, request) => unknownFiles(parts.mirrors, repo, request));
    requireFiles(
      await inBatches(
        derived.paths,
        (paths) => unknown({ kind: "service" }, { repo: repo.name, commit, paths }),
      ),
    );
    await keep(repo, { ...checked(derived, { commit, stored: temp.stored }), parts });
    return {
      repo: repo.name,
      source: derived.source,
      documents: derived.paths.length,
      symbols: derived.symbols,
      occurrences: derived.occurrences,
    };
  } finally {
    parts.scip.release(temp);
  }
}

function checked(derived: DerivedUpload, at: { commit: string; stored: string }): CheckedScip {
  const { digest, bytes, source } = derived;
  return { commit: at.commit, stored: at.stored, digest, bytes, source };
}

// Shared first (a failure there keeps nothing), then kept here when this replica holds a copy.
async function keep(
  repo: RepositoryRecord,
  at: CheckedScip & { parts: ScipUploadParts },
): Promise<void> {
  const { parts, ...index } = at;
  const here = parts.share ? await parts.share.publish(repo, index) : true;
  if (here) parts.scip.install(repo.id, index);
}

// The body, written to the new private file `path` as it arrives.
async function receive(path: string, body: Uint8Array | UploadBody): Promise<void> {
  const fd = fs.openSync(
    path,
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL |
      (fs.constants.O_NOFOLLOW ?? 0),
    0o600,
  );
  const write = (chunk: Uint8Array) => {
    for (let done = 0; done < chunk.length;) {
      done += fs.writeSync(fd, chunk, done, chunk.length - done);
    }
  };
  try {
    if (body instanceof Uint8Array) write(body);
    else await body(write);
  } finally {
    fs.closeSync(fd);
  }
}

/** The paths of `request` naming no file of its commit in the mirror of `repo`. */
export async function unknownFiles(
  mirrors: MirrorReaders,
  repo: RepositoryRecord,
  request: { commit: string; paths: readonly string[] },
): Promise<UnknownFiles> {
  const files = new Set(await commitPaths(mirrors.path(repo), { commit: request.commit }));
  const missing = request.paths.filter((path) => !files.has(path));
  return { count: missing.length, named: missing.slice(0, 3) };
}

/** Most characters of paths checked in one call (in a cluster, one forwarded call of a few MiB). */
export const PATH_BATCH_CHARS = 1 << 20;

// The paths checked a batch at a time, the answers added up.
async function inBatches(
  paths: readonly string[],
  check: (paths: string[]) => Promise<UnknownFiles>,
): Promise<UnknownFiles> {
  const total: UnknownFiles = { count: 0, named: [] };
  for (let start = 0; start < paths.length;) {
    let end = start;
    for (let chars = 0; end < paths.length && (end === start || chars < PATH_BATCH_CHARS); end++) {
      chars += paths[end].length;
    }
    const found = await check(paths.slice(start, end));
    total.count += found.count;
    total.named.push(...found.named.slice(0, 3 - total.named.length));
    start = end;
  }
  return total;
}

// Every document names a file of the commit (never a path of another repository).
function requireFiles(unknown: UnknownFiles): void {
  if (unknown.count === 0) return;
  const named = unknown.named.map((path) => JSON.stringify(path.slice(0, 200))).join(", ");
  throw new SourcegraphError(
    "SCIP_UNKNOWN_FILE",
    `${unknown.count} document(s) name no file of this commit: ${named}`,
    {
      hint: "Index the checkout of this commit from the repository's root, and upload it " +
        "with the commit it was made from.",
    },
  );
}
