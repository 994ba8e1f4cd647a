import type * as net from "node:net";
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import {
  connectFrom,
  connectionsTo,
  openSocket,
  portOf,
  rawRequest,
  readUntilClosed,
  socketOutcome,
} from "../../support/raw_http.ts";
import {
  PROJECT_TOKEN,
  type RunningService,
  withProjectService,
} from "../../support/sourcegraph_service.ts";

const TOKEN = PROJECT_TOKEN;
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

// These cases run as steps of one service, in this order: 64 connections at most, 20 per
// address, and a 60 s header timeout (which the dripped head must not need to reach).
const CAP_CASES: [string, (service: RunningService) => Promise<void>][] = [];
function capCase(name: string, fn: (service: RunningService) => Promise<void>): void {
  CAP_CASES.push([name, fn]);
}

Deno.test("one service at a cap of 64 connections: slowloris, minimum head rate, absolute-form targets", (t) =>
  withProjectService({
    SOURCEGRAPH_MAX_CONNECTIONS: "64",
    SOURCEGRAPH_MAX_CONNECTIONS_PER_ADDRESS: "20",
    SOURCEGRAPH_HEADER_TIMEOUT: "60s",
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
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
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

Deno.test("the per-address refusal is a well-formed 503 that a strict client reads whole", () =>
  withProjectService({ SOURCEGRAPH_MAX_CONNECTIONS_PER_ADDRESS: "2" }, async (service) => {
    const port = portOf(service.url);
    // Fill this address's two slots (a pooled keep-alive connection may hold one already).
    const held: Deno.TcpConn[] = [];
    for (let i = 0; i < 3; i++) {
      const conn = await openSocket(port, "GET /he");
      const answer = await readUntilClosed(conn, 300);
      if (answer.closed) {
        assert(answer.text.startsWith("HTTP/1.1 503"), answer.text);
        conn.close();
        break;
      }
      held.push(conn);
    }
    const client = Deno.createHttpClient({});
    const refused = await fetch(`${service.url}/healthz`, { client });
    assertEquals(refused.status, 503);
    assertEquals(refused.headers.get("content-type"), "application/json");
    // The declared length is the body's: a strict client reads it whole.
    assertEquals((await refused.json()).code, "TOO_MANY_CONNECTIONS");
    client.close();
    for (const conn of held) conn.close();
  }));

Deno.test("the HTTP server behind the front: a spoofed source port on another loopback address is refused, a direct partial head is closed", () =>
  withProjectService({
    SOURCEGRAPH_LOG_LEVEL: "debug",
    SOURCEGRAPH_HEADER_TIMEOUT: "3s",
    SOURCEGRAPH_BODY_TIMEOUT: "2s",
  }, async (service) => {
    const port = portOf(service.url);
    const innerPort = () => {
      const lines = service.log.filter((line) => line.includes("HTTP server behind the front on"));
      return Number(lines[lines.length - 1].split(":").pop());
    };
    // A keep-alive connection through the front, and its upstream's source port.
    let spoofed: { status: string } | null = null;
    for (let attempt = 0; attempt < 5 && spoofed === null; attempt++) {
      const keep = await openSocket(port, `${READ("127.0.0.1")}\r\n\r\n${BODY}`);
      const buffer = new Uint8Array(4096);
      await keep.read(buffer);
      const inner = innerPort();
      const [upstreamPort] = await connectionsTo(inner);
      if (upstreamPort === undefined) {
        keep.close();
        continue; // the server was replaced meanwhile
      }
      // Another local process binds 127.0.0.2 with the same source port and asks directly.
      let socket: net.Socket;
      try {
        socket = await connectFrom(inner, { localAddress: "127.0.0.2", localPort: upstreamPort });
      } catch {
        keep.close();
        continue;
      }
      socket.write(`${READ("127.0.0.1")}\r\nConnection: close\r\n\r\n${BODY}`);
      const { text } = await socketOutcome(socket, 10_000);
      socket.destroy();
      keep.close();
      if (text === "") continue; // the server it reached was shutting down
      spoofed = { status: text.split("\r\n")[0] };
    }
    assert(spoofed !== null, "no spoofing attempt got an answer");
    assertEquals(spoofed.status, "HTTP/1.1 403 Forbidden");
    // A direct connection that never completes its head is closed within a rotation and a drain.
    const direct = await Deno.connect({ hostname: "127.0.0.1", port: innerPort() });
    await direct.write(new TextEncoder().encode("GET /healthz HTTP/1.1\r\nHo"));
    const cut = await readUntilClosed(direct, 30_000);
    assert(cut.closed, "a direct partial head is still open after 30 s");
    direct.close();
    assertIncludes(
      (await rawRequest(port, READ("127.0.0.1"), BODY)).text,
      "alpha",
      "the front still serves",
    );
  }));

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
