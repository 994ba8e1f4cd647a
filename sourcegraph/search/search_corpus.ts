/**
 * Decoded text of every regular file at a commit, kept in memory so repeated
 * searches scan strings instead of asking Git to inflate every blob again.
 * A corpus is built through its own `cat-file` process (reads are never
 * queued behind it), small repositories synchronously on first use and
 * larger ones in the background (searches use `git grep` meanwhile). At most
 * two corpora are kept, each within a byte cap; a repository over the cap is
 * never cached.
 *
 * @module
 */

import { isBinary } from "../../shared/text.ts";
import { isRegularFile, parseTreeListing } from "../../shared/tree_listing.ts";
import { searchableText } from "./searchable_text.ts";
import { runGit } from "../../shared/git.ts";
import { GitObjectReader } from "../../shared/git_objects.ts";
import { READ_SCAN_LIMIT } from "../read/file_read.ts";

/** The files of one commit: path and text (null: binary, not UTF-8 or too large). */
export interface Corpus {
  paths: string[];
  texts: (string | null)[];
}

const SYNC_BUILD_FILES = 2000;
const KEEP = 2;

/** Per-commit corpora of one service. */
export class CorpusCache {
  #capBytes: number;
  #entries = new Map<string, Promise<Corpus | null>>();
  #ready = new Map<string, Corpus | null>();

  /** Keeps corpora of at most `capBytes` each (0 disables the cache). */
  constructor(capBytes: number) {
    this.#capBytes = capBytes;
  }

  /** Drops every corpus and listing of `mirror`. */
  forget(mirror: string): void {
    for (const map of [this.#entries, this.#ready, this.#listings]) {
      for (const key of [...map.keys()]) {
        if (key.startsWith(`${mirror}\0`)) map.delete(key);
      }
    }
  }

  /**
   * The corpus of `commit` when ready, else null (a build is started; small
   * repositories are built before returning).
   */
  async get(mirror: string, commit: string): Promise<Corpus | null> {
    if (this.#capBytes <= 0) return null;
    const key = `${mirror}\0${commit}`;
    if (this.#ready.has(key)) {
      const corpus = this.#ready.get(key)!;
      this.#ready.delete(key); // refresh LRU order
      this.#ready.set(key, corpus);
      return corpus;
    }
    let pending = this.#entries.get(key);
    if (!pending) {
      pending = this.#build(mirror, commit).catch(() => null);
      this.#entries.set(key, pending);
      void pending.then((corpus) => {
        this.#entries.delete(key);
        this.#ready.set(key, corpus);
        while (this.#ready.size > KEEP) this.#ready.delete(this.#ready.keys().next().value!);
      });
    }
    const files = (await this.#listing(mirror, commit)).length;
    return files <= SYNC_BUILD_FILES ? await pending : null;
  }

  #listings = new Map<string, Promise<{ oid: string; path: string }[]>>();

  #listing(mirror: string, commit: string): Promise<{ oid: string; path: string }[]> {
    const key = `${mirror}\0${commit}`;
    let listing = this.#listings.get(key);
    if (!listing) {
      listing = listFiles(mirror, commit);
      this.#listings.set(key, listing);
      while (this.#listings.size > KEEP * 2) {
        this.#listings.delete(this.#listings.keys().next().value!);
      }
    }
    return listing;
  }

  async #build(mirror: string, commit: string): Promise<Corpus | null> {
    const files = await this.#listing(mirror, commit);
    const reader = new GitObjectReader({ cwd: mirror, timeoutMs: 30_000 });
    const corpus: Corpus = { paths: [], texts: [] };
    let total = 0;
    try {
      for (const file of files) {
        const read = await reader.read(file.oid, { maxBytes: READ_SCAN_LIMIT });
        let text: string | null = null;
        if (read.status === "ok" && !isBinary(read.bytes)) {
          text = searchableText(read.bytes);
          total += read.bytes.length;
          if (total > this.#capBytes) return null;
        }
        corpus.paths.push(file.path);
        corpus.texts.push(text);
      }
      return corpus;
    } finally {
      await reader.close();
    }
  }
}

async function listFiles(mirror: string, commit: string): Promise<{ oid: string; path: string }[]> {
  const out = await runGit(["ls-tree", "-r", "-z", "--full-tree", commit], {
    cwd: mirror,
    maxStdoutBytes: 64 * 1024 * 1024,
    timeoutMs: 30_000,
  });
  const files = parseTreeListing(out.stdout).filter(isRegularFile).map(({ oid, path }) => ({
    oid,
    path,
  }));
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
