/**
 * Web sessions: a signed-in browser holds only a random session id (in an
 * HttpOnly, SameSite=Strict cookie); the caller it stands for, its CSRF
 * token and its expiry stay here, in memory (a restart signs everyone
 * out). Sessions of a personal key end when the key is revoked, and the
 * count is bounded: the oldest session goes first.
 *
 * @module
 */

import type { Caller } from "../access/caller.ts";

/** One signed-in browser. */
export interface Session {
  id: string;
  caller: Exclude<Caller, { kind: "anonymous" }>;
  /** Sent back by every form that changes state. */
  csrf: string;
  expiresAt: number;
}

/** How long a session lasts from sign-in. */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;
/** Most sessions kept at once. */
export const MAX_SESSIONS = 10_000;

/** A random token for cookies and forms (32 bytes, base64url). */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

/** The sessions of the service. */
export class Sessions {
  #sessions = new Map<string, Session>();
  #ttlMs: number;
  #now: () => number;
  #valid: (caller: Session["caller"]) => boolean;

  /** Sessions whose callers `valid` still accepts (a revoked key's do not). */
  constructor(
    options: { valid: (caller: Session["caller"]) => boolean; ttlMs?: number; now?: () => number },
  ) {
    this.#valid = options.valid;
    this.#ttlMs = options.ttlMs ?? SESSION_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** Starts a session for `caller`. */
  create(caller: Session["caller"]): Session {
    const session: Session = {
      id: randomToken(),
      caller,
      csrf: randomToken(),
      expiresAt: this.#now() + this.#ttlMs,
    };
    this.#sessions.set(session.id, session);
    while (this.#sessions.size > MAX_SESSIONS) {
      this.#sessions.delete(this.#sessions.keys().next().value!);
    }
    return session;
  }

  /** The live session of `id`, or null (an expired or revoked one is dropped). */
  get(id: string | undefined): Session | null {
    if (id === undefined) return null;
    const session = this.#sessions.get(id);
    if (!session) return null;
    if (session.expiresAt <= this.#now() || !this.#valid(session.caller)) {
      this.#sessions.delete(id);
      return null;
    }
    return session;
  }

  /** Ends a session. */
  remove(id: string): void {
    this.#sessions.delete(id);
  }

  /** How many sessions are kept. */
  get size(): number {
    return this.#sessions.size;
  }
}
