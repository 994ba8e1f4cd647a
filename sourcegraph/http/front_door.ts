/**
 * The service's TCP front. Deno's HTTP server has no header, idle or body
 * timeout and no connection cap, and a failed `accept` ("Too many open
 * files") ends its serve loop. So the public socket is owned here (and so is
 * a replica's internal one, by a front of its own with its own caps): each
 * client connection is accepted, counted, and forwarded byte for byte to the
 * HTTP server listening on a loopback port of its own (`serve.ts`), and
 * closed when it breaks a limit:
 *
 * - a request head gets `HEAD_WINDOW_MS`, plus a second for every
 *   `headerMinRate` bytes of it received, and never more than
 *   `headerTimeoutMs` from its first byte (or from the connect);
 * - a keep-alive connection with no request in progress and no traffic is
 *   closed after `idleTimeoutMs`, and so is one whose client has not taken a
 *   response byte for that long;
 * - at `maxConnections` open connections a new connection is admitted by
 *   closing the one whose request head has been arriving longest, else the
 *   keep-alive one idle longest once it has been idle a second: slow heads
 *   cannot lock out a client that sends its head at once. When there is no
 *   such connection (all serve requests) the new one is answered with a
 *   short 503 and closed. `maxConnectionsPerAddress`
 *   connections from one address are refused the same way;
 * - when descriptors run out, accepting backs off and the cap drops below
 *   the count that exhausted them, for a minute.
 *
 * Time the front itself did not run (its process blocked or starved: a
 * sweep long overdue) counts against none of these limits: a client's bytes
 * may have waited unread in the socket all along.
 *
 * The HTTP server tells the front when a request starts and when its
 * response was sent (the connection is known by the full address the front
 * connected from), so the front knows whether a silent connection is idle or
 * working. When the HTTP server it forwards to is replaced (`serve.ts`
 * rotates it), a connection whose upstream was closed between requests gets
 * a new upstream, and the client bytes no request consumed yet are sent
 * again: the client sees nothing. Body timeouts are enforced where bodies are
 * read (`request_body.ts`).
 *
 * @module
 */

import { beforeDeadline } from "../../shared/deadline.ts";
import type { ConnectionSettings } from "../settings.ts";
import {
  type ClientConnection,
  pumpInbound,
  pumpOutbound,
  TrackedConnection,
  writeAll,
} from "./tracked_connection.ts";

/** Counters of the front, for metrics and tests. */
export interface FrontDoorStats {
  open: number;
  accepted: number;
  refused: number;
  timedOut: number;
  /** Connections closed to admit a new one at the cap. */
  evicted: number;
  /** Upstream connections replaced between requests (the HTTP server was rotated). */
  resumed: number;
  acceptErrors: number;
  /** Requests in flight. */
  inFlight: number;
}

/** The front's time: its clock and the timer of its sweeps (a test drives both). */
export interface FrontClock {
  /** Milliseconds, as `Date.now()`. */
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every(fn: () => void, ms: number): () => void;
}

const WALL_CLOCK: FrontClock = {
  now: Date.now,
  every(fn, ms) {
    const timer = setInterval(fn, ms);
    Deno.unrefTimer(timer);
    return () => clearInterval(timer);
  },
};

/** The HTTP server the front forwards to. */
export interface Upstream {
  /** The loopback port new connections go to. */
  port(): number;
  /** Whether the server on `port` was replaced (its connections may be resumed on `port()`). */
  retired(port: number): boolean;
}

const REFUSAL_BODY = '{"code":"TOO_MANY_CONNECTIONS","message":"too many open connections"}\n';
const REFUSAL = new TextEncoder().encode(
  "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n" +
    `Content-Length: ${new TextEncoder().encode(REFUSAL_BODY).byteLength}\r\n\r\n${REFUSAL_BODY}`,
);
const EMFILE_PENALTY_MS = 60_000;
// Refused connections answered only after their request began, at most this many at a time.
const MAX_REFUSING = 64;
// A connection idle this long may be closed to make room at the cap.
const IDLE_EVICTABLE_MS = 1_000;
// How long an upstream that ended mid-request may take to report the request's end.
const END_REPORT_WAIT_MS = 1_000;

/** Accepts, limits and forwards client connections to the HTTP server `upstream` names. */
export class FrontDoor {
  #settings: ConnectionSettings;
  #upstream: Upstream;
  #log: (message: string) => void;
  #name: { listener: string; capSetting: string };
  #byUpstreamAddress = new Map<string, TrackedConnection>();
  #all = new Set<TrackedConnection>();
  #perAddress = new Map<string, number>();
  #stats = { accepted: 0, refused: 0, timedOut: 0, evicted: 0, resumed: 0, acceptErrors: 0 };
  #cap: number;
  #lastEmfile = 0;
  #clock: FrontClock;
  #stopSweeps: () => void;
  #sweepMs: number;
  #lastSweep: number;
  #listeners = new Set<Deno.Listener>();
  #stopping = false;
  #ended = new Set<() => void>();
  #refusing = 0;

  /**
   * A front with `settings`, forwarding to the HTTP server `upstream` names.
   * `name` says in its log lines which listener it is (none: the public one)
   * and which setting sets its cap; `clock` times it (default: the wall clock).
   */
  constructor(
    settings: ConnectionSettings,
    options: {
      upstream: Upstream;
      log: (message: string) => void;
      name?: { listener: string; capSetting: string };
      clock?: FrontClock;
    },
  ) {
    this.#settings = settings;
    this.#cap = settings.maxConnections;
    this.#upstream = options.upstream;
    this.#log = options.log;
    this.#name = options.name ?? { listener: "", capSetting: "SOURCEGRAPH_MAX_CONNECTIONS" };
    this.#clock = options.clock ?? WALL_CLOCK;
    const shortest = Math.min(settings.headerTimeoutMs, settings.idleTimeoutMs);
    this.#sweepMs = Math.max(50, Math.min(250, Math.floor(shortest / 4)));
    this.#lastSweep = this.#clock.now();
    this.#stopSweeps = this.#clock.every(() => this.#sweep(), this.#sweepMs);
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
   * coming from `remote`; null when no front connection has that address
   * (the request did not come through the front).
   */
  requestStarted(remote: Deno.NetAddr): ClientConnection | null {
    const tracked = this.#byUpstreamAddress.get(addressKey(remote));
    if (!tracked || tracked.closed) return null;
    tracked.started(this.#clock.now());
    return tracked;
  }

  /** Marks that the response of a request started with `requestStarted` was sent. */
  requestEnded(connection: ClientConnection): void {
    const tracked = connection as TrackedConnection;
    tracked.ended(this.#clock.now());
    if (tracked.active > 0) return;
    for (const wake of this.#ended) wake();
    this.#releaseIfIdle(tracked);
  }

  /**
   * The HTTP server was replaced: connections between requests let go of the
   * old one now, the others when their request ends (`#releaseIfIdle`).
   */
  upstreamReplaced(): void {
    for (const tracked of this.#all) this.#releaseIfIdle(tracked);
  }

  /** Whether descriptors ran out within the last minute (replacing the HTTP server waits then). */
  short(): boolean {
    return this.#clock.now() - this.#lastEmfile < EMFILE_PENALTY_MS;
  }

  /** Whether a connection still forwards to the HTTP server on `port`. */
  usesPort(port: number): boolean {
    for (const tracked of this.#all) {
      if (!tracked.closed && tracked.upstreamPort === port) return true;
    }
    return false;
  }

  /** Current counters. */
  stats(): FrontDoorStats {
    let inFlight = 0;
    for (const tracked of this.#all) inFlight += tracked.active;
    return { ...this.#stats, open: this.#all.size, inFlight };
  }

  /**
   * Stops accepting and lets every connection end after its request in
   * flight (at once when it has none); resolves when none is left.
   */
  async drain(): Promise<void> {
    this.#stopping = true;
    for (const listener of this.#listeners) {
      try {
        listener.close();
      } catch {
        // already closed
      }
    }
    for (const tracked of this.#all) this.#releaseIfIdle(tracked);
    while (this.#all.size > 0) await this.#nextRequestEnd(100);
  }

  /** Closes every connection and stops the timers. */
  close(): void {
    void this.drain();
    this.#stopSweeps();
    for (const tracked of this.#all) tracked.close();
  }

  #admit(client: Deno.TcpConn): void {
    const host = (client.remoteAddr as Deno.NetAddr).hostname;
    const fromAddress = this.#perAddress.get(host) ?? 0;
    if (this.#clock.now() - this.#lastEmfile > EMFILE_PENALTY_MS) {
      this.#cap = this.#settings.maxConnections;
    }
    const full = this.#all.size >= this.#cap && !this.#evictOne(this.#clock.now());
    // (A stopping front refuses: its listener is closed, but accepts may be in flight.)
    if (this.#stopping || full || fromAddress >= this.#settings.maxConnectionsPerAddress) {
      this.#stats.refused++;
      void this.#refuse(client);
      return;
    }
    this.#stats.accepted++;
    const tracked = new TrackedConnection(client, host, () => this.#clock.now());
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

  // Answers a refused connection with the 503. A strict client rejects an
  // answer that comes before its request, and closing a socket with unread
  // bytes resets it (the answer may be lost), so the request's first bytes
  // are awaited, the answer sent, and what follows drained briefly. Only
  // `MAX_REFUSING` refusals wait like this at a time (and 1.5 s at most);
  // beyond that a refusal is answered and closed at once.
  async #refuse(client: Deno.TcpConn): Promise<void> {
    const patient = this.#refusing < MAX_REFUSING;
    if (patient) this.#refusing++;
    const buffer = new Uint8Array(16 * 1024);
    try {
      if (patient) await beforeDeadline(client.read(buffer), performance.now() + 1_000);
      // A fresh socket's send buffer is empty: this write does not wait on the client.
      await client.write(REFUSAL);
      if (patient) {
        await client.closeWrite();
        const until = performance.now() + 500;
        // Until the client's end of stream, or the time is up (both are null).
        while ((await beforeDeadline(client.read(buffer), until)) !== null);
      }
    } catch {
      // reset or closed by the client
    } finally {
      if (patient) this.#refusing--;
      try {
        client.close();
      } catch {
        // already closed
      }
    }
  }

  // Makes room at the cap: closes the connection whose request head has
  // been arriving longest (a client that sends its head at once is never
  // it: it is past its head long before the slowest one is), else the
  // keep-alive one idle longest once that has been idle for
  // `IDLE_EVICTABLE_MS` (a client about to send its next request keeps its
  // connection); false when there is none: the new connection is refused.
  #evictOne(now: number): boolean {
    let head: TrackedConnection | null = null;
    let idle: TrackedConnection | null = null;
    for (const tracked of this.#all) {
      if (tracked.closed) continue;
      if (tracked.readingHead) {
        if (head === null || tracked.phaseSince < head.phaseSince) head = tracked;
      } else if (
        tracked.phase === "idle" && tracked.writingSince === null &&
        (idle === null || tracked.lastActivity < idle.lastActivity)
      ) {
        idle = tracked;
      }
    }
    const victim = head ??
      (idle !== null && now - idle.lastActivity >= IDLE_EVICTABLE_MS ? idle : null);
    if (victim === null) return false;
    this.#evict(victim);
    return true;
  }

  #evict(tracked: TrackedConnection): void {
    this.#stats.evicted++;
    tracked.close();
    this.#all.delete(tracked); // its slot is free now; the forward loop's cleanup is idempotent
  }

  async #forward(tracked: TrackedConnection): Promise<void> {
    const first = await this.#dial();
    if (first === null || tracked.closed) {
      first?.conn.close(); // closed by the sweeper while connecting
      return;
    }
    let upstream = this.#attach(tracked, first);
    const inbound = pumpInbound(tracked).then(async () => {
      tracked.clientDone = true;
      if (tracked.closed || tracked.inboundStopped) return;
      try {
        await tracked.upstream?.closeWrite(); // the client finished sending; the answer may follow
      } catch {
        tracked.close();
      }
    });
    try {
      for (;;) {
        const ended = await Promise.race([
          pumpOutbound(tracked, upstream),
          inbound.then(() => new Promise<boolean>(() => {})),
        ]);
        if (!ended || tracked.closed || !(await this.#resumable(tracked))) return;
        // The HTTP server was replaced between requests: carry on with the new one.
        let done: () => void = () => {};
        tracked.switching = new Promise<void>((resolve) => (done = resolve));
        try {
          this.#forgetUpstream(tracked);
          const next = tracked.spare ?? await this.#dial();
          tracked.spare = null;
          if (next === null || tracked.closed) {
            next?.conn.close();
            return;
          }
          upstream = this.#attach(tracked, next);
          for (const chunk of tracked.unanswered ?? []) await writeAll(upstream, chunk);
          tracked.releasing = false;
          this.#stats.resumed++;
        } catch {
          return;
        } finally {
          tracked.switching = null;
          done();
        }
      }
    } finally {
      this.#forgetUpstream(tracked);
    }
  }

  // Half-closes the upstream of a connection between requests whose HTTP
  // server was replaced (or that is to end): the server then closes it once
  // the response before has gone out, and the forward loop moves on to the
  // new server (or ends). Only when no client byte was forwarded since the
  // last response: bytes that arrive later fail to reach the old server, are
  // kept as unanswered and sent again to the new one.
  #releaseIfIdle(tracked: TrackedConnection): void {
    if (!this.#between(tracked) || tracked.releasing) return;
    if (!this.#stopping && !this.#upstream.retired(tracked.upstreamPort)) return;
    tracked.releasing = true;
    if (this.#stopping) {
      tracked.upstream!.closeWrite().catch(() => tracked.close());
      return;
    }
    // The new upstream is connected first: without a descriptor for it the
    // connection stays on the old server and tries again later.
    void this.#dial().then((next) => {
      if (next === null || !this.#between(tracked)) {
        next?.conn.close();
        tracked.releasing = false;
        return;
      }
      tracked.spare = next;
      tracked.upstream!.closeWrite().catch(() => tracked.close());
    });
  }

  // Whether a connection is between requests with nothing forwarded since.
  #between(tracked: TrackedConnection): boolean {
    return tracked.upstream !== null && !tracked.closed && tracked.switching === null &&
      tracked.active === 0 && tracked.phase === "idle" && tracked.unanswered?.length === 0;
  }

  // Whether a connection whose upstream ended can go on with a new one: the
  // server behind it was replaced, no request is in flight on it (its end may
  // be reported just after the upstream closed), and the bytes no request
  // took up are all kept.
  async #resumable(tracked: TrackedConnection): Promise<boolean> {
    if (this.#stopping || !this.#upstream.retired(tracked.upstreamPort)) return false;
    const deadline = Date.now() + END_REPORT_WAIT_MS;
    while (tracked.active > 0 && !tracked.closed && Date.now() < deadline) {
      await this.#nextRequestEnd(deadline - Date.now());
    }
    return tracked.active === 0 && tracked.unanswered !== null && !tracked.inboundStopped &&
      !tracked.clientDone && !tracked.closed && !this.#stopping;
  }

  // Resolves when some connection's last request ends, or after `ms`.
  async #nextRequestEnd(ms: number): Promise<void> {
    let wake: () => void = () => {};
    const ended = new Promise<void>((resolve) => (wake = resolve));
    this.#ended.add(wake);
    const timer = setTimeout(wake, Math.max(1, ms));
    try {
      await ended;
    } finally {
      clearTimeout(timer);
      this.#ended.delete(wake);
    }
  }

  // A connection to the HTTP server new connections go to, or null.
  async #dial(): Promise<{ conn: Deno.TcpConn; port: number } | null> {
    // Out of descriptors, a few tries: closing timed-out connections frees some.
    for (let attempt = 0;; attempt++) {
      const port = this.#upstream.port();
      try {
        return { conn: await Deno.connect({ hostname: "127.0.0.1", port }), port };
      } catch (error) {
        if ((error as { code?: string }).code !== "EMFILE" || attempt === 5) return null;
        this.#descriptorsExhausted();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  // Makes `dialed` the connection's upstream.
  #attach(
    tracked: TrackedConnection,
    dialed: { conn: Deno.TcpConn; port: number },
  ): Deno.TcpConn {
    const upstream = dialed.conn;
    tracked.upstream = upstream;
    tracked.upstreamPort = dialed.port;
    // Small answers must not wait for Nagle's algorithm on either hop.
    for (const conn of [tracked.client, upstream]) {
      try {
        conn.setNoDelay(true);
      } catch {
        // closed meanwhile
      }
    }
    this.#byUpstreamAddress.set(addressKey(upstream.localAddr as Deno.NetAddr), tracked);
    return upstream;
  }

  #forgetUpstream(tracked: TrackedConnection): void {
    const upstream = tracked.upstream;
    if (upstream === null) return;
    // The address may already belong to a newer connection: the kernel reuses ports once closed.
    const key = addressKey(upstream.localAddr as Deno.NetAddr);
    if (this.#byUpstreamAddress.get(key) === tracked) this.#byUpstreamAddress.delete(key);
    try {
      upstream.close();
    } catch {
      // already closed
    }
  }

  // Closes the connections past a limit. A sweep long overdue means the
  // front itself did not run (a blocked or starved process): a client's head
  // may have waited unread in the socket meanwhile, so that time is excused
  // rather than blamed on the client.
  #sweep(): void {
    const now = this.#clock.now();
    const overdue = now - this.#lastSweep - this.#sweepMs;
    this.#lastSweep = now;
    for (const tracked of this.#all) {
      if (overdue > this.#sweepMs) tracked.excuse(overdue);
      // A move to a new HTTP server that found no descriptor is tried again.
      if (!tracked.releasing && !this.short()) this.#releaseIfIdle(tracked);
      const late = tracked.lateAt(now, this.#settings);
      if (late || (tracked.closeAt !== null && now >= tracked.closeAt)) {
        if (late) this.#stats.timedOut++;
        tracked.close();
      }
    }
  }

  #descriptorsExhausted(): void {
    const now = this.#clock.now();
    const lowered = Math.max(8, Math.floor(this.#all.size * 0.9));
    if (lowered < this.#cap) {
      this.#cap = lowered;
      const on = this.#name.listener === "" ? "" : ` on the ${this.#name.listener}`;
      this.#log(
        `open file limit reached${on} with ${this.#all.size} connections open; accepting at most ${lowered} for a minute (raise ulimit -n or lower ${this.#name.capSetting})`,
      );
    }
    this.#lastEmfile = now;
  }
}

function addressKey(address: Deno.NetAddr): string {
  return `${address.hostname}:${address.port}`;
}
