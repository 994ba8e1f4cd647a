import type * as net from "node:net";
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import {
  connectFrom,
  openSocket,
  portOf,
  rawRequest,
  readUntilClosed,
  socketOutcome,
} from "../../support/raw_http.ts";
import { withInProcessService } from "../../support/in_process_service.ts";
import { withInProcessFront } from "../../support/in_process_front.ts";
import type { ConnectionSettings } from "../../../sourcegraph/settings.ts";

const TOKEN = "p".repeat(40);
const BODY = '{"Path":"a.txt"}';
const READ = (host: string) =>
  `POST /sourcegraph/v1/repo/read?repo=local/project HTTP/1.1\r\nHost: ${host}\r\n` +
  `Authorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}`;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function destroy(sockets: Iterable<net.Socket>): void {
  for (const socket of sockets) socket.destroy();
}

/** The front a case talks to. */
interface Front {
  url: string;
}

// The front and the HTTP server behind it composed in this process over the handler of an
// in-process world, as the service composes them: these cases are about the front, not about a
// process (no launched service). Its connection counters are in the world's metrics.
function withFront(
  settings: Partial<ConnectionSettings>,
  fn: (front: Front) => Promise<void>,
): Promise<void> {
  return withInProcessService(
    ({ handle, metrics }) =>
      withInProcessFront(handle, (port) => fn({ url: `http://127.0.0.1:${port}` }), {
        settings,
        metrics,
      }),
    {
      repositories: [{ name: "local/project", publicRead: true, files: { "a.txt": "alpha\n" } }],
      settings: { serviceToken: TOKEN, bodyTimeoutMs: settings.bodyTimeoutMs },
    },
  );
}

// These cases run as steps of one front, in this order: 64 connections at most, 20 per
// address, and a 60 s header timeout (which the dripped head must not need to reach).
const CAP_CASES: [string, (service: Front) => Promise<void>][] = [];
function capCase(name: string, fn: (service: Front) => Promise<void>): void {
  CAP_CASES.push([name, fn]);
}

Deno.test("one front at a cap of 64 connections: slowloris, minimum head rate, absolute-form targets, the per-address refusal", (t) =>
  withFront({
    maxConnections: 64,
    maxConnectionsPerAddress: 20,
    headerTimeoutMs: 60_000,
    bodyTimeoutMs: 30_000,
  }, async (service) => {
    for (const [name, fn] of CAP_CASES) await t.step(name, () => fn(service));
  }));

capCase(
  "slowloris at the cap: 80 dripping heads from 4 addresses never lock out a token holder",
  async (service) => {
    const port = portOf(service.url);
    let attacking = true;
    const open = new Set<net.Socket>();
    // Each attacker socket sends part of a head, then a byte a second; a closed one reconnects.
    const attacker = async (address: string) => {
      while (attacking) {
        let socket: net.Socket;
        try {
          socket = await connectFrom(port, { localAddress: address });
        } catch {
          await sleep(50);
          continue;
        }
        open.add(socket);
        socket.write("GET /healthz HTTP/1.1\r\nHo");
        const drip = setInterval(() => socket.write("s"), 1_000);
        await socketOutcome(socket, 3_600_000).then(() => {});
        clearInterval(drip);
        open.delete(socket);
      }
    };
    const attackers = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"].flatMap((address) =>
      Array.from({ length: 20 }, () => attacker(address))
    );
    for (let i = 0; i < 100 && open.size < 64; i++) await sleep(50);
    assert(open.size >= 60, `only ${open.size} attacker sockets got in`);
    // The token holder connects anew for every read, 100 ms apart, 30 reads (past the first
    // heads' minimum-rate cut at about 3 s, when they all reconnect at once).
    const failures: string[] = [];
    const reads = 30;
    for (let i = 0; i < reads; i++) {
      const { status, text } = await rawRequest(port, READ("127.0.0.1"), BODY);
      if (status !== 200) failures.push(text.split("\r\n")[0] || "no answer");
      await sleep(100);
    }
    attacking = false;
    destroy(open);
    await Promise.all(attackers);
    assertEquals(failures, [], `${failures.length} of ${reads} reads failed`);
    // Its own client, closed: no pooled connection from this address outlives the case.
    const client = Deno.createHttpClient({});
    const metrics = await (await fetch(`${service.url}/metrics`, { client })).text();
    client.close();
    const evicted = Number(/outcome="evicted"\} (\d+)/.exec(metrics)?.[1]);
    assert(evicted > 0, "reads got in by evicting the slowest heads");
  },
);

capCase(
  "heads must keep a minimum rate: a head dripped a byte a second is closed long before the header timeout",
  async (service) => {
    const port = portOf(service.url);
    const drip = await openSocket(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const dripping = setInterval(
      () => drip.write(new TextEncoder().encode("x")).catch(() => {}),
      1_000,
    );
    // 3 s plus a second per 500 bytes: a few seconds. The header timeout alone would take 60 s.
    const cut = await readUntilClosed(drip, 30_000);
    clearInterval(dripping);
    assert(cut.closed, "the dripping head is still open after 30 s");
    drip.close();
    // A head that arrives at once is served.
    assertEquals((await rawRequest(port, READ("127.0.0.1"), BODY)).status, 200);
  },
);

capCase(
  "an absolute-form request target must name the Host; the connect page never advertises it",
  async (service) => {
    const port = portOf(service.url);
    const host = `127.0.0.1:${port}`;
    const evil = await rawRequest(
      port,
      `GET http://evil.example:1/sourcegraph/-/connect HTTP/1.1\r\nHost: ${host}`,
    );
    assertEquals(evil.status, 421, evil.text);
    assert(!evil.text.includes("evil.example"), evil.text);
    const same = await rawRequest(
      port,
      `GET http://${host}/sourcegraph/-/connect HTTP/1.1\r\nHost: ${host}`,
    );
    assertEquals(same.status, 200);
    assertIncludes(same.text, `http://${host}/sourcegraph/mcp`);
  },
);

capCase(
  "the per-address refusal is a well-formed 503 that a strict client reads whole",
  async (service) => {
    const port = portOf(service.url);
    // Requests in flight from this address (each sent its head and part of its body, which the
    // 30 s body timeout lets wait) fill its 20 slots; the next connection is refused at once.
    const held: Deno.TcpConn[] = [];
    let refused = false;
    for (let i = 0; i < 30 && !refused; i++) {
      const conn = await openSocket(port, `${READ("127.0.0.1")}\r\n\r\n{"Pa`);
      const answer = await readUntilClosed(conn, 300);
      if (answer.closed) {
        assert(answer.text.startsWith("HTTP/1.1 503"), answer.text);
        refused = true;
        conn.close();
      } else held.push(conn);
    }
    assert(refused, "no connection past the cap was refused");
    const client = Deno.createHttpClient({});
    const strict = await fetch(`${service.url}/healthz`, { client });
    assertEquals(strict.status, 503);
    assertEquals(strict.headers.get("content-type"), "application/json");
    // The declared length is the body's: a strict client reads it whole.
    assertEquals((await strict.json()).code, "TOO_MANY_CONNECTIONS");
    client.close();
    for (const conn of held) conn.close();
  },
);
