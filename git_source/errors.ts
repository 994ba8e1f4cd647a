/**
 * The one error type of the Git knowledge source. Tools report only its code
 * (`"<tool> failed: <code>"`); the message is for local diagnostics.
 *
 * @module
 */

import type { GitSourceErrorCode } from "./protocol.ts";

/** A known failure with a stable code from the feed protocol. */
export class GitSourceError extends Error {
  /** Stable machine-readable code. */
  readonly code: GitSourceErrorCode;

  /** Creates an error with a stable code and a short, safe message. */
  constructor(code: GitSourceErrorCode, message: string) {
    super(message);
    this.name = "GitSourceError";
    this.code = code;
  }
}
