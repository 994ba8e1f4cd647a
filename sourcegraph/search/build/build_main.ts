/**
 * The index builder as its own process, started by the service after a
 * sync: it indexes the given commits of one mirror (those not indexed yet,
 * in the order given), drops every other commit and the blobs none of the
 * rest uses, and reports one JSON line per event on stdout (progress after
 * each batch of texts, so a service can tell a long build from a stalled
 * one). The symbols of new blobs are found by workers of its own beside the
 * trigram work. A separate process keeps the builder's memory and CPU off
 * the service, which may kill it at any moment: the index never shows a
 * half-built commit.
 *
 * Usage: build_main.ts [--held-postings-mib=N] [--symbol-budget-ms=N] <mirror> <index file> <commit>…
 *
 * Its memory is a fixed part (the trigram tables, a batch of texts, the
 * symbol workers) and the posting lists it holds, which it writes as a
 * segment of their own once they reach `--held-postings-mib` (default `DEFAULT_HELD_POSTINGS_MIB`).
 * Each commit's symbol extraction may take `--symbol-budget-ms` (default: no
 * bound); past it the commit is published with the rest of its files'
 * symbols left out (`symbolsSkipped` of its `built` event).
 *
 * @module
 */

import * as fs from "node:fs";
import { buildCommitIndex, type BuildProgress } from "./index_builder.ts";
import { IndexDatabase, IndexUnusable } from "../index/index_database.ts";
import { pruneIndex } from "./index_prune.ts";
import { PostingTable } from "../index/postings.ts";
import { TrigramCollector } from "../index/trigrams.ts";
import { SymbolExtraction } from "./symbol_extraction.ts";
import type { ExtractionOutcome } from "../../symbols/symbol_extractor.ts";

/** One line the builder reports. */
export type BuildEvent =
  | {
    event: "built";
    commit: string;
    files: number;
    newBlobs: number;
    newBytes: number;
    newSymbols: number;
    /** Files of the commit whose symbols the extraction budget left out. */
    symbolsSkipped: number;
    /** How the new blobs' symbols were found (`timed_out` and `failed` fell back to patterns). */
    extraction: Record<ExtractionOutcome, number>;
    ms: number;
  }
  /** After each batch of texts and each segment written, and once the commit is published. */
  | ({ event: "progress"; commit: string } & BuildProgress)
  | { event: "failed"; commit: string; message: string }
  | { event: "damaged"; message: string }
  | { event: "pruned"; dropped: string[] };

/** What one build indexes: a builder process's arguments. */
export interface BuildJob {
  mirror: string;
  indexFile: string;
  /** The commits to index, newest first; every other commit is dropped. */
  commits: readonly string[];
  /** MiB of posting lists held before they are written (default `DEFAULT_HELD_POSTINGS_MIB`). */
  heldPostingsMib?: number;
}

/**
 * Runs one build: indexes the commits of `job` not indexed yet, drops every
 * other commit, compacts the index and closes it, telling `report` each
 * event. The builder process runs it once; a caller that runs builds in a
 * process of its own may run it again with the same `symbols` (their
 * workers stay started).
 *
 * @param job The mirror, the index file and the commits.
 * @param options `report` hears each event; `symbols` extracts the new
 *   blobs' symbols (with the budget of each commit); `built` runs once the
 *   commits are built, before the prune and compaction (the process frees
 *   its symbol workers there).
 */
export async function runBuild(
  job: BuildJob,
  options: {
    report: (event: BuildEvent) => void;
    symbols: SymbolExtraction;
    built?: () => void;
  },
): Promise<void> {
  const { mirror, commits } = job;
  const { report, symbols } = options;
  const held = job.heldPostingsMib;
  const maxHeldPostingBytes = held === undefined ? undefined : Math.max(1, held) * 1024 * 1024;
  const index = open(job.indexFile, report);
  const collector = new TrigramCollector();
  const postings = new PostingTable();
  for (const commit of commits) {
    const before = { ...symbols.outcomes };
    try {
      const stats = await buildCommitIndex(index, {
        mirror,
        commit,
        collector,
        postings,
        symbols,
        maxHeldPostingBytes,
        onBatch: (progress) => report({ event: "progress", commit, ...progress }),
      });
      if (stats !== null) {
        const extraction = { ...symbols.outcomes };
        for (const key of Object.keys(before) as ExtractionOutcome[]) {
          extraction[key] -= before[key];
        }
        report({ event: "built", ...stats, extraction });
      }
    } catch (error) {
      report({ event: "failed", commit, message: String((error as Error)?.message ?? error) });
    }
  }
  options.built?.();
  report({ event: "pruned", dropped: pruneIndex(index, { retained: commits }) });
  index.compact();
  index.close();
}

function open(path: string, report: (event: BuildEvent) => void): IndexDatabase {
  try {
    return new IndexDatabase(path);
  } catch (error) {
    if (!(error instanceof IndexUnusable)) throw error;
    report({ event: "damaged", message: error.message });
    for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(path + suffix, { force: true });
    return new IndexDatabase(path);
  }
}

// One event as a line of the process's output.
function reportLine(event: BuildEvent): void {
  Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify(event) + "\n"));
}

if (import.meta.main) {
  // The leading `--name=N` arguments, then the mirror, the index and the commits.
  const flags = new Map<string, number>();
  const rest = [...Deno.args];
  for (
    let flag = rest[0]?.match(/^--([a-z-]+)=(\d+)$/);
    flag;
    flag = rest[0]?.match(/^--([a-z-]+)=(\d+)$/)
  ) {
    flags.set(flag[1], Number(flag[2]));
    rest.shift();
  }
  const [mirror, indexFile, ...commits] = rest;
  const symbols = new SymbolExtraction({ budgetMs: flags.get("symbol-budget-ms") });
  await runBuild(
    { mirror, indexFile, commits, heldPostingsMib: flags.get("held-postings-mib") },
    { report: reportLine, symbols, built: () => symbols.close() },
  );
}
