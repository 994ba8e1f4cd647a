/**
 * One client connection as the front tracks it: its phase (reading a
 * request head, serving a request, idle between requests), when it last
 * moved, whether its client is taking response bytes, and the copying of
 * bytes between the client and the HTTP server.
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

type Phase = "head" | "active" | "idle";

/** One client connection and its upstream, with what the limits need to know. */
export class TrackedConnection implements ClientConnection {
  readonly clientHost: string;
  readonly client: Deno.TcpConn;
  upstream: Deno.TcpConn | null = null;
  phase: Phase = "head";
  phaseSince = Date.now();
  lastActivity = Date.now();
  active = 0;
  writingSince: number | null = null;
  closeAt: number | null = null;
  closed = false;
  /** Set once nothing more is to be read from the client. */
  inboundStopped = false;

  /** Tracks `client`, connected from `clientHost`. */
  constructor(client: Deno.TcpConn, clientHost: string) {
    this.client = client;
    this.clientHost = clientHost;
  }

  /**
   * Whether this connection broke a time limit at `now`: an incomplete head
   * past `headerTimeoutMs`, an idle keep-alive or a stalled reader past
   * `idleTimeoutMs`.
   */
  lateAt(now: number, limits: { headerTimeoutMs: number; idleTimeoutMs: number }): boolean {
    const stalledWrite = this.writingSince !== null &&
      now - this.writingSince > limits.idleTimeoutMs;
    return stalledWrite ||
      (this.phase === "head" && now - this.phaseSince > limits.headerTimeoutMs) ||
      (this.phase === "idle" && now - this.lastActivity > limits.idleTimeoutMs);
  }

  /** Stops reading from the client and closes the connection in a quarter second. */
  closeSoon(): void {
    this.inboundStopped = true;
    const at = Date.now() + 250;
    if (this.closeAt === null || this.closeAt > at) this.closeAt = at;
  }

  /** Closes both sides (once). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const conn of [this.client, this.upstream]) {
      try {
        conn?.close();
      } catch {
        // already closed
      }
    }
  }
}

/**
 * Copies bytes `from` one side `to` the other until either ends, keeping
 * the connection's phase and activity current (a client byte after an idle
 * spell starts a new request head; a write to the client that does not
 * finish counts as a stalled reader).
 */
export async function pump(
  tracked: TrackedConnection,
  sides: { from: Deno.TcpConn; to: Deno.TcpConn; size: number },
): Promise<void> {
  const { from, to, size } = sides;
  const toClient = to === tracked.client;
  const buffer = new Uint8Array(size);
  for (;;) {
    if (!toClient && tracked.inboundStopped) return; // a refused body is not forwarded
    let n: number | null;
    try {
      n = await from.read(buffer);
    } catch {
      break;
    }
    if (n === null) break;
    const now = Date.now();
    tracked.lastActivity = now;
    if (!toClient && tracked.phase === "idle") {
      tracked.phase = "head";
      tracked.phaseSince = now;
    }
    if (toClient) tracked.writingSince = now;
    else if (tracked.inboundStopped) return;
    try {
      let written = 0;
      while (written < n) written += await to.write(buffer.subarray(written, n));
    } catch {
      break;
    }
    if (toClient) tracked.writingSince = null;
  }
  if (toClient) tracked.close();
}
