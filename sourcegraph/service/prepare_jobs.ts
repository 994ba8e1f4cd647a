/**
 * `prepare`: sync a repository now, on the service token only. The same
 * idempotency key within its retention returns the first result again for
 * the same repository and is refused for another.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";
import type { Visibility } from "../access/visibility.ts";
import type { SyncScheduler } from "../git/sync_scheduler.ts";
import { type FetchFailureCode, syncFailureCode } from "../git/fetch_failures.ts";
import type { ControlStore } from "../store/control_store.ts";
import { SourcegraphError } from "../errors.ts";

/** What one prepare did. */
export type PrepareResult =
  & { jobId: string; repo: string }
  & (
    | { state: "succeeded"; heads: Record<string, string>; pruned: number }
    | { state: "failed"; code: FetchFailureCode | "SYNC_FAILED" }
  );

/** Syncs `request.repo` now through `scheduler`, remembering the result under its key. */
export async function prepareRepository(
  caller: Caller,
  request: {
    repo: string;
    idempotencyKey: string;
    store: ControlStore;
    visibility: Visibility;
    scheduler: SyncScheduler;
  },
): Promise<PrepareResult> {
  const { store, idempotencyKey: key } = request;
  if (caller.kind !== "service") {
    throw new SourcegraphError("FORBIDDEN", "prepare needs the service token");
  }
  const repo = request.visibility.repository(caller, request.repo);
  if (key.length < 8 || new TextEncoder().encode(key).length > 128) {
    throw new SourcegraphError("INVALID_IDEMPOTENCY_KEY", "idempotency_key must be 8 to 128 bytes");
  }
  const earlier = store.job(`prepare:${key}`);
  if (earlier) {
    if (earlier.repositoryId !== repo.id) {
      throw new SourcegraphError("IDEMPOTENCY_KEY_REUSED", "this key was used for another request");
    }
    return storedResult(earlier.result);
  }
  let result: PrepareResult;
  try {
    const outcome = await request.scheduler.sync(repo);
    result = {
      jobId: key,
      repo: repo.name,
      state: "succeeded",
      heads: outcome.heads,
      pruned: outcome.pruned,
    };
  } catch (error) {
    result = { jobId: key, repo: repo.name, state: "failed", code: syncFailureCode(error) };
  }
  store.saveJob(`prepare:${key}`, { repositoryId: repo.id, result: JSON.stringify(result) });
  return result;
}

// Results stored by earlier versions spell the job id `job_id`.
function storedResult(text: string): PrepareResult {
  const { job_id: legacyId, ...rest } = JSON.parse(text);
  return legacyId === undefined ? rest : { ...rest, jobId: legacyId };
}
