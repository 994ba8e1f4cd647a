/**
 * Several reads at one resolved commit, in request order, sharing one budget
 * of lines, bytes and time. A failed item says why and costs no budget; a
 * Git failure is `DEPENDENCY_UNAVAILABLE` for that item; anything unexpected
 * fails the whole call.
 *
 * @module
 */

import { GitError } from "../../shared/git.ts";
import type { PathScope } from "../access/path_scope.ts";
import { SourcegraphError } from "../errors.ts";
import type { MirrorObjects } from "../git/mirror_objects.ts";
import { type FileRead, type ReadBudget, readFile, requestedRange } from "./file_read.ts";

/** read_many's shared budget. */
export const READ_MANY_BUDGET = { lines: 1000, bytes: 256 * 1024, ms: 30_000 };

/** One requested item. */
export interface ReadManyFile {
  path: string;
  startLine?: number;
  endLine?: number;
}

/** One read_many item: a file, an error, or both (a budget-partial file). */
export interface ReadManyItem {
  /** 1-based position in the request. */
  index: number;
  requested: { start: number; end: number };
  path: string;
  commit: string;
  file?: FileRead;
  error?: { code: string; message: string; hint?: string };
}

/** What read_many reads, where. */
export interface ReadManyAt {
  commit: string;
  files: readonly ReadManyFile[];
  scope: PathScope;
  /** The shared content bytes (at most the 256 KiB budget); default that budget. */
  bytes?: number;
}

/** Reads `files` at `commit` within `scope`, one item each, in order. */
export async function readMany(
  tree: MirrorObjects,
  request: ReadManyAt,
): Promise<ReadManyItem[]> {
  const { commit, scope } = request;
  if (request.files.length < 1 || request.files.length > 10) {
    throw new SourcegraphError("INVALID_READ_ITEMS", "read_many takes 1 to 10 files");
  }
  const budget: ReadBudget = {
    lines: READ_MANY_BUDGET.lines,
    bytes: Math.min(READ_MANY_BUDGET.bytes, request.bytes ?? READ_MANY_BUDGET.bytes),
  };
  const deadline = Date.now() + READ_MANY_BUDGET.ms;
  const items: ReadManyItem[] = [];
  for (const [i, file] of request.files.entries()) {
    const index = i + 1;
    const base = { index, path: file.path, commit };
    let requested = { start: file.startLine ?? 1, end: file.endLine ?? 0 };
    try {
      const range = requestedRange(file.startLine, file.endLine);
      requested = range;
      if (Date.now() >= deadline) {
        throw new SourcegraphError("READ_TIMEOUT", "the read_many deadline passed");
      }
      if (budget.lines <= 0 || budget.bytes <= 0) {
        throw new SourcegraphError("READ_BUDGET_EXCEEDED", "the shared read budget is spent");
      }
      scope.require(file.path);
      const spentBefore = { ...budget };
      const read = await readFile(tree, { commit, path: file.path, range, budget });
      if (!scope.covers(read.file.path)) {
        Object.assign(budget, spentBefore); // a refused item spends no budget
        scope.require(read.file.path);
      }
      const item: ReadManyItem = { ...base, requested, file: read.file };
      if (read.limitedByBudget) {
        item.error = {
          code: "READ_BUDGET_EXCEEDED",
          message: `Item ${index}: the shared read budget ran out; continue from NextStartLine`,
        };
      }
      items.push(item);
    } catch (error) {
      if (!(error instanceof SourcegraphError) && !(error instanceof GitError)) throw error;
      const known = error instanceof SourcegraphError
        ? error
        : new SourcegraphError("DEPENDENCY_UNAVAILABLE", "the read failed; retry later");
      items.push({
        ...base,
        requested,
        error: { code: known.code, message: `Item ${index}: ${known.message}` },
      });
    }
  }
  return items;
}
