/**
 * The read tool: re-checks a path's tracked state and eligibility, requires
 * the caller's expected hash to match the current bytes, and returns whole
 * lines trimmed to the result byte bound.
 *
 * @module
 */

import { splitLines } from "../../shared/text.ts";
import { readCurrentSource } from "../project/current_source.ts";
import { pathExclusion } from "../project/eligibility.ts";
import type { GitState } from "../project/git_state.ts";
import { KnowledgeError } from "../errors.ts";
import { READ_DEFAULT_LINES, READ_MAX_LINES } from "../limits.ts";
import { type ProjectRoot, verifyProjectRoot } from "../project/project_root.ts";

const READ_GIT_TIMEOUT_MS = 5_000;

/** What read returns. */
export interface ReadOutcome {
  path: string;
  source_hash: string;
  start_line: number;
  end_line: number;
  total_lines: number;
  text: string;
  truncated: boolean;
}

/** The arguments of read, already type-checked. */
export interface ReadRequest {
  path: string;
  sourceHash: string;
  startLine?: number;
  endLine?: number;
}

/** Reads lines of one current source. */
export async function readSource(
  target: { root: ProjectRoot; git: GitState },
  request: ReadRequest,
  options: { fits: (outcome: ReadOutcome) => boolean },
): Promise<ReadOutcome> {
  const root = target.root;
  verifyProjectRoot(root);
  const start = request.startLine ?? 1;
  if (start < 1) throw new KnowledgeError("invalid_arguments", "start_line must be at least 1");
  const requestedEnd = request.endLine ?? start + READ_DEFAULT_LINES - 1;
  if (requestedEnd < start) {
    throw new KnowledgeError("invalid_arguments", "end_line must not be before start_line");
  }
  if (
    pathExclusion(request.path) !== null ||
    !(await target.git.trackedSet({ timeoutMs: READ_GIT_TIMEOUT_MS })).eligibleSet.has(request.path)
  ) {
    throw new KnowledgeError("source_ineligible", "the path is not an eligible tracked source");
  }
  const current = readCurrentSource(root, request.path);
  if (!current.ok) {
    throw current.reason === "unreadable"
      ? new KnowledgeError("source_unavailable", "the source cannot be read safely")
      : new KnowledgeError("source_ineligible", `the source is skipped (${current.reason})`);
  }
  if (current.hash !== request.sourceHash) {
    throw new KnowledgeError(
      "source_changed",
      'the source changed since it was indexed; run index with mode "refresh" and search again',
    );
  }
  const lines = splitLines(current.text);
  if (start > lines.length) {
    throw new KnowledgeError("out_of_range", `start_line is past the last line (${lines.length})`);
  }
  const end = Math.min(requestedEnd, start + READ_MAX_LINES - 1, lines.length);
  const outcome: ReadOutcome = {
    path: request.path,
    source_hash: current.hash,
    start_line: start,
    end_line: start,
    total_lines: lines.length,
    text: lines[start - 1],
    truncated: false,
  };
  if (!options.fits(outcome)) {
    throw new KnowledgeError("line_too_large", `line ${start} is too large to return`);
  }
  // Grow by whole lines while the result fits; halve the step on overflow.
  let last = start;
  let step = end - start;
  while (step > 0 && last < end) {
    const candidate = Math.min(end, last + step);
    const trial = {
      ...outcome,
      end_line: candidate,
      text: lines.slice(start - 1, candidate).join("\n"),
    };
    if (options.fits(trial)) {
      last = candidate;
      Object.assign(outcome, trial);
    } else {
      step = Math.floor(step / 2);
    }
  }
  outcome.truncated = last < end || end < requestedEnd && end < lines.length;
  return outcome;
}
