/**
 * The service's TCP front. Deno's HTTP server has no header, idle or body
 * timeout and no connection cap, and a failed `accept` ("Too many open
 * files") ends its serve loop. So the public socket is owned here: each
 * client connection is accepted, counted, and forwarded byte for byte to the
 * HTTP server listening on a loopback port of its own, and closed when it
 * breaks a limit:
 *
 * - a request head must be complete within `headerTimeoutMs` of its first
 *   byte (or of the connect);
 * - a keep-alive connection with no request in progress and no traffic is
 *   closed after `idleTimeoutMs`, and so is one whose client has not taken a
 *   response byte for that long;
 * - at `maxConnections` open connections (or `maxConnectionsPerAddress` from
 *   one address) a new connection gets a short 503 and is closed; the
 *   established ones are not touched;
 * - when descriptors run out, accepting backs off and the cap drops below
 *   the count that exhausted them, for a minute.
 *
 * The HTTP server tells the front when a request starts and ends on a
 * connection (the connection is known by the port the front connected from),
 * so the front knows whether a silent connection is idle or working. Body
 * timeouts are enforced where bodies are read (`request_body.ts`).
 *
 * @module
 */

import type { ConnectionSettings } from "../settings.ts";
import { type ClientConnection, pump, TrackedConnection } from "./tracked_connection.ts";

/** Counters of the front, for metrics and tests. */
export interface FrontDoorStats {
  open: number;
  accepted: number;
  refused: number;
  timedOut: number;
  acceptErrors: number;
}

const REFUSAL = new TextEncoder().encode(
  "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n" +
    'Content-Length: 72\r\n\r\n{"code":"TOO_MANY_CONNECTIONS","message":"too many open connections"}\n',
);
const EMFILE_PENALTY_MS = 60_000;

/** Accepts, limits and forwards client connections to the HTTP server on `upstreamPort()`. */
export class FrontDoor {
  #settings: ConnectionSettings;
  #upstreamPort: () => number;
  #log: (message: string) => void;
  #byUpstreamPort = new Map<number, TrackedConnection>();
  #all = new Set<TrackedConnection>();
  #perAddress = new Map<string, number>();
  #stats: FrontDoorStats = { open: 0, accepted: 0, refused: 0, timedOut: 0, acceptErrors: 0 };
  #cap: number;
  #lastEmfile = 0;
  #sweeper: ReturnType<typeof setInterval>;
  #listeners = new Set<Deno.Listener>();

  /** A front with `settings`, forwarding to the loopback port `upstreamPort()` returns. */
  constructor(
    settings: ConnectionSettings,
    options: { upstreamPort: () => number; log: (message: string) => void },
  ) {
    this.#settings = settings;
    this.#cap = settings.maxConnections;
    this.#upstreamPort = options.upstreamPort;
    this.#log = options.log;
    const shortest = Math.min(settings.headerTimeoutMs, settings.idleTimeoutMs);
    this.#sweeper = setInterval(
      () => this.#sweep(),
      Math.max(50, Math.min(1_000, Math.floor(shortest / 4))),
    );
    Deno.unrefTimer(this.#sweeper);
  }

  /** Accepts connections from `listener` until it is closed. */
  async serve(listener: Deno.TcpListener): Promise<void> {
    this.#listeners.add(listener);
    for (;;) {
      let client: Deno.TcpConn;
      try {
        client = await listener.accept();
      } catch (error) {
        if (error instanceof Deno.errors.BadResource || error instanceof Deno.errors.Interrupted) {
          break; // the listener was closed
        }
        this.#stats.acceptErrors++;
        if ((error as { code?: string }).code === "EMFILE") this.#descriptorsExhausted();
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      this.#admit(client);
    }
    this.#listeners.delete(listener);
  }

  /**
   * Marks the start of a request on the connection the HTTP server sees as
   * coming from loopback port `upstreamPort`; null when no front connection
   * has that port (the request did not come through the front).
   */
  requestStarted(upstreamPort: number): ClientConnection | null {
    const tracked = this.#byUpstreamPort.get(upstreamPort);
    if (!tracked || tracked.closed) return null;
    tracked.active++;
    tracked.phase = "active";
    tracked.phaseSince = Date.now();
    return tracked;
  }

  /** Marks the end of a request started with `requestStarted`. */
  requestEnded(connection: ClientConnection): void {
    const tracked = connection as TrackedConnection;
    tracked.active = Math.max(0, tracked.active - 1);
    if (tracked.active === 0) {
      tracked.phase = "idle";
      tracked.phaseSince = tracked.lastActivity = Date.now();
    }
  }

  /** Current counters. */
  stats(): FrontDoorStats {
    return { ...this.#stats, open: this.#all.size };
  }

  /** Stops accepting and closes every connection. */
  close(): void {
    clearInterval(this.#sweeper);
    for (const listener of this.#listeners) {
      try {
        listener.close();
      } catch {
        // already closed
      }
    }
    for (const tracked of this.#all) tracked.close();
  }

  #admit(client: Deno.TcpConn): void {
    const host = (client.remoteAddr as Deno.NetAddr).hostname;
    const fromAddress = this.#perAddress.get(host) ?? 0;
    if (Date.now() - this.#lastEmfile > EMFILE_PENALTY_MS) {
      this.#cap = this.#settings.maxConnections;
    }
    if (this.#all.size >= this.#cap || fromAddress >= this.#settings.maxConnectionsPerAddress) {
      this.#stats.refused++;
      // A fresh socket's send buffer is empty: this write does not wait on the client.
      client.write(REFUSAL).catch(() => {}).finally(() => {
        try {
          client.close();
        } catch {
          // already closed
        }
      });
      return;
    }
    this.#stats.accepted++;
    const tracked = new TrackedConnection(client, host);
    this.#all.add(tracked);
    this.#perAddress.set(host, fromAddress + 1);
    void this.#forward(tracked).finally(() => {
      tracked.close();
      this.#all.delete(tracked);
      const left = (this.#perAddress.get(host) ?? 1) - 1;
      if (left > 0) this.#perAddress.set(host, left);
      else this.#perAddress.delete(host);
    });
  }

  async #forward(tracked: TrackedConnection): Promise<void> {
    let upstream: Deno.TcpConn;
    try {
      upstream = await Deno.connect({ hostname: "127.0.0.1", port: this.#upstreamPort() });
    } catch (error) {
      if ((error as { code?: string }).code === "EMFILE") this.#descriptorsExhausted();
      return;
    }
    tracked.upstream = upstream;
    if (tracked.closed) {
      upstream.close(); // closed by the sweeper while connecting
      return;
    }
    // Small answers must not wait for Nagle's algorithm on either hop.
    for (const conn of [tracked.client, upstream]) {
      try {
        conn.setNoDelay(true);
      } catch {
        // closed meanwhile
      }
    }
    const port = (upstream.localAddr as Deno.NetAddr).port;
    this.#byUpstreamPort.set(port, tracked);
    try {
      const inbound = pump(tracked, { from: tracked.client, to: upstream, size: 16 * 1024 }).then(
        async () => {
          if (tracked.closed || tracked.inboundStopped) return;
          try {
            await upstream.closeWrite(); // the client finished sending; the answer may follow
          } catch {
            tracked.close();
          }
        },
      );
      await Promise.race([
        pump(tracked, { from: upstream, to: tracked.client, size: 32 * 1024 }),
        inbound.then(() => new Promise<void>(() => {})),
      ]);
    } finally {
      // The port may already belong to a newer connection: the kernel reuses it once closed.
      if (this.#byUpstreamPort.get(port) === tracked) this.#byUpstreamPort.delete(port);
    }
  }

  #sweep(): void {
    const now = Date.now();
    const { headerTimeoutMs, idleTimeoutMs } = this.#settings;
    for (const tracked of this.#all) {
      const late = tracked.lateAt(now, { headerTimeoutMs, idleTimeoutMs });
      if (late || (tracked.closeAt !== null && now >= tracked.closeAt)) {
        if (late) this.#stats.timedOut++;
        tracked.close();
      }
    }
  }

  #descriptorsExhausted(): void {
    const now = Date.now();
    const lowered = Math.max(8, Math.floor(this.#all.size * 0.9));
    if (lowered < this.#cap) {
      this.#cap = lowered;
      this.#log(
        `open file limit reached with ${this.#all.size} connections open; accepting at most ${lowered} for a minute (raise ulimit -n or lower SOURCEGRAPH_MAX_CONNECTIONS)`,
      );
    }
    this.#lastEmfile = now;
  }
}
