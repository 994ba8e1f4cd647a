/**
 * Querying an index: the files of an indexed commit whose blobs hold every
 * trigram a query requires. Posting lists of one trigram are read from each
 * segment and united; an AND intersects its parts smallest first and stops
 * once nothing is left. Candidates come back in path order with their blob
 * ids, ready to be verified.
 *
 * @module
 */

import type { StatementSync } from "node:sqlite";
import { type CommitFiles, decodeCommitFiles } from "./commit_files.ts";
import type { IndexDatabase } from "./index_database.ts";
import { decodePostings, intersect, union } from "./postings.ts";
import type { TrigramQuery } from "./trigram_query.ts";

/** A file to verify. */
export interface Candidate {
  path: string;
  /** The blob's number in the index. */
  blob: number;
}

/** One indexed commit, ready for queries. */
export class IndexedCommit {
  readonly commit: string;
  #files: CommitFiles;
  #postings: StatementSync;
  #text: StatementSync;

  /** `commit` of `index`, whose files were loaded. */
  constructor(index: IndexDatabase, commit: string, files: CommitFiles) {
    this.commit = commit;
    this.#files = files;
    this.#postings = index.db.prepare("SELECT count, ids FROM postings WHERE trigram = ?");
    this.#text = index.db.prepare("SELECT text FROM contents WHERE id = ?");
  }

  /** Loads `commit` of `index`; null when it is not fully indexed. */
  static open(index: IndexDatabase, commit: string): IndexedCommit | null {
    const row = index.db.prepare("SELECT paths, blob_ids FROM commits WHERE commit_id = ?").get(
      commit,
    ) as { paths: Uint8Array; blob_ids: Uint8Array } | undefined;
    if (!row) return null;
    return new IndexedCommit(
      index,
      commit,
      decodeCommitFiles({ paths: row.paths, blobIds: row.blob_ids }),
    );
  }

  /** How many files the commit has. */
  get fileCount(): number {
    return this.#files.paths.length;
  }

  /** The files in path order whose blobs may match `query`, among those `keep` accepts. */
  candidates(query: TrigramQuery, keep: (path: string) => boolean): Candidate[] {
    const matching = query.op === "all" ? null : this.#evaluate(query);
    if (matching !== null && matching.length === 0) return [];
    const wanted = matching === null ? null : new Set(matching);
    const out: Candidate[] = [];
    const { paths, blobs } = this.#files;
    for (let i = 0; i < paths.length; i++) {
      if (wanted !== null && !wanted.has(blobs[i])) continue;
      if (keep(paths[i])) out.push({ path: paths[i], blob: blobs[i] });
    }
    return out;
  }

  /**
   * The searchable text of a candidate as UTF-8; null for a blob searches
   * skip (binary, not UTF-8, too large).
   */
  text(candidate: Candidate): Uint8Array | null {
    const row = this.#text.get(candidate.blob) as { text: Uint8Array } | undefined;
    return row?.text ?? null;
  }

  #evaluate(query: TrigramQuery): Uint32Array {
    switch (query.op) {
      case "trigram":
        return this.#list(query.trigram);
      case "and": {
        const lists = query.subs.map((sub) => this.#evaluate(sub)).sort((a, b) =>
          a.length - b.length
        );
        let result = lists[0];
        for (let i = 1; i < lists.length && result.length > 0; i++) {
          result = intersect(result, lists[i]);
        }
        return result;
      }
      case "or":
        return query.subs.reduce<Uint32Array>(
          (all, sub) => union(all, this.#evaluate(sub)),
          new Uint32Array(0),
        );
      default:
        throw new Error("an all query has no posting list");
    }
  }

  #list(trigram: number): Uint32Array {
    const rows = this.#postings.all(trigram) as { count: number; ids: Uint8Array }[];
    let list: Uint32Array = new Uint32Array(0);
    for (const row of rows) list = union(list, decodePostings(row.ids, row.count));
    return list;
  }
}
