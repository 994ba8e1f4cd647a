/**
 * The index tool: rebuild (start anew) and refresh (copy the published index,
 * re-hash current bytes, reuse unchanged rows, continue a persistent pending
 * set from a rotating cursor). Every run writes a private temp database and
 * publishes it with fsync plus atomic rename; any failure other than the work
 * budget discards the temp build and keeps the previous index.
 *
 * @module
 */

import { DatabaseSync, type StatementSync } from "node:sqlite";
import { publishFile } from "../../shared/safe_fs.ts";
import {
  type CacheDir,
  createTempBuild,
  discardTempBuild,
  publishedIndexExists,
  removeStaleTempBuilds,
} from "../project/cache_dir.ts";
import { SourcePipeline } from "./source_pipeline.ts";
import type { PreparedSource } from "./source_preparation.ts";
import { KnowledgeError } from "../errors.ts";
import {
  checkIntegrity,
  type Coverage,
  createSchema,
  CURRENT_FORMAT,
  getMeta,
  openIndex,
  setMeta,
  type StopReason,
} from "./index_store.ts";
import { INDEX_BUDGET_MS, MAX_CORPUS_BYTES, MAX_INDEXED_FILES } from "../limits.ts";
import { type ProjectRoot, verifyProjectRoot } from "../project/project_root.ts";
import { excludedCount, observeHead, observeTrackedSet } from "../project/tracked_files.ts";

/** What one index call works on. */
export interface IndexTarget {
  root: ProjectRoot;
  cache: CacheDir;
  rootHash: string;
}

/** Options of {@linkcode runIndex}. */
export interface IndexOptions {
  /** A rebuild starts from an empty index; a refresh continues the published one. */
  mode: "rebuild" | "refresh";
  /** Work budget in milliseconds. */
  budgetMs: number;
  /** Corpus caps: 4,096 files and 64 MiB unless lowered (tests). */
  caps?: { files: number; bytes: number };
  /**
   * The clock the budget is measured with (default `Date.now`); tests pass
   * one that advances per reading, so where a budget stops does not depend
   * on how busy the machine is. With a clock of its own, waiting for the next
   * prepared source is not cut by real time: the budget is checked between
   * sources only.
   */
  clock?: () => number;
}

const DEFAULT_CAPS = { files: MAX_INDEXED_FILES, bytes: MAX_CORPUS_BYTES };
// Sources prepared ahead of the writer. A whole run is one transaction in a
// private temp database: a killed run leaves nothing to roll back into the
// published index, and FTS5 merges less with fewer commits.
const PIPELINE_DEPTH = 32;
// Fewer sources than this are prepared inline: starting the worker (loading
// its modules) costs about 80 ms of processor, more than preparing them.
const WORKER_MIN_SOURCES = 64;

// Waits for the next prepared source, or null once the deadline passes.
async function nextBefore(
  pipeline: SourcePipeline,
  at: { deadline: number; clock: () => number },
): Promise<PreparedSource | null> {
  if (at.clock !== Date.now) return await pipeline.next();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, at.deadline - at.clock()));
  });
  try {
    return await Promise.race([pipeline.next(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs one rebuild or refresh and returns the published coverage. */
export async function runIndex(
  target: IndexTarget,
  options: IndexOptions,
): Promise<Coverage> {
  const { mode } = options;
  const clock = options.clock ?? Date.now;
  const deadline = clock() + options.budgetMs;
  const remaining = () => deadline - clock();
  verifyProjectRoot(target.root);
  removeStaleTempBuilds(target.cache);

  let copyPublished = false;
  if (mode === "refresh" && publishedIndexExists(target.cache)) {
    const published = openIndex(target.cache.indexPath, {
      readOnly: true,
      rootHash: target.rootHash,
    });
    copyPublished = published.format === CURRENT_FORMAT;
    published.db.close();
  }
  // With a clock of its own the budget counts readings, not real time: Git
  // then gets the real-time limit of a whole call.
  const gitTimeout = () => clock === Date.now || remaining() <= 0 ? remaining() : INDEX_BUDGET_MS;
  const tracked = await observeTrackedSet(target.root.path, { timeoutMs: gitTimeout() });
  const revision = await observeHead(target.root.path, { timeoutMs: gitTimeout() });
  if (remaining() <= 0) throw new KnowledgeError("budget_exhausted", "work budget exhausted");

  const temp = createTempBuild(target.cache, { copyPublished });
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(temp, { enableForeignKeyConstraints: false });
    db.exec("PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA cache_size = -65536");
    if (copyPublished) checkIntegrity(db);
    else {
      createSchema(db, CURRENT_FORMAT);
      setMeta(db, { key: "format", value: String(CURRENT_FORMAT) });
      setMeta(db, { key: "root_hash", value: target.rootHash });
    }
    const run = new IndexRun(db, target.root, options.caps ?? DEFAULT_CAPS);
    const coverage = await run.execute({
      mode,
      eligible: tracked.eligible,
      deadline,
      clock,
      revision,
      excluded: excludedCount(tracked),
    });
    db.close();
    db = undefined;
    verifyProjectRoot(target.root);
    publishFile(temp, target.cache.indexPath);
    return coverage;
  } catch (error) {
    try {
      db?.close();
    } catch {
      // already failed
    }
    discardTempBuild(temp);
    if (error instanceof KnowledgeError) throw error;
    throw new KnowledgeError(
      "cache_unavailable",
      "the index build failed; the previous index is kept",
    );
  }
}

interface RunInput {
  mode: "rebuild" | "refresh";
  eligible: string[];
  deadline: number;
  clock: () => number;
  revision: string | null;
  excluded: number;
}

interface SourceRow {
  id: number;
  source_hash: string;
  bytes: number;
}

/** One index run inside the temp database. */
class IndexRun {
  #db: DatabaseSync;
  #root: ProjectRoot;
  #findSource: StatementSync;
  #insertSource: StatementSync;
  #updateSource: StatementSync;
  #deleteSource: StatementSync;
  #chunksOf: StatementSync;
  #insertChunk: StatementSync;
  #insertTerms: StatementSync;
  #deleteChunkTerms: StatementSync;
  #deleteChunks: StatementSync;
  #deletePending: StatementSync;
  #caps: { files: number; bytes: number };
  #files = 0;
  #bytes = 0;
  #counts = { reused: 0, updated: 0, deleted: 0, skipped: 0, oversizedLines: 0 };

  constructor(db: DatabaseSync, root: ProjectRoot, caps: { files: number; bytes: number }) {
    this.#db = db;
    this.#root = root;
    this.#caps = caps;
    this.#findSource = db.prepare("SELECT id, source_hash, bytes FROM sources WHERE path = ?");
    this.#insertSource = db.prepare(
      "INSERT INTO sources(path, source_hash, bytes, lines) VALUES (?, ?, ?, ?)",
    );
    this.#updateSource = db.prepare(
      "UPDATE sources SET source_hash = ?, bytes = ?, lines = ? WHERE id = ?",
    );
    this.#deleteSource = db.prepare("DELETE FROM sources WHERE id = ?");
    this.#chunksOf = db.prepare("SELECT id FROM chunks WHERE source_id = ?");
    this.#insertChunk = db.prepare(
      "INSERT INTO chunks(source_id, start_line, end_line) VALUES (?, ?, ?)",
    );
    this.#insertTerms = db.prepare(
      "INSERT INTO chunk_terms(rowid, terms, names, path) VALUES (?, ?, ?, ?)",
    );
    this.#deleteChunkTerms = db.prepare("DELETE FROM chunk_terms WHERE rowid = ?");
    this.#deleteChunks = db.prepare("DELETE FROM chunks WHERE source_id = ?");
    this.#deletePending = db.prepare("DELETE FROM pending WHERE path = ?");
  }

  async execute(input: RunInput): Promise<Coverage> {
    const db = this.#db;
    db.exec("BEGIN");
    this.#pruneIneligible(new Set(input.eligible));
    this.#startCycleIfDone(input.eligible);
    const totals = db.prepare("SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM sources")
      .get() as { n: number; b: number };
    this.#files = totals.n;
    this.#bytes = totals.b;
    db.exec("COMMIT");

    const order = this.#pendingInRotation(getMeta(db, "cursor") ?? "");
    let stop: StopReason = "complete";
    let capacity: StopReason | null = null;
    let cursor: string | null = null;
    let visitedAll = true;
    const pipeline = new SourcePipeline(this.#root, {
      useWorker: order.length >= WORKER_MIN_SOURCES,
    });
    let submitted = 0;
    const submit = () => {
      const path = order[submitted++];
      const known = this.#findSource.get(path) as SourceRow | undefined;
      pipeline.submit({ path, knownHash: known?.source_hash ?? null });
    };
    db.exec("BEGIN");
    try {
      while (submitted < Math.min(order.length, PIPELINE_DEPTH)) submit();
      for (let i = 0; i < order.length; i++) {
        if (input.clock() >= input.deadline) {
          stop = "time_budget";
          visitedAll = false;
          break;
        }
        const prepared = await nextBefore(pipeline, input);
        if (prepared === null) {
          stop = "time_budget";
          visitedAll = false;
          break;
        }
        if (submitted < order.length) submit();
        const limited = this.#apply(prepared);
        if (limited) capacity ??= limited;
        cursor = prepared.path;
      }
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    } finally {
      pipeline.close();
    }
    if (stop === "complete" && capacity) stop = capacity;
    if (cursor !== null) setMeta(db, { key: "cursor", value: cursor });
    // Only capacity-limited sources left: the next refresh starts a new cycle
    // instead of retrying them forever while indexed rows go unverified.
    setMeta(db, { key: "cycle_state", value: visitedAll ? "visited" : "open" });
    const coverage = this.#coverage(input, stop);
    setMeta(db, { key: "coverage", value: JSON.stringify(coverage) });
    db.exec("COMMIT");
    return coverage;
  }

  // Deleted, untracked and path-ineligible sources go before candidate work.
  #pruneIneligible(eligible: Set<string>): void {
    const rows = this.#db.prepare("SELECT id, path, bytes FROM sources").all() as {
      id: number;
      path: string;
      bytes: number;
    }[];
    for (const row of rows) {
      if (!eligible.has(row.path)) {
        this.#removeSource(row);
        this.#counts.deleted++;
      }
    }
    const pending = this.#db.prepare("SELECT path FROM pending").all() as { path: string }[];
    for (const row of pending) if (!eligible.has(row.path)) this.#deletePending.run(row.path);
  }

  #startCycleIfDone(eligible: string[]): void {
    const db = this.#db;
    const open = (db.prepare("SELECT count(*) AS n FROM pending").get() as { n: number }).n;
    const insert = db.prepare("INSERT OR IGNORE INTO pending(path) VALUES (?)");
    if (open === 0 || getMeta(db, "cycle_state") === "visited") {
      for (const path of eligible) insert.run(path);
      setMeta(db, { key: "cursor", value: "" });
      setMeta(db, { key: "cycle_state", value: "open" });
      return;
    }
    // New eligible paths join the open cycle.
    const known = db.prepare("SELECT 1 FROM sources WHERE path = ?");
    for (const path of eligible) if (known.get(path) === undefined) insert.run(path);
  }

  #pendingInRotation(cursor: string): string[] {
    const after = this.#db.prepare("SELECT path FROM pending WHERE path > ? ORDER BY path")
      .all(cursor) as { path: string }[];
    const before = this.#db.prepare("SELECT path FROM pending WHERE path <= ? ORDER BY path")
      .all(cursor) as { path: string }[];
    return [...after, ...before].map((row) => row.path);
  }

  // Applies one prepared source; returns a stop reason when capacity kept it out.
  #apply(prepared: PreparedSource): StopReason | null {
    const path = prepared.path;
    const existing = this.#findSource.get(path) as SourceRow | undefined;
    if (prepared.kind === "skipped") {
      this.#counts.skipped++;
      if (existing) {
        this.#removeSource(existing);
        this.#counts.deleted++;
      }
      this.#deletePending.run(path);
      return null;
    }
    if (existing && existing.source_hash === prepared.hash) {
      this.#counts.reused++;
      this.#deletePending.run(path);
      return null;
    }
    if (prepared.kind === "unchanged") {
      // The row changed after the request was sent; cannot happen within one
      // run, but never reuse rows whose hash was not just verified.
      throw new KnowledgeError("cache_unavailable", "index bookkeeping changed during the run");
    }
    const files = this.#files + (existing ? 0 : 1);
    const bytes = this.#bytes - (existing?.bytes ?? 0) + prepared.bytes;
    if (files > this.#caps.files || bytes > this.#caps.bytes) {
      if (existing) {
        this.#removeSource(existing); // stale rows of a changed source
        this.#counts.deleted++;
      }
      return files > this.#caps.files ? "file_limit" : "corpus_limit";
    }
    let sourceId: number;
    if (existing) {
      this.#removeChunks(existing.id);
      this.#updateSource.run(prepared.hash, prepared.bytes, prepared.lines, existing.id);
      sourceId = existing.id;
    } else {
      sourceId = Number(
        this.#insertSource.run(path, prepared.hash, prepared.bytes, prepared.lines).lastInsertRowid,
      );
    }
    for (const chunk of prepared.chunks) {
      const chunkId = this.#insertChunk.run(sourceId, chunk.startLine, chunk.endLine)
        .lastInsertRowid;
      this.#insertTerms.run(chunkId, chunk.terms, chunk.names, prepared.pathTerms);
    }
    this.#files = files;
    this.#bytes = bytes;
    this.#counts.updated++;
    this.#counts.oversizedLines += prepared.oversizedLines;
    this.#deletePending.run(path);
    return null;
  }

  #removeChunks(sourceId: number): void {
    for (const row of this.#chunksOf.all(sourceId) as { id: number }[]) {
      this.#deleteChunkTerms.run(row.id);
    }
    this.#deleteChunks.run(sourceId);
  }

  #removeSource(source: { id: number; bytes: number }): void {
    this.#removeChunks(source.id);
    this.#deleteSource.run(source.id);
    this.#files--;
    this.#bytes -= source.bytes;
  }

  #coverage(input: RunInput, stop: StopReason): Coverage {
    const db = this.#db;
    const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    return {
      revision: input.revision,
      indexed_at_unix: Math.floor(Date.now() / 1000),
      eligible_files: input.eligible.length,
      indexed_files: one("SELECT count(*) AS n FROM sources"),
      indexed_bytes: one("SELECT coalesce(sum(bytes), 0) AS n FROM sources"),
      chunks: one("SELECT count(*) AS n FROM chunks"),
      excluded_entries: input.excluded,
      skipped_files: this.#counts.skipped,
      oversized_lines_omitted: this.#counts.oversizedLines,
      unprocessed_files: one(
        "SELECT count(*) AS n FROM pending p WHERE NOT EXISTS (SELECT 1 FROM sources s WHERE s.path = p.path)",
      ),
      stop_reason: stop,
      mode: input.mode,
      reused_files: this.#counts.reused,
      updated_files: this.#counts.updated,
      deleted_files: this.#counts.deleted,
      remaining_files: one("SELECT count(*) AS n FROM pending"),
    };
  }
}
