/**
 * Why a fetch failed, told from Git's stderr in three stable codes:
 * `GIT_AUTH_FAILED` (the credentials were refused, or none were given where
 * they are needed), `GIT_ACCESS_DENIED` (the repository does not exist or
 * these credentials may not read it; code hosts answer both the same way),
 * `GIT_FETCH_FAILED` (the remote could not be reached, or its host key is
 * not the registered one). Messages are fixed strings: they never carry
 * the source URL, its userinfo or anything Git printed.
 *
 * @module
 */

import { GitError } from "../../shared/git.ts";

const AUTH = [
  /Authentication failed/i,
  /HTTP Basic: Access denied/i,
  /could not read (Username|Password)/i,
  /returned error: 401/i,
  /Invalid username or password/i,
  /Permission denied \((publickey|password|keyboard-interactive)/i,
];
const ACCESS = [
  /Repository not found/i,
  /returned error: (403|404)/i,
  /does not appear to be a git repository/i,
  /repository '.*' not found/i,
  /access denied|not authorized|permission to .* denied/i,
];

/** The failure of a fetch as one of the three codes (timeouts and output limits stay as they are). */
export function classifyFetchFailure(error: GitError): GitError {
  if (error.code !== "GIT_FAILED") return error;
  const stderr = error.stderr;
  const details = { exitCode: error.exitCode, stderr };
  if (AUTH.some((pattern) => pattern.test(stderr))) {
    return new GitError("GIT_AUTH_FAILED", "the remote refused the credentials", details);
  }
  if (ACCESS.some((pattern) => pattern.test(stderr))) {
    return new GitError(
      "GIT_ACCESS_DENIED",
      "the repository does not exist or the credentials cannot read it",
      details,
    );
  }
  return new GitError("GIT_FETCH_FAILED", "the remote could not be fetched", details);
}

/** The codes a failed fetch answers with. */
export type FetchFailureCode = "GIT_AUTH_FAILED" | "GIT_ACCESS_DENIED" | "GIT_FETCH_FAILED";

/** The code a failed sync reports: one of the fetch codes, else `SYNC_FAILED`. */
export function syncFailureCode(error: unknown): FetchFailureCode | "SYNC_FAILED" {
  if (!(error instanceof GitError)) return "SYNC_FAILED";
  return error.code === "GIT_AUTH_FAILED" || error.code === "GIT_ACCESS_DENIED" ||
      error.code === "GIT_FETCH_FAILED"
    ? error.code
    : "SYNC_FAILED";
}
