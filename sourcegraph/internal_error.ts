/**
 * The one place a failure that is not a `SourcegraphError` becomes an answer.
 * A Git failure (the mirror's `git` failed, timed out or is missing) is an
 * expected dependency failure: `DEPENDENCY_UNAVAILABLE`, retryable, logged
 * with its Git code. Anything else is unexpected: it is logged once, with the
 * request id and its stack, for the operator, and the client gets
 * `INTERNAL_ERROR` with that request id and nothing else.
 *
 * @module
 */

import { GitError } from "../shared/git.ts";
import { SourcegraphError } from "./errors.ts";

/** Maps `error` to the error to answer with, logging what the operator needs. */
export function internalError(
  error: unknown,
  context: { requestId: string; log: (message: string) => void },
): SourcegraphError {
  if (error instanceof SourcegraphError) return error;
  if (error instanceof GitError) {
    context.log(`request ${context.requestId}: git failed (${error.code})`);
    return new SourcegraphError(
      "DEPENDENCY_UNAVAILABLE",
      "a dependency is unavailable; retry later",
    );
  }
  const detail = error instanceof Error
    ? (error.stack ?? `${error.name}: ${error.message}`)
    : String(error);
  context.log(`request ${context.requestId} failed unexpectedly: ${detail}`);
  return new SourcegraphError(
    "INTERNAL_ERROR",
    `internal error; request id ${context.requestId}`,
  );
}
