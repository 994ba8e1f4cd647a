/**
 * The one error type of the provider. Tool calls turn it into a completed
 * `isError` result; its message is short, lower-case and never names a host
 * path or a secret.
 *
 * @module
 */

import { CodedError } from "../shared/coded_error.ts";

/** Stable codes of {@linkcode KnowledgeError}, as callers see them. */
export type KnowledgeErrorCode =
  | "invalid_arguments"
  | "root_refused"
  | "root_changed"
  | "cache_unavailable"
  | "engine_unavailable"
  | "index_missing"
  | "rebuild_required"
  | "git_failed"
  | "git_output_limit"
  | "budget_exhausted"
  | "source_ineligible"
  | "source_unavailable"
  | "source_changed"
  | "line_too_large"
  | "out_of_range";

/** A known failure with a stable code and a safe message. */
export class KnowledgeError extends CodedError<KnowledgeErrorCode> {
  override readonly name = "KnowledgeError";
}
