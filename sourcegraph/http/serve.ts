/**
 * Deno's HTTP server behind the front: it listens on a loopback port of its
 * own, maps each request's connection back to the front's record (by the
 * front's source port), refuses requests that did not come through the
 * front, and is started again when its accept loop fails (descriptors ran
 * out; the connections it already has keep being served meanwhile).
 *
 * @module
 */

import type { FrontDoor } from "./front_door.ts";
import type { Handler } from "./handler.ts";

/** Starts the server; resolves with a function that returns its current port. */
export async function serveBehindFront(
  front: FrontDoor,
  options: { handler: Handler; log: (message: string) => void },
): Promise<() => number> {
  const { handler, log } = options;
  let port = 0;
  let ready: () => void;
  const listening = new Promise<void>((resolve) => (ready = resolve));
  const start = () => {
    let server: Deno.HttpServer<Deno.NetAddr>;
    try {
      server = Deno.serve({
        hostname: "127.0.0.1",
        port,
        onListen: (addr) => {
          port = addr.port;
          ready();
        },
        onError: (error) => {
          log(`unhandled request failure: ${(error as Error)?.stack ?? String(error)}`);
          return new Response(null, { status: 500 });
        },
      }, async (request, info) => {
        const connection = front.requestStarted(info.remoteAddr.port);
        if (connection === null) {
          // Not through the front (another local process found the port).
          return new Response(null, { status: 403, headers: { connection: "close" } });
        }
        try {
          return await handler(request, {
            remoteAddr: { hostname: connection.clientHost },
            connection,
          });
        } finally {
          front.requestEnded(connection);
        }
      });
    } catch (error) {
      log(`HTTP server could not start (${(error as Error).message}); retrying`);
      setTimeout(start, 200);
      return;
    }
    server.finished.catch((error) => {
      log(`HTTP server stopped accepting (${(error as Error).message}); restarting`);
      setTimeout(start, 100);
    });
  };
  start();
  await listening;
  return () => port;
}
