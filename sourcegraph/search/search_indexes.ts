/**
 * The search indexes of the service: one file per repository under
 * `<data>/search_index/`, built in the background after each successful
 * sync by a builder process of its own (`build_main.ts`, with read access
 * to that mirror and write access to the index folder only), never on a
 * request path. Builds index every retained commit that is not indexed yet,
 * then drop commits no longer retained and the blobs none of the rest uses.
 * A file that cannot be read is logged and rebuilt from the mirror (it
 * holds nothing the mirror does not); until then searches go through Git.
 *
 * Builds wait in one queue, in the order repositories were scheduled, and
 * run one at a time, except that a build running longer than the build
 * slice (`DEFAULT_BUILD_SLICE_MS`) no longer holds the others back: the
 * next repository's build starts beside it. So at most two builders run
 * (bounded memory), one repository never has two, and a repository's build
 * waits for one long build of another at most the slice. Each commit's
 * symbol extraction has a budget of its own (`DEFAULT_SYMBOL_BUDGET_MS`),
 * which bounds how long a commit of files slow to parse keeps a builder.
 *
 * @module
 */

import * as fs from "node:fs";
import { join } from "node:path";
import type { MirrorReaders } from "../git/mirror_readers.ts";
import type { RepositoryRecord } from "../store/control_store.ts";
import { childCommand, denoProgram } from "../../shared/child_lifetime.ts";
import { LineSplitter } from "../../shared/line_splitter.ts";
import type { BuildEvent } from "./build/build_main.ts";
import {
  type BuilderCommand,
  builderCommand,
  type BuilderJob,
  type BuilderLauncher,
  type RunningBuilder,
} from "./build/builder_command.ts";
import { IndexDatabase, IndexUnusable } from "./index/index_database.ts";
import { IndexedCommit } from "./index/index_reader.ts";
import { WarmCaches } from "./index/warm_caches.ts";
import { BuildWatch, DEFAULT_BUILD_IDLE_MS } from "./build_watch.ts";

/** Most indexed commits kept open. */
export const MAX_OPEN_COMMITS = 64;
/**
 * What one file of an open commit costs in memory: its path, chunk numbers
 * and lines, and its share of the symbol tables (525 bytes measured on the
 * Git tree), rounded up.
 */
export const OPEN_FILE_BYTES = 600;
/** Memory the open commits may take by default (`SOURCEGRAPH_INDEX_CACHE_MIB`). */
export const DEFAULT_INDEX_CACHE_MIB = 256;
/**
 * How long a build runs alone before the next repository's build may start
 * beside it, by default (`SOURCEGRAPH_INDEX_BUILD_SLICE`).
 */
export const DEFAULT_BUILD_SLICE_MS = 30_000;
/**
 * How long each commit's symbol extraction may take in a build, by default
 * (`SOURCEGRAPH_SYMBOL_BUDGET`); past it the commit is published with the
 * symbols of the files extracted so far.
 */
export const DEFAULT_SYMBOL_BUDGET_MS = 30_000;

// Most builders running at once.
const MAX_BUILDERS = 2;

// A repository's build waiting to start: its latest retained commits and
// the callers waiting for it.
interface WaitingBuild {
  repo: RepositoryRecord;
  commits: string[];
  done: () => void;
  finished: Promise<void>;
}

// A build that runs: its builder (null until started) and when it started.
interface RunningBuild {
  child: RunningBuilder | null;
  startedAt: number;
  finished: Promise<void>;
}

/** Where a repository's index lives. */
export function indexPath(dataDir: string, repo: RepositoryRecord): string {
  return join(dataDir, "search_index", `${repo.id}.sqlite3`);
}

/** The indexes of the registered repositories. */
export class SearchIndexes {
  #dataDir: string;
  #heldPostingsMib: number | undefined;
  #maxOpenFiles: number;
  #mirrors: MirrorReaders;
  #log: (line: string) => void;
  #open = new Map<number, IndexDatabase>();
  // The indexes searched last keep larger page caches (repeated searches and next pages).
  #warm = new WarmCaches<IndexDatabase>();
  #commits = new Map<string, IndexedCommit>();
  // In the order scheduled (a repository scheduled again keeps its place).
  #pending = new Map<number, WaitingBuild>();
  #running = new Map<number, RunningBuild>();
  #recheck: ReturnType<typeof setTimeout> | undefined;
  #removed = new Set<number>();
  #closed = false;
  #enabled: boolean;
  #buildIdleMs: number;
  #buildSliceMs: number;
  #symbolBudgetMs: number;
  #now: () => number;
  #launchBuilder: BuilderLauncher;

  /** Indexes below `dataDir` of the mirrors `mirrors` reads. */
  constructor(
    dataDir: string,
    options: {
      enabled: boolean;
      mirrors: MirrorReaders;
      log: (line: string) => void;
      /** MiB of posting lists a build holds before writing them (default: the builder's). */
      heldPostingsMib?: number;
      /**
       * MiB the open commits may take (`OPEN_FILE_BYTES` a file; the latest
       * one stays open whatever its size). Default `DEFAULT_INDEX_CACHE_MIB`.
       */
      cacheMib?: number;
      /** How long a build may report nothing before it is stopped (default `DEFAULT_BUILD_IDLE_MS`). */
      buildIdleMs?: number;
      /**
       * How long a build runs alone before the next repository's may start
       * beside it (default `DEFAULT_BUILD_SLICE_MS`).
       */
      buildSliceMs?: number;
      /** How long each commit's symbol extraction may take (default `DEFAULT_SYMBOL_BUDGET_MS`). */
      symbolBudgetMs?: number;
      /** The clock builds are watched on (milliseconds, never going back). */
      now?: () => number;
      /** The builder's command for a job (default `builderCommand`). */
      builder?: (job: BuilderJob) => BuilderCommand;
      /**
       * Starts builders other than as processes of `builder`'s command (the
       * tests' in-process services run them in their own process).
       */
      launchBuilder?: BuilderLauncher;
    },
  ) {
    this.#buildIdleMs = options.buildIdleMs ?? DEFAULT_BUILD_IDLE_MS;
    this.#buildSliceMs = options.buildSliceMs ?? DEFAULT_BUILD_SLICE_MS;
    this.#symbolBudgetMs = options.symbolBudgetMs ?? DEFAULT_SYMBOL_BUDGET_MS;
    this.#now = options.now ?? (() => performance.now());
    this.#launchBuilder = options.launchBuilder ?? spawnBuilder(options.builder ?? builderCommand);
    this.#maxOpenFiles = Math.floor(
      (options.cacheMib ?? DEFAULT_INDEX_CACHE_MIB) * 1024 * 1024 / OPEN_FILE_BYTES,
    );
    this.#heldPostingsMib = options.heldPostingsMib;
    this.#dataDir = dataDir;
    this.#enabled = options.enabled;
    this.#mirrors = options.mirrors;
    this.#log = options.log;
  }

  /**
   * Whether searches of `repo` at `commit` go through its index now: what
   * `commit` would find, without loading the commit's files.
   */
  serves(repo: RepositoryRecord, commit: string): boolean {
    if (!this.#enabled) return false;
    if (this.#commits.has(`${repo.id}\0${commit}`)) return true;
    return this.#database(repo)?.hasCommit(commit) ?? false;
  }

  /** The indexed `commit` of `repo`, or null while it is not indexed. */
  commit(repo: RepositoryRecord, commit: string): IndexedCommit | null {
    if (!this.#enabled) return null;
    const key = `${repo.id}\0${commit}`;
    const cached = this.#commits.get(key);
    if (cached) {
      const open = this.#open.get(repo.id);
      if (open) this.#warm.searched(open);
      return cached;
    }
    const index = this.#database(repo);
    const indexed = index === null ? null : IndexedCommit.open(index, commit);
    if (indexed !== null) {
      this.#warm.searched(index!);
      this.#commits.set(key, indexed);
      // An open commit holds its file list: the cache is bounded in files, not only in commits.
      let files = 0;
      for (const open of this.#commits.values()) files += open.fileCount;
      while (
        this.#commits.size > 1 &&
        (this.#commits.size > MAX_OPEN_COMMITS || files > this.#maxOpenFiles)
      ) {
        const oldest = this.#commits.keys().next().value!;
        files -= this.#commits.get(oldest)!.fileCount;
        this.#commits.delete(oldest);
      }
    }
    return indexed;
  }

  /**
   * Schedules indexing `repo` at `retained` commits (newest first) and
   * dropping the others; returns when that work is done.
   */
  schedule(repo: RepositoryRecord, retained: readonly string[]): Promise<void> {
    if (!this.#enabled || this.#closed) return Promise.resolve();
    this.#removed.delete(repo.id);
    const waiting = this.#pending.get(repo.id);
    if (waiting) {
      waiting.repo = repo;
      waiting.commits = [...retained];
      return waiting.finished;
    }
    let done = () => {};
    const finished = new Promise<void>((resolve) => (done = resolve));
    this.#pending.set(repo.id, { repo, commits: [...retained], done, finished });
    this.#startBuilds();
    return finished;
  }

  /** Deletes `repo`'s index (a running build of it is killed). */
  async remove(repo: RepositoryRecord): Promise<void> {
    this.#removed.add(repo.id);
    this.#pending.get(repo.id)?.done();
    this.#pending.delete(repo.id);
    const running = this.#running.get(repo.id);
    if (running) {
      kill(running.child);
      await running.finished;
    }
    this.#forget(repo.id);
    const path = indexPath(this.#dataDir, repo);
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(path + suffix, { force: true });
  }

  /**
   * Kills a running build and refuses later ones (a stop begins with this);
   * the indexes stay open for searches in flight.
   */
  async stopBuilds(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#recheck);
    for (const waiting of this.#pending.values()) waiting.done();
    this.#pending.clear();
    const running = [...this.#running.values()];
    for (const build of running) kill(build.child);
    await Promise.all(running.map((build) => build.finished));
  }

  /** Closes every index (a running build is killed). */
  async close(): Promise<void> {
    await this.stopBuilds();
    for (const id of [...this.#open.keys()]) this.#forget(id);
  }

  // Starts the waiting builds there is room for, in order (a repository
  // whose build runs waits for it); when one waits for the running build to
  // pass the slice, looks again then.
  #startBuilds(): void {
    clearTimeout(this.#recheck);
    this.#recheck = undefined;
    if (this.#closed) return;
    for (const [id, waiting] of this.#pending) {
      if (this.#running.has(id)) continue;
      if (!this.#roomForBuild()) break;
      this.#pending.delete(id);
      this.#start(waiting);
    }
    const blocked = [...this.#pending.keys()].some((id) => !this.#running.has(id));
    if (blocked && this.#running.size === 1) {
      const [only] = this.#running.values();
      const left = only.startedAt + this.#buildSliceMs - this.#now();
      this.#recheck = setTimeout(
        () => this.#startBuilds(),
        Math.min(Math.max(10, left), Math.max(10, this.#buildSliceMs)),
      );
    }
  }

  // Whether another build may start: none runs, or the only one has run past the slice.
  #roomForBuild(): boolean {
    if (this.#running.size === 0) return true;
    if (this.#running.size >= MAX_BUILDERS) return false;
    const [only] = this.#running.values();
    return this.#now() - only.startedAt >= this.#buildSliceMs;
  }

  #start(waiting: WaitingBuild): void {
    const id = waiting.repo.id;
    const running: RunningBuild = {
      child: null,
      startedAt: this.#now(),
      finished: Promise.resolve(),
    };
    this.#running.set(id, running);
    running.finished = this.#run(waiting, running)
      .catch((error) =>
        this.#log(`search index build failed unexpectedly: ${(error as Error)?.stack ?? error}`)
      )
      .finally(() => {
        this.#running.delete(id);
        waiting.done();
        this.#startBuilds();
      });
  }

  async #run(job: WaitingBuild, running: RunningBuild): Promise<void> {
    const { repo, commits } = job;
    const id = repo.id;
    if (this.#closed || this.#removed.has(id)) return;
    const child = this.#launch(repo, commits);
    if (child === null) return;
    running.child = child;
    const problems = new Response(child.stderr).text().catch(() => "");
    const stalled = await this.#follow(repo, child);
    const status = await child.status;
    const stderr = (await problems).trim().split("\n").slice(-3).join(" | ");
    if (!status.success && !stalled && !this.#closed && !this.#removed.has(id)) {
      this.#log(`the search index build of ${repo.name} stopped (exit ${status.code}): ${stderr}`);
    }
  }

  // Starts the builder on `commits` of `repo`; null (logged) when it cannot start.
  #launch(repo: RepositoryRecord, commits: readonly string[]): RunningBuilder | null {
    fs.mkdirSync(join(this.#dataDir, "search_index"), { recursive: true, mode: 0o700 });
    try {
      return this.#launchBuilder({
        mirror: this.#mirrors.path(repo),
        indexFile: indexPath(this.#dataDir, repo),
        commits,
        heldPostingsMib: this.#heldPostingsMib,
        symbolBudgetMs: this.#symbolBudgetMs,
      });
    } catch (error) {
      this.#log(`the search index builder cannot be started: ${(error as Error).message}`);
      return null;
    }
  }

  // Reads the builder's events until it ends, killing it once it has
  // reported nothing for the idle limit; whether it was killed so.
  async #follow(repo: RepositoryRecord, child: RunningBuilder): Promise<boolean> {
    const watch = new BuildWatch({ idleMs: this.#buildIdleMs, startedAt: this.#now() });
    let stalled = false;
    const check = setInterval(() => {
      if (stalled || !watch.stalled(this.#now())) return;
      stalled = true;
      this.#log(
        `the search index build of ${repo.name} reported nothing for ` +
          `${duration(this.#buildIdleMs)}; stopped it (the next sync builds it again; ` +
          "until then its versions not indexed yet are searched through Git)",
      );
      kill(child);
    }, Math.max(10, Math.min(this.#buildIdleMs / 4, 15_000)));
    try {
      const events = new LineSplitter(child.stdout, 64 * 1024);
      for (let line = await events.next(); line !== null; line = await events.next()) {
        const now = this.#now();
        watch.heard(now);
        if (line === "oversized") continue;
        const event = parseEvent(new TextDecoder().decode(line));
        if (event?.event === "progress") {
          if (watch.progressDue(now)) this.#log(progressLine(repo, event));
        } else if (event !== null) this.#heard(repo, event);
      }
    } finally {
      clearInterval(check);
    }
    return stalled;
  }

  #heard(repo: RepositoryRecord, event: BuildEvent): void {
    switch (event.event) {
      case "built": {
        const mib = event.newBytes / 1024 / 1024;
        const { timed_out: timedOut, failed, large } = event.extraction;
        this.#log(
          `${indexAt(repo, event.commit)}: ${event.files} files, ${event.newBlobs} new blobs ` +
            `(${mib.toFixed(1)} MiB) in ${event.ms} ms` +
            (event.ms > 0 ? ` (${(mib / (event.ms / 1000)).toFixed(1)} MiB/s)` : "") +
            `, ${event.newSymbols} symbols` +
            (timedOut + failed + large > 0
              ? ` (by line patterns: ${timedOut} past the parse deadline, ${failed} after a ` +
                `grammar failure, ${large} over 1 MiB)`
              : "") +
            (event.symbolsSkipped > 0
              ? `; symbols partial: ${event.symbolsSkipped} of ${event.files} files without ` +
                `symbols (the symbol extraction budget of ${
                  duration(this.#symbolBudgetMs)
                } ran out)`
              : ""),
        );
        break;
      }
      case "failed":
        this.#log(`${indexAt(repo, event.commit)} failed: ${event.message}`);
        break;
      case "damaged":
        this.#log(`${event.message}; rebuilding it from the mirror`);
        this.#forget(repo.id);
        break;
      case "pruned":
        for (const commit of event.dropped) this.#commits.delete(`${repo.id}\0${commit}`);
        if (event.dropped.length > 0) {
          this.#log(
            `search index of ${repo.name}: dropped ${event.dropped.length} pruned version(s)`,
          );
        }
        break;
    }
  }

  #database(repo: RepositoryRecord): IndexDatabase | null {
    const open = this.#open.get(repo.id);
    if (open) return open;
    const path = indexPath(this.#dataDir, repo);
    if (!fs.existsSync(path)) return null;
    let index: IndexDatabase;
    try {
      index = new IndexDatabase(path);
    } catch (error) {
      if (!(error instanceof IndexUnusable)) throw error;
      return null; // searched without it until the next build replaces it
    }
    this.#open.set(repo.id, index);
    return index;
  }

  #forget(id: number): void {
    for (const key of [...this.#commits.keys()]) {
      if (key.startsWith(`${id}\0`)) this.#commits.delete(key);
    }
    const open = this.#open.get(id);
    if (open) this.#warm.forget(open);
    open?.close();
    this.#open.delete(id);
  }
}

// Starts builder processes of the commands `builder` gives.
function spawnBuilder(builder: (job: BuilderJob) => BuilderCommand): BuilderLauncher {
  return (job) => {
    const command = builder(job);
    const launch = childCommand(denoProgram(), command.args);
    return new Deno.Command(launch.command, {
      args: launch.args,
      env: command.env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  };
}

// Kills a builder (nothing when it has ended or never started).
function kill(child: RunningBuilder | null): void {
  try {
    child?.kill("SIGKILL");
  } catch {
    // already ended
  }
}

// One line of the builder's output as an event; null for anything else.
function parseEvent(line: string): BuildEvent | null {
  try {
    const event = JSON.parse(line);
    return typeof event === "object" && event !== null && typeof event.event === "string"
      ? event as BuildEvent
      : null;
  } catch {
    return null;
  }
}

// How the log names a repository's index at a commit.
function indexAt(repo: RepositoryRecord, commit: string): string {
  return `search index of ${repo.name} at ${commit.slice(0, 12)}`;
}

function progressLine(
  repo: RepositoryRecord,
  progress: Extract<BuildEvent, { event: "progress" }>,
): string {
  const mib = (progress.bytesRead / 1024 / 1024).toFixed(1);
  return `${indexAt(repo, progress.commit)}: ` +
    `${progress.blobsRead} of ${progress.newBlobs} new blobs read (${mib} MiB)`;
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}
