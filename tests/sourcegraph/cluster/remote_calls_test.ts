import { assertEquals } from "../../support/assert.ts";
import { serialize } from "node:v8";
import { CALL_CONTENT_TYPE, RemoteCalls } from "../../../sourcegraph/cluster/remote_calls.ts";
import type { Replica } from "../../../sourcegraph/cluster/cluster.ts";

// A replica's internal listener closes a connection idle for its idle timeout;
// forwarded calls must not reuse a pooled connection that old, or a call can go
// out on one the peer is closing. Counting the TCP connections the listener
// accepts shows whether the second call reused the first one's.
Deno.test("forwarded calls reuse a pooled connection only while it is younger than half the peers' idle timeout", async () => {
  const accepted: Deno.TcpConn[] = [];
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      await request.arrayBuffer();
      return new Response(new Uint8Array(serialize({ result: "ok" })), {
        headers: { "Content-Type": CALL_CONTENT_TYPE },
      });
    },
  );
  // A counting relay in front of the server: one accepted socket per client connection.
  const relaying = (async () => {
    for await (const conn of listener) {
      accepted.push(conn);
      const upstream = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
      conn.readable.pipeTo(upstream.writable).catch(() => {});
      upstream.readable.pipeTo(conn.writable).catch(() => {});
    }
  })();
  const replica = {
    name: "peer",
    internalUrl: `http://127.0.0.1:${listener.addr.port}`,
  } as Replica;
  const call = { method: "read", partial: false } as never;
  try {
    const fresh = new RemoteCalls("secret", { peerIdleMs: 120_000 });
    assertEquals(await fresh.call(replica, call), "ok");
    assertEquals(await fresh.call(replica, call), "ok");
    assertEquals(accepted.length, 1, "back-to-back calls share one connection");

    const aging = new RemoteCalls("secret", { peerIdleMs: 400 });
    assertEquals(await aging.call(replica, call), "ok");
    assertEquals(accepted.length, 2);
    // Well past half of 400 ms (the pool checks a connection's idle time when it takes it, so
    // a later wake-up on a busy machine only adds margin): it must have been dropped.
    await new Promise((resolve) => setTimeout(resolve, 700));
    assertEquals(await aging.call(replica, call), "ok");
    assertEquals(
      accepted.length,
      3,
      "a connection idle past half the peers' timeout is not reused",
    );
  } finally {
    listener.close();
    for (const conn of accepted) {
      try {
        conn.close();
      } catch { /* already closed */ }
    }
    await relaying.catch(() => {});
    await server.shutdown();
  }
});
