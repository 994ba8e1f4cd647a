/**
 * The one error type of the Git knowledge source. Tools report only its code
 * (`"<tool> failed: <code>"`); the message is for local diagnostics.
 *
 * @module
 */

import { CodedError } from "../shared/coded_error.ts";
import type { GitSourceErrorCode } from "./protocol.ts";

/** A known failure with a stable code from the feed protocol. */
export class GitSourceError extends CodedError<GitSourceErrorCode> {
  override readonly name = "GitSourceError";
}
