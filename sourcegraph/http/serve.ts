/**
 * Deno's HTTP server behind the front. It listens on a loopback port, maps
 * each request's connection back to the front's record by the full address
 * the front connected from (a local process that binds another loopback
 * address with the same port is not the front), and refuses requests that
 * did not come through the front.
 *
 * Deno's server offers no hook before a request head is complete, so a
 * local process that connects to this port directly and never finishes a
 * head cannot be seen, let alone timed out. The server is therefore
 * replaced every `rotateMs` by one on a fresh port. New front connections go
 * to the new one at once; the front moves its other connections over as
 * each is between requests, without their clients noticing
 * (`front_door.ts`). The old server is shut down (it stops accepting and
 * closes every connection left, direct ones included) as soon as the front
 * no longer uses it, and at the latest `drainMs` after it was replaced: Deno
 * cuts a request body still arriving at shutdown, and no body may take
 * longer than that. A direct connection thus lives at most `rotateMs +
 * drainMs`. A server whose accept loop fails (descriptors ran out) is
 * replaced the same way.
 *
 * @module
 */

import type { FrontDoor } from "./front_door.ts";
import type { Handler } from "./edge_env.ts";

/** The HTTP server generations behind the front. */
export class InnerServer {
  #front: FrontDoor;
  #handler: Handler;
  #log: (message: string) => void;
  #debug: (message: string) => void;
  #rotateMs: number;
  #drainMs: number;
  #current: Deno.HttpServer<Deno.NetAddr> | null = null;
  #port = 0;
  #servers = new Set<Deno.HttpServer<Deno.NetAddr>>();
  #retiring = new Map<Deno.HttpServer<Deno.NetAddr>, number>();
  #timer: ReturnType<typeof setInterval> | null = null;
  #reaper: ReturnType<typeof setInterval> | null = null;
  #stopped = false;
  #starting: Promise<void> | null = null;

  /**
   * Serves `handler` for requests that came through `front`, replaced every
   * `rotateMs`; a replaced server is shut down at the latest `drainMs` later.
   */
  constructor(
    front: FrontDoor,
    options: {
      handler: Handler;
      log: (message: string) => void;
      rotateMs: number;
      drainMs: number;
      debug?: (message: string) => void;
    },
  ) {
    this.#debug = options.debug ?? (() => {});
    this.#front = front;
    this.#handler = options.handler;
    this.#log = options.log;
    this.#rotateMs = options.rotateMs;
    this.#drainMs = options.drainMs;
  }

  /** Starts the first server and the rotation; resolves once it listens. */
  async start(): Promise<void> {
    await this.#replace();
    // No new server while descriptors are short: it would take one more, and its moves more.
    this.#timer = setInterval(() => {
      if (!this.#front.short()) void this.#replace();
    }, this.#rotateMs);
    this.#reaper = setInterval(() => this.#reap(), 250);
    Deno.unrefTimer(this.#timer);
    Deno.unrefTimer(this.#reaper);
  }

  /** The port new front connections go to. */
  port(): number {
    return this.#port;
  }

  /** Whether the server that listened on `port` was replaced. */
  retired(port: number): boolean {
    return port !== this.#port;
  }

  /**
   * Stops replacing and shuts every server down: each finishes the requests
   * it is serving and closes its other connections; resolves when all did.
   */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    if (this.#reaper !== null) clearInterval(this.#reaper);
    await this.#starting;
    await Promise.all([...this.#servers].map((server) => server.shutdown().catch(() => {})));
  }

  // Starts a server on a fresh port, points new connections at it, then
  // shuts the previous one down.
  #replace(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#starting !== null) return this.#starting;
    this.#starting = this.#listen().then((server) => {
      this.#starting = null;
      if (server === null) return;
      const previous = this.#current;
      this.#current = server;
      this.#port = server.addr.port;
      this.#debug(`HTTP server behind the front on 127.0.0.1:${this.#port}`);
      if (previous !== null) this.#retiring.set(previous, Date.now() + this.#drainMs);
      if (this.#stopped) void server.shutdown().catch(() => {});
      this.#front.upstreamReplaced();
    });
    return this.#starting;
  }

  // Shuts down the replaced servers the front no longer uses (or whose time is up).
  #reap(): void {
    const now = Date.now();
    for (const [server, deadline] of this.#retiring) {
      if (now < deadline && this.#front.usesPort(server.addr.port)) continue;
      this.#retiring.delete(server);
      void server.shutdown().catch(() => {});
    }
  }

  async #listen(): Promise<Deno.HttpServer<Deno.NetAddr> | null> {
    for (;;) {
      let server: Deno.HttpServer<Deno.NetAddr>;
      try {
        let listening: () => void = () => {};
        const ready = new Promise<void>((resolve) => (listening = resolve));
        server = Deno.serve({
          hostname: "127.0.0.1",
          port: 0,
          onListen: () => listening(),
          onError: (error) => {
            this.#log(`unhandled request failure: ${(error as Error)?.stack ?? String(error)}`);
            return new Response(null, { status: 500 });
          },
        }, (request, info) => this.#serve(request, info));
        await ready;
      } catch (error) {
        if (this.#stopped) return null;
        this.#log(`HTTP server could not start (${(error as Error).message}); retrying`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      this.#servers.add(server);
      server.finished.then(
        () => this.#servers.delete(server),
        (error) => {
          this.#servers.delete(server);
          if (this.#stopped || server !== this.#current) return;
          this.#log(`HTTP server stopped accepting (${(error as Error).message}); restarting`);
          setTimeout(() => void this.#replace(), 100);
        },
      );
      return server;
    }
  }

  async #serve(request: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>): Promise<Response> {
    const connection = this.#front.requestStarted(info.remoteAddr);
    if (connection === null) {
      // Not through the front (another local process found the port).
      return new Response(null, { status: 403, headers: { connection: "close" } });
    }
    // The request ends when its response was sent, a streamed body included.
    const ended = () => this.#front.requestEnded(connection);
    info.completed.then(ended, ended);
    return await this.#handler(request, {
      remoteAddr: { hostname: connection.clientHost },
      connection,
    });
  }
}
