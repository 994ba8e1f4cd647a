/**
 * Telling who a secret belongs to: the service token, a personal key (by
 * the SHA-256 of the key, the only form the store keeps), or nobody. One
 * rule for bearer headers and for the web sign-in form.
 *
 * @module
 */

import { createHash, timingSafeEqual } from "node:crypto";
import type { ControlStore } from "../store/control_store.ts";
import type { Caller } from "./caller.ts";

/** The stored form of a personal key. */
export function keyHash(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** The caller `secret` authenticates, or null when it is no valid token or key. */
export function callerForSecret(
  secret: string,
  options: { serviceToken?: string; store: ControlStore },
): Caller | null {
  if (options.serviceToken && sameSecret(secret, options.serviceToken)) return { kind: "service" };
  if (secret.startsWith("sgk_")) {
    const id = options.store.keyByHash(keyHash(secret));
    if (id !== null) return { kind: "key", id };
  }
  return null;
}

function sameSecret(given: string, expected: string): boolean {
  // Compare digests: equal lengths for timingSafeEqual, and no length leak.
  return timingSafeEqual(
    new TextEncoder().encode(keyHash(given)),
    new TextEncoder().encode(keyHash(expected)),
  );
}
