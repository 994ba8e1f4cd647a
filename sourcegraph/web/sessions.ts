/**
 * Web sessions: a signed-in browser holds only a random session id (in an
 * HttpOnly, SameSite=Strict cookie); the caller it stands for, its CSRF
 * token and its expiry are kept in the control store under the hash of
 * that id (`store/session_records.ts`), so a sign-in survives a restart.
 * Sessions of a personal key end when the key is revoked, and the count is
 * bounded: the sessions that expire first go first.
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { Caller } from "../access/caller.ts";
import type { SessionStore } from "../store/session_records.ts";

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
  #records: SessionStore;
  #ttlMs: number;
  #now: () => number;
  #valid: (caller: Session["caller"]) => boolean;
  #maxSessions: number;

  /**
   * Sessions kept in `records` whose callers `valid` still accepts (a revoked
   * key's do not), at most `maxSessions` (default `MAX_SESSIONS`) at once.
   */
  constructor(
    records: SessionStore,
    options: {
      valid: (caller: Session["caller"]) => boolean;
      ttlMs?: number;
      now?: () => number;
      maxSessions?: number;
    },
  ) {
    this.#records = records;
    this.#valid = options.valid;
    this.#ttlMs = options.ttlMs ?? SESSION_TTL_MS;
    this.#now = options.now ?? Date.now;
    this.#maxSessions = options.maxSessions ?? MAX_SESSIONS;
  }

  /** Starts a session for `caller`. */
  async create(caller: Session["caller"]): Promise<Session> {
    const session: Session = {
      id: randomToken(),
      caller,
      csrf: randomToken(),
      expiresAt: this.#now() + this.#ttlMs,
    };
    await this.#records.save(
      { idHash: idHash(session.id), caller, csrf: session.csrf, expiresAt: session.expiresAt },
      { now: this.#now(), max: this.#maxSessions },
    );
    return session;
  }

  /** The live session of `id`, or null (an expired or revoked one is dropped). */
  async get(id: string | undefined): Promise<Session | null> {
    if (id === undefined || id.length > 128) return null;
    const record = await this.#records.find(idHash(id));
    if (!record) return null;
    if (record.expiresAt <= this.#now() || !this.#valid(record.caller)) {
      await this.#records.remove(record.idHash);
      return null;
    }
    return { id, caller: record.caller, csrf: record.csrf, expiresAt: record.expiresAt };
  }

  /** Ends a session. */
  remove(id: string): Promise<void> {
    return this.#records.remove(idHash(id));
  }

  /** How many sessions are kept. */
  size(): Promise<number> {
    return this.#records.count();
  }
}

function idHash(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

/** Whether a form's CSRF token is the expected one (compared in constant time). */
export function sameToken(given: string | null, expected: string): boolean {
  if (given === null || given.length !== expected.length) return false;
  let difference = 0;
  for (let i = 0; i < given.length; i++) difference |= given.charCodeAt(i) ^ expected.charCodeAt(i);
  return difference === 0;
}
