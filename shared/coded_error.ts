/**
 * The base of every component's error class: a stable machine-readable code
 * beside a short, safe message (never a host path or a secret).
 *
 * @module
 */

/**
 * An error with a stable code.
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * class LockError extends CodedError<"LOCKED" | "STALE"> {}
 * const error = new LockError("LOCKED", "another process holds the lock");
 * assert(error.code === "LOCKED");
 * ```
 */
export class CodedError<Code extends string | number> extends Error {
  /** Stable machine-readable code. */
  readonly code: Code;

  /** Creates an error with a stable code and a short, safe message. */
  constructor(code: Code, message: string) {
    super(message);
    this.code = code;
  }
}
