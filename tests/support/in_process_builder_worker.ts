/**
 * The worker of `in_process_builder.ts`: runs index builds one at a time
 * with `runBuild`, the function the builder process runs, and posts each
 * event as the line the process would write. Its symbol extraction (and
 * the extraction workers' loaded grammars) stays for the next build with
 * the same budget.
 *
 * @module
 */

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

import { type BuildEvent, runBuild } from "../../sourcegraph/search/build/build_main.ts";
import { SymbolExtraction } from "../../sourcegraph/search/build/symbol_extraction.ts";
import type { BuilderJob } from "../../sourcegraph/search/build/builder_command.ts";

/** What the worker posts: a line of output, a complaint, or the build's end. */
export type BuilderMessage = { stdout: string } | { stderr: string } | { exit: number };

// The extraction kept from the last build, and the budget it was made with.
let kept: { budgetMs: number | undefined; symbols: SymbolExtraction } | null = null;

function extraction(budgetMs: number | undefined): SymbolExtraction {
  if (kept !== null && kept.budgetMs === budgetMs) return kept.symbols;
  kept?.symbols.close();
  kept = { budgetMs, symbols: new SymbolExtraction({ budgetMs }) };
  return kept.symbols;
}

function post(message: BuilderMessage): void {
  self.postMessage(message);
}

self.onmessage = async (message: MessageEvent<BuilderJob>) => {
  const job = message.data;
  // As the process's command line gives it: whole milliseconds, never negative.
  const budgetMs = job.symbolBudgetMs === undefined
    ? undefined
    : Math.max(0, Math.round(job.symbolBudgetMs));
  const symbols = extraction(budgetMs);
  // A failed commit may leave the extraction failed or with files in flight: then it is not kept.
  let discard = false;
  let exit = 0;
  const report = (event: BuildEvent) => {
    if (event.event === "failed") discard = true;
    post({ stdout: JSON.stringify(event) + "\n" });
  };
  try {
    await runBuild(job, { report, symbols });
  } catch (error) {
    // What the process would print of an uncaught error, and its exit.
    discard = true;
    exit = 1;
    post({ stderr: String((error as Error)?.stack ?? error) + "\n" });
  }
  if (discard && kept?.symbols === symbols) {
    symbols.close();
    kept = null;
  }
  post({ exit });
};
