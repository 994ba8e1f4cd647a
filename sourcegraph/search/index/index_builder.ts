/**
 * Building the index of one commit: list its regular files, index only the
 * blobs the repository's index does not have yet (streamed through Git
 * processes of its own, so reads of the service are never queued behind
 * them), stage
 * their texts in batches of about `BATCH_TEXT_BYTES`, then publish their
 * postings (one segment) with the commit's path → blob mapping in one
 * transaction, then merge small segments. Blobs searches skip (binary, not UTF-8, over the read scan
 * limit) are recorded as such and get no postings, exactly as searches
 * skip them.
 *
 * @module
 */

import { runGit } from "../../../shared/git.ts";
import { streamBlobs } from "../../../shared/git_objects.ts";
import { isRegularFile, parseTreeListing } from "../../../shared/tree_listing.ts";
import { READ_SCAN_LIMIT } from "../../read/file_read.ts";
import { searchableText } from "../searchable_text.ts";
import { utf8Length } from "../../../shared/text.ts";
import type { IndexDatabase } from "./index_database.ts";
import { encodeCommitFiles } from "./commit_files.ts";
import { mergeSegments } from "./segment_merge.ts";
import { PostingWriter } from "./postings.ts";
import type { TrigramCollector } from "./trigrams.ts";

/** Text indexed per batch (one segment, one transaction). */
export const BATCH_TEXT_BYTES = 8 * 1024 * 1024;

/** What one build did. */
export interface BuildStats {
  commit: string;
  files: number;
  /** Blobs indexed by this build (the others were indexed before). */
  newBlobs: number;
  /** Bytes of the new blobs. */
  newBytes: number;
  ms: number;
}

/** Indexes `commit` of `mirror` into `index` unless it is indexed already. */
export async function buildCommitIndex(
  index: IndexDatabase,
  request: {
    mirror: string;
    commit: string;
    collector: TrigramCollector;
    /** Checked between blobs: a build stops (writing nothing more) once it returns true. */
    cancelled?: () => boolean;
    batchTextBytes?: number;
    /** Hears of each batch written (for tests that stop a build at a chosen point). */
    onBatch?: () => void;
  },
): Promise<BuildStats | null> {
  const { mirror, commit, collector } = request;
  const started = performance.now();
  if (index.hasCommit(commit)) return null;
  const listing = await runGit(["ls-tree", "-r", "-z", "--full-tree", commit], {
    cwd: mirror,
    maxStdoutBytes: 256 * 1024 * 1024,
    timeoutMs: 60_000,
  });
  const files = parseTreeListing(listing.stdout).filter(isRegularFile)
    .map(({ oid, path }) => ({ oid, path }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  discardStaged(index);
  const known = new Map<string, number>();
  const lookup = index.db.prepare("SELECT id FROM blobs WHERE oid = ?");
  const fresh = new Set<string>();
  for (const { oid } of files) {
    if (known.has(oid) || fresh.has(oid)) continue;
    const row = lookup.get(oid) as { id: number } | undefined;
    if (row) known.set(oid, row.id);
    else fresh.add(oid);
  }
  const batch = new Batch(index, request.batchTextBytes ?? BATCH_TEXT_BYTES);
  let newBytes = 0;
  const reads = streamBlobs(mirror, { oids: [...fresh], maxBytes: READ_SCAN_LIMIT });
  try {
    for await (const read of reads) {
      const oid = read.oid;
      if (request.cancelled?.()) return null;
      const text = read.status === "ok" ? searchableText(read.bytes) : null;
      const size = read.status === "ok" || read.status === "too_large" ? read.size : 0;
      newBytes += size;
      known.set(
        oid,
        batch.add(oid, {
          // The searchable text as UTF-8: the blob's bytes without a leading byte-order mark.
          text: text === null || read.status !== "ok"
            ? null
            : read.bytes.subarray(read.bytes.length - utf8Length(text)),
          size,
          trigrams: text === null ? null : collector.collect(text),
        }),
      );
      if (batch.full) {
        batch.stage();
        request.onBatch?.();
      }
    }
  } finally {
    await reads.return(undefined);
  }
  if (request.cancelled?.()) return null;
  batch.stage();
  const mapping = encodeCommitFiles(
    files.map((file) => ({ path: file.path, blob: known.get(file.oid)! })),
  );
  batch.publish(() =>
    index.db.prepare(
      "INSERT OR IGNORE INTO commits(commit_id, files, paths, blob_ids) VALUES (?, ?, ?, ?)",
    ).run(commit, files.length, mapping.paths, mapping.blobIds)
  );
  request.onBatch?.();
  mergeSegments(index);
  index.compact();
  return {
    commit,
    files: files.length,
    newBlobs: fresh.size,
    newBytes,
    ms: Math.round(performance.now() - started),
  };
}

// Blobs of a build that never published (it was stopped or killed): their
// postings were never written, so they are read again by the next build.
function discardStaged(index: IndexDatabase): void {
  index.transaction(() => {
    index.db.exec(
      "DELETE FROM contents WHERE id IN (SELECT id FROM blobs WHERE indexed = 0); " +
        "DELETE FROM blobs WHERE indexed = 0;",
    );
  });
}

// The new blobs of one build: their rows and texts are staged in batches
// (bounded memory); their postings are gathered for the whole build and
// published with the commit in one transaction, which is also what marks
// the staged blobs indexed.
class Batch {
  #index: IndexDatabase;
  #limit: number;
  #staged: { id: number; oid: string; text: Uint8Array | null; size: number }[] = [];
  #postings = new Map<number, PostingWriter>();
  #textBytes = 0;
  #first: number;
  #next: number;

  constructor(index: IndexDatabase, limit: number) {
    this.#index = index;
    this.#limit = limit;
    this.#first = nextBlobId(index);
    this.#next = this.#first;
  }

  get full(): boolean {
    return this.#textBytes >= this.#limit;
  }

  /** Numbers a new blob and gathers its postings; returns its number. */
  add(
    oid: string,
    blob: { text: Uint8Array | null; size: number; trigrams: Uint32Array | null },
  ): number {
    const id = this.#next++;
    this.#staged.push({ id, oid, text: blob.text, size: blob.size });
    if (blob.text !== null) this.#textBytes += blob.text.length;
    for (const trigram of blob.trigrams ?? []) {
      let list = this.#postings.get(trigram);
      if (!list) {
        list = new PostingWriter();
        this.#postings.set(trigram, list);
      }
      list.add(id);
    }
    return id;
  }

  /** Writes the blobs gathered since the last call (not yet indexed: no postings). */
  stage(): void {
    if (this.#staged.length === 0) return;
    this.#index.transaction(() => {
      const db = this.#index.db;
      const insertBlob = db.prepare(
        "INSERT INTO blobs(id, oid, searchable, bytes, indexed) VALUES (?, ?, ?, ?, 0)",
      );
      const insertText = db.prepare("INSERT INTO contents(id, text) VALUES (?, ?)");
      for (const blob of this.#staged) {
        insertBlob.run(blob.id, blob.oid, blob.text === null ? 0 : 1, blob.size);
        if (blob.text !== null) insertText.run(blob.id, blob.text);
      }
    });
    this.#staged = [];
    this.#textBytes = 0;
  }

  /** Writes the postings as one segment, marks the blobs indexed and runs `alsoWrite`, atomically. */
  publish(alsoWrite: () => void): void {
    this.#index.transaction(() => {
      const db = this.#index.db;
      if (this.#next > this.#first) {
        let bytes = 0;
        for (const list of this.#postings.values()) bytes += list.byteLength;
        const segment = Number(
          db.prepare("INSERT INTO segments(bytes) VALUES (?)").run(bytes).lastInsertRowid,
        );
        const insertPosting = db.prepare(
          "INSERT INTO postings(trigram, segment, count, ids) VALUES (?, ?, ?, ?)",
        );
        for (const [trigram, list] of this.#postings) {
          insertPosting.run(trigram, segment, list.count, list.bytes());
        }
        db.prepare("UPDATE blobs SET indexed = 1 WHERE id >= ? AND id < ?").run(
          this.#first,
          this.#next,
        );
      }
      alsoWrite();
    });
    this.#postings = new Map();
  }
}

function nextBlobId(index: IndexDatabase): number {
  const row = index.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'blobs'").get() as
    | { seq: number }
    | undefined;
  const highest = index.db.prepare("SELECT MAX(id) AS id FROM blobs").get() as {
    id: number | null;
  };
  return Math.max(row?.seq ?? 0, highest.id ?? 0) + 1;
}
