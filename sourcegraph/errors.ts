/**
 * The one error type of the service: a stable code (exact, clients match on
 * it), a short safe message and the HTTP status of the HTTP API.
 *
 * @module
 */

/** A known failure. */
export class SourcegraphError extends Error {
  /** Stable code, e.g. `FILE_NOT_FOUND`. */
  readonly code: string;
  /** HTTP status for the HTTP API. */
  readonly status: number;

  /** Creates an error with a stable code, a safe message and an HTTP status. */
  constructor(code: string, message: string, status = 400) {
    super(message);
    this.name = "SourcegraphError";
    this.code = code;
    this.status = status;
  }
}
