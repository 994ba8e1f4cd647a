/**
 * The one error type of the service: a stable code (exact: clients match on
 * it) and a short, safe message. Domain modules choose codes only; the HTTP
 * status of each code is the HTTP layer's business (`http/status_codes.ts`).
 *
 * @module
 */

import { CodedError } from "../shared/coded_error.ts";

/** A known failure. */
export class SourcegraphError extends CodedError<string> {
  override readonly name = "SourcegraphError";
}
