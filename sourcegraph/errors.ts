/**
 * The one error type of the service: a stable code (exact: clients match on
 * it), a short, safe message, and where it helps a hint that says how to
 * recover (what does exist, which argument to change). Domain modules choose
 * codes only; the HTTP status of each code is the HTTP layer's business
 * (`http/status_codes.ts`).
 *
 * @module
 */

import { CodedError } from "../shared/coded_error.ts";

/** A known failure. */
export class SourcegraphError extends CodedError<string> {
  override readonly name = "SourcegraphError";
  /** How to recover, for the caller (one line; never a secret or a host path). */
  readonly hint?: string;

  /** `code` and `message`, with an optional `hint`. */
  constructor(code: string, message: string, options: { hint?: string } = {}) {
    super(code, message);
    if (options.hint !== undefined) this.hint = options.hint;
  }
}

/** Names quoted for a hint, at most `max` characters each (bounded answers). */
export function quotedNames(names: readonly string[], max = 200): string {
  return names.map((name) => JSON.stringify(name.length > max ? `${name.slice(0, max)}…` : name))
    .join(", ");
}
