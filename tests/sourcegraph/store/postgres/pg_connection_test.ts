// The pool's connections and a server that ends them at the worst moment:
// a fake PostgreSQL server on loopback that completes the start-up and, in
// the same write, says "terminating connection due to administrator
// command" (what a fast shutdown sends each session) and closes. The error
// reaches a connection the pool has just handed out, before the caller
// could listen to it: it must be heard (an unheard error event ends the
// process), and the statement on it fails as unreachable.
import { assert, assertEquals } from "../../../support/assert.ts";
import { openPool, unreachable } from "../../../../sourcegraph/store/postgres/pg_connection.ts";

const encoder = new TextEncoder();

// One backend message: its type byte, its length (itself included) and its body.
function message(type: string, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + body.length);
  out[0] = type.charCodeAt(0);
  new DataView(out.buffer).setInt32(1, 4 + body.length);
  out.set(body, 5);
  return out;
}

const AUTHENTICATION_OK = message("R", new Uint8Array(4));
const READY_FOR_QUERY = message("Z", encoder.encode("I"));
// ErrorResponse: fields of a code byte and a NUL-terminated text, then a NUL.
const ADMIN_SHUTDOWN = message(
  "E",
  encoder.encode(
    "SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0",
  ),
);

// Answers each connection's start-up message with a finished start-up and the shutdown error in
// one write, then closes it; `connections` counts them.
function startDyingServer(): { port: number; connections: () => number; stop(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let count = 0;
  const served = (async () => {
    for await (const connection of listener) {
      count++;
      (async () => {
        // The start-up message (one read is enough for its few bytes on loopback).
        await connection.read(new Uint8Array(1024));
        const reply = [AUTHENTICATION_OK, READY_FOR_QUERY, ADMIN_SHUTDOWN];
        const all = new Uint8Array(reply.reduce((n, part) => n + part.length, 0));
        reply.reduce((at, part) => (all.set(part, at), at + part.length), 0);
        await connection.write(all).catch(() => 0);
        connection.close();
      })().catch(() => {});
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    connections: () => count,
    async stop() {
      listener.close();
      await served;
    },
  };
}

Deno.test("pg connection: a session the server ends right as the pool hands it out fails as unreachable, and the error is heard", async () => {
  const server = startDyingServer();
  const pool = openPool(`postgres://u:p@127.0.0.1:${server.port}/db`, { max: 2 });
  try {
    for (const run of [pool.connection.bind(pool), pool.transaction.bind(pool)]) {
      for (let i = 0; i < 3; i++) {
        const outcome = await run((sql) => sql.query("SELECT 1")).then(
          () => null,
          (error: unknown) => error,
        );
        assert(outcome !== null, "a statement on an ended session succeeded");
        assert(unreachable(outcome), `not taken for unreachable: ${outcome}`);
      }
    }
    const plain = await pool.query("SELECT 1").then(() => null, (error: unknown) => error);
    assert(plain !== null && unreachable(plain), `${plain}`);
    // Every attempt opened a new session: none that ended was handed out again.
    assertEquals(server.connections(), 7);
  } finally {
    await pool.end();
    await server.stop();
  }
});
