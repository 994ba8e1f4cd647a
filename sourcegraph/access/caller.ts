/**
 * Who is asking: the service token (full access), a read-only personal key,
 * or an anonymous caller (public repositories only, when public reads are on).
 *
 * @module
 */

/** Who is asking. */
export type Caller = { kind: "service" } | { kind: "key"; id: string } | { kind: "anonymous" };
