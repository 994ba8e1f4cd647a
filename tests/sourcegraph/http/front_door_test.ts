import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import { type FrontClock, FrontDoor } from "../../../sourcegraph/http/front_door.ts";
import { InnerServer } from "../../../sourcegraph/http/serve.ts";
import { HEAD_WINDOW_MS } from "../../../sourcegraph/http/tracked_connection.ts";
import { DEFAULT_CONNECTION_SETTINGS } from "../../../sourcegraph/settings.ts";

// A clock the test moves, and the front's sweep, which the test calls.
class ManualClock implements FrontClock {
  t = Date.now();
  sweepMs = 0;
  #sweep: (() => void) | null = null;
  now(): number {
    return this.t;
  }
  every(fn: () => void, ms: number): () => void {
    this.#sweep = fn;
    this.sweepMs = ms;
    return () => (this.#sweep = null);
  }
  /** Moves the clock `ms` on, then sweeps. */
  sweepAfter(ms: number): void {
    this.t += ms;
    this.#sweep!();
  }
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert(ok(), `never: ${what}`);
}

async function readAll(conn: Deno.TcpConn): Promise<string> {
  const buffer = new Uint8Array(4096);
  let text = "";
  for (;;) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) return text;
    text += new TextDecoder().decode(buffer.subarray(0, n));
    if (text.includes("\r\n\r\nok")) return text;
  }
}

const REQUEST = new TextEncoder().encode("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");

// The front forwards only once it runs: while its process is blocked (a cold
// request's work, a starved machine) a client's head waits unread in the
// socket, and the sweep that runs first after the block must not take that
// time for a slow head (a connection closed without an answer).
Deno.test("front: the time its own process did not run is not a client's slow head", async () => {
  const clock = new ManualClock();
  let inner: InnerServer | null = null;
  const front = new FrontDoor(DEFAULT_CONNECTION_SETTINGS, {
    upstream: { port: () => inner!.port(), retired: (port) => inner!.retired(port) },
    log: () => {},
    clock,
  });
  inner = new InnerServer(front, {
    handler: () => Promise.resolve(new Response("ok")),
    log: () => {},
    rotateMs: 3_600_000,
    drainMs: 1_000,
  });
  await inner.start();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = front.serve(listener);
  const port = listener.addr.port;
  const conns: Deno.TcpConn[] = [];
  try {
    // Connected; its head not read yet when the front stops running for 7 s.
    const waited = await Deno.connect({ hostname: "127.0.0.1", port });
    conns.push(waited);
    await until("the first connection is accepted", () => front.stats().open === 1);
    clock.sweepAfter(7_000);
    assertEquals(front.stats().timedOut, 0);
    await waited.write(REQUEST);
    assertIncludes(await readAll(waited), "HTTP/1.1 200");

    // A client that sends nothing while the front sweeps on time is still cut.
    const slow = await Deno.connect({ hostname: "127.0.0.1", port });
    conns.push(slow);
    await until("the second connection is accepted", () => front.stats().accepted === 2);
    for (let spent = 0; spent <= HEAD_WINDOW_MS; spent += clock.sweepMs) {
      clock.sweepAfter(clock.sweepMs);
    }
    assertEquals(front.stats().timedOut, 1);
    assertEquals(await readAll(slow), "");
  } finally {
    for (const conn of conns) conn.close();
    await front.drain();
    front.close();
    await serving;
    await inner.shutdown();
  }
});
