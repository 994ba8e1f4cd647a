/**
 * The command line the index builder process (`build_main.ts`) runs with:
 * Deno's flags (read access to the mirror, the index folder and the symbol
 * workers' modules; write access to the index folder; `git` only), then its
 * own arguments. The service and the build benchmark start it the same way.
 *
 * @module
 */

import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { EXTRACTION_WORKER_MODULES } from "./symbol_extraction.ts";

const BUILDER = fileURLToPath(new URL("./build_main.ts", import.meta.url));
// The builder resolves its npm packages (the parser runtime) through the service's import map
// and lock, from the cache only: nothing is fetched while a build runs (`deno task start` caches
// the builder first); its grammars are files beside its code (`symbols/grammars/`).
const CONFIG = fileURLToPath(new URL("../../../deno.json", import.meta.url));

/** What one builder process indexes, and its memory bound. */
export interface BuilderJob {
  mirror: string;
  /** The index file (its folder is the only one the builder may write). */
  indexFile: string;
  /** The commits to index, newest first; every other commit is dropped. */
  commits: readonly string[];
  /** MiB of posting lists held in memory before they are written (`--held-postings-mib`). */
  heldPostingsMib?: number;
  /** How long each commit's symbol extraction may take (`--symbol-budget-ms`; default no bound). */
  symbolBudgetMs?: number;
  /** The cores the builder may use (default: the machine's). */
  cores?: number;
}

/**
 * The builder's own bound on its JavaScript heap (MiB), given on its command
 * line, where it overrides `DENO_V8_FLAGS`: an operator bounds the service's
 * heaps with that variable, and a builder inheriting such a bound would be
 * killed by it on a large repository. What the builder holds is bounded by
 * `--held-postings-mib`; this only keeps V8's own limit where it would be on
 * a machine with 16 GiB or more.
 */
export const BUILDER_HEAP_MIB = 4096;

/**
 * V8's flags for a builder on one core: no background threads (for
 * collection and compilation), which there only take turns with the
 * builder's own. The Git source tree's build on one core of a 2-core AMD
 * EPYC VM: 4.72 -> 4.55 s, medians of four.
 */
export const ONE_CORE_V8_FLAGS: readonly string[] = ["--single-threaded"];

/**
 * glibc's malloc settings for the builder (`GLIBC_TUNABLES`), a short-lived
 * process that allocates a few hundred MiB once: its heap in transparent huge
 * pages where the kernel allows them on request (`madvise`), allocations up to
 * 32 MiB from that heap rather than fresh mappings, and no returning memory to
 * the system before 256 MiB of it are free. A page fault there costs
 * microseconds; the Git source tree's build took 80,000 of them, 41,000 with
 * these settings: 4.55 -> 4.21 s on one core of a 2-core AMD EPYC VM
 * (medians of six, taking turns), peak memory unchanged at 330 MiB. Other C
 * libraries ignore the variable; Git processes the builder starts inherit it.
 */
export const BUILDER_MALLOC_TUNABLES: string = [
  "glibc.malloc.hugetlb=1",
  `glibc.malloc.mmap_threshold=${32 * 1024 * 1024}`,
  `glibc.malloc.trim_threshold=${256 * 1024 * 1024}`,
].join(":");

/** How to start a builder: the arguments of `deno`, and variables set beside the service's own. */
export interface BuilderCommand {
  args: string[];
  env: Record<string, string>;
}

/** The command that runs the builder on `job`. */
export function builderCommand(job: BuilderJob): BuilderCommand {
  return { args: builderArguments(job), env: { GLIBC_TUNABLES: BUILDER_MALLOC_TUNABLES } };
}

function builderArguments(job: BuilderJob): string[] {
  const folder = dirname(job.indexFile);
  const cores = job.cores ?? navigator.hardwareConcurrency ?? 2;
  const v8Flags = [
    `--max-old-space-size=${BUILDER_HEAP_MIB}`,
    ...(cores <= 1 ? ONE_CORE_V8_FLAGS : []),
  ];
  return [
    "run",
    `--config=${CONFIG}`,
    `--v8-flags=${v8Flags.join(",")}`,
    "--cached-only",
    "--no-prompt",
    "--quiet",
    `--allow-read=${[job.mirror, folder, ...EXTRACTION_WORKER_MODULES].join(",")}`,
    `--allow-write=${folder}`,
    "--allow-run=git",
    "--allow-env=PATH",
    BUILDER,
    ...(job.heldPostingsMib === undefined ? [] : [`--held-postings-mib=${job.heldPostingsMib}`]),
    ...(job.symbolBudgetMs === undefined
      ? []
      : [`--symbol-budget-ms=${Math.max(0, Math.round(job.symbolBudgetMs))}`]),
    job.mirror,
    job.indexFile,
    ...job.commits,
  ];
}

/**
 * A builder that runs: its events (one JSON line each, as `build_main.ts`
 * writes them), what it complains of, how it ended, and a way to stop it at
 * once. A builder process (`Deno.ChildProcess`) is one.
 */
export interface RunningBuilder {
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly status: Promise<{ success: boolean; code: number }>;
  kill(signal?: Deno.Signal): void;
}

/** Starts a builder on `job` (throws when it cannot start). */
export type BuilderLauncher = (job: BuilderJob) => RunningBuilder;
