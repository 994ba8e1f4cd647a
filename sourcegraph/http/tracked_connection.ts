/**
 * One client connection as the front tracks it: its phase (reading a
 * request head, serving a request, idle between requests), when it last
 * moved, how fast its head arrives, whether its client is taking response
 * bytes, and the client bytes not yet taken up by a request (so they can be
 * sent again when the HTTP server behind the front is replaced).
 *
 * @module
 */

/** A client connection as the HTTP handler sees it. */
export interface ClientConnection {
  /** The client's address. */
  readonly clientHost: string;
  /**
   * Stops reading from the client and closes the connection shortly (after
   * the current response had a moment to go out): for a refused body.
   */
  closeSoon(): void;
}

/** The time limits of a connection. */
export interface ConnectionLimits {
  /** Longest a request head may take. */
  headerTimeoutMs: number;
  /** Bytes per second a head must keep arriving at after `HEAD_WINDOW_MS` (0: no rate). */
  headerMinRate: number;
  /** Longest an idle keep-alive connection or a stalled reader is kept. */
  idleTimeoutMs: number;
}

/**
 * What a head gets before the minimum rate applies: it is then allowed a
 * further second for every `headerMinRate` bytes received (Apache
 * mod_reqtimeout's `header=3-…,MinRate=…`), never more than the header timeout.
 */
export const HEAD_WINDOW_MS = 3_000;

/** Most client bytes kept for a resend; a request that sent more is not resent. */
export const MAX_UNANSWERED_BYTES = 64 * 1024;

type Phase = "head" | "active" | "idle";

/** One client connection and its upstream, with what the limits need to know. */
export class TrackedConnection implements ClientConnection {
  readonly clientHost: string;
  readonly client: Deno.TcpConn;
  upstream: Deno.TcpConn | null = null;
  /** The port of the HTTP server `upstream` is connected to. */
  upstreamPort = 0;
  phase: Phase = "head";
  phaseSince: number;
  /** Bytes of the current head received so far. */
  headBytes = 0;
  /**
   * Whether the client sent the blank line that ends the current head: any
   * wait from then on is the server's, not the client's.
   */
  headComplete = false;
  // The last bytes of the head so far, to find its end across reads.
  #headTail = 0;
  lastActivity: number;
  active = 0;
  writingSince: number | null = null;
  closeAt: number | null = null;
  closed = false;
  /** Set once nothing more is to be read from the client. */
  inboundStopped = false;
  /**
   * Client bytes forwarded since the last request ended and before the next
   * one started: no request has consumed them. Null once they outgrew
   * `MAX_UNANSWERED_BYTES`.
   */
  unanswered: Uint8Array[] | null = [];
  #unansweredBytes = 0;
  /** Resolves when a replacement upstream is connected and the unanswered bytes are resent. */
  switching: Promise<void> | null = null;
  /** Set while the connection lets go of its upstream between requests. */
  releasing = false;
  /** The upstream connected ahead to replace the one being let go. */
  spare: { conn: Deno.TcpConn; port: number } | null = null;
  /** Set once the client sent its last byte. */
  clientDone = false;

  /** The front's clock (milliseconds). */
  readonly now: () => number;

  /** Tracks `client`, connected from `clientHost`, timed by `now` (default: the wall clock). */
  constructor(client: Deno.TcpConn, clientHost: string, now: () => number = Date.now) {
    this.client = client;
    this.clientHost = clientHost;
    this.now = now;
    this.phaseSince = this.lastActivity = now();
  }

  /**
   * Whether this connection broke a time limit at `now`: an incomplete head
   * past its allowance, an idle keep-alive or a stalled reader past
   * `idleTimeoutMs`.
   */
  lateAt(now: number, limits: ConnectionLimits): boolean {
    const stalledWrite = this.writingSince !== null &&
      now - this.writingSince > limits.idleTimeoutMs;
    return stalledWrite ||
      (this.phase === "head" && now - this.phaseSince > this.headAllowanceMs(limits)) ||
      (this.phase === "idle" && now - this.lastActivity > limits.idleTimeoutMs);
  }

  /** How long the current head may take, given the bytes of it received so far. */
  headAllowanceMs(limits: ConnectionLimits): number {
    if (limits.headerMinRate <= 0 || this.headComplete) return limits.headerTimeoutMs;
    const earned = (this.headBytes * 1000) / limits.headerMinRate;
    return Math.min(limits.headerTimeoutMs, HEAD_WINDOW_MS + earned);
  }

  /** Whether this connection's client is still sending its first or next request head. */
  get readingHead(): boolean {
    return this.phase === "head" && this.active === 0 && !this.headComplete;
  }

  /** Records client bytes about to be forwarded. */
  received(bytes: Uint8Array, now: number): void {
    this.lastActivity = now;
    if (this.phase === "idle") {
      this.phase = "head";
      this.phaseSince = now;
      this.headBytes = 0;
      this.headComplete = false;
      this.#headTail = 0;
    }
    if (this.phase === "head") {
      this.headBytes += bytes.byteLength;
      if (!this.headComplete) this.#findHeadEnd(bytes);
    }
    if (this.active > 0 || this.unanswered === null) return;
    this.#unansweredBytes += bytes.byteLength;
    if (this.#unansweredBytes > MAX_UNANSWERED_BYTES) this.unanswered = null;
    else this.unanswered.push(bytes.slice());
  }

  // Looks for CR LF CR LF, carrying the last bytes of earlier reads (as a
  // shift register of the last four bytes).
  #findHeadEnd(bytes: Uint8Array): void {
    let tail = this.#headTail;
    for (let i = 0; i < bytes.byteLength; i++) {
      tail = ((tail << 8) | bytes[i]) >>> 0;
      if (tail === 0x0d0a0d0a) {
        this.headComplete = true;
        break;
      }
    }
    this.#headTail = tail;
  }

  /** A request started on this connection: it consumed the bytes sent so far. */
  started(now: number): void {
    this.active++;
    this.phase = "active";
    this.phaseSince = now;
    this.unanswered = [];
    this.#unansweredBytes = 0;
  }

  /** A request on this connection ended (its response was sent). */
  ended(now: number): void {
    this.active = Math.max(0, this.active - 1);
    if (this.active === 0) {
      this.phase = "idle";
      this.phaseSince = this.lastActivity = now;
    }
  }

  /** Stops reading from the client and closes the connection in a quarter second. */
  closeSoon(): void {
    this.inboundStopped = true;
    const at = this.now() + 250;
    if (this.closeAt === null || this.closeAt > at) this.closeAt = at;
  }

  /**
   * The front did not run for `ms` (its process was blocked or starved): the
   * client's bytes may have waited unread in the socket all that time, so
   * none of it counts against the client's head, idle or reading time.
   */
  excuse(ms: number): void {
    this.phaseSince += ms;
    this.lastActivity += ms;
    if (this.writingSince !== null) this.writingSince += ms;
  }

  /** Closes both sides (once). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const conn of [this.client, this.upstream, this.spare?.conn]) {
      try {
        conn?.close();
      } catch {
        // already closed
      }
    }
  }
}

/**
 * Copies the client's bytes to the connection's current upstream until the
 * client stops sending, keeping the phase, the head rate and the unanswered
 * bytes current. While the upstream is being replaced, bytes wait for the
 * replacement; a write that fails because the upstream went away is left to
 * the replacement's resend (the bytes are among the unanswered ones) or to
 * the close that follows.
 */
export async function pumpInbound(tracked: TrackedConnection): Promise<void> {
  const buffer = new Uint8Array(16 * 1024);
  for (;;) {
    if (tracked.inboundStopped || tracked.closed) return; // a refused body is not forwarded
    let n: number | null;
    try {
      n = await tracked.client.read(buffer);
    } catch {
      return;
    }
    if (n === null) return;
    if (tracked.inboundStopped) return;
    if (tracked.switching !== null) await tracked.switching;
    const chunk = buffer.subarray(0, n);
    tracked.received(chunk, tracked.now());
    const upstream = tracked.upstream;
    if (upstream === null || tracked.closed) return;
    try {
      await writeAll(upstream, chunk);
    } catch {
      // The upstream went away: resent by its replacement, or the connection closes.
    }
  }
}

/**
 * Copies `upstream`'s bytes to the client until the upstream ends (resolves
 * true) or the client stops taking them (false). A write that does not
 * finish counts as a stalled reader.
 */
export async function pumpOutbound(
  tracked: TrackedConnection,
  upstream: Deno.TcpConn,
): Promise<boolean> {
  const buffer = new Uint8Array(32 * 1024);
  for (;;) {
    let n: number | null;
    try {
      n = await upstream.read(buffer);
    } catch {
      return true;
    }
    if (n === null) return true;
    const now = tracked.now();
    tracked.lastActivity = now;
    tracked.writingSince = now;
    try {
      await writeAll(tracked.client, buffer.subarray(0, n));
    } catch {
      return false;
    }
    tracked.writingSince = null;
  }
}

/** Writes every byte of `bytes` to `conn`. */
export async function writeAll(conn: Deno.TcpConn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.byteLength) written += await conn.write(bytes.subarray(written));
}
