/**
 * The one error type of the service: a stable code (exact, clients match on
 * it), a short safe message and the HTTP status of the HTTP API.
 *
 * @module
 */

import { CodedError } from "../shared/coded_error.ts";

/** A known failure. */
export class SourcegraphError extends CodedError<string> {
  override readonly name = "SourcegraphError";
  /** HTTP status for the HTTP API. */
  readonly status: number;

  /** Creates an error with a stable code (e.g. `FILE_NOT_FOUND`), a safe message and an HTTP status. */
  constructor(code: string, message: string, status = 400) {
    super(code, message);
    this.status = status;
  }
}
