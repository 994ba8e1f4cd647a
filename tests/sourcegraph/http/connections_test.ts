import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import type * as net from "node:net";
import {
  alive,
  connectFrom,
  connectionsTo,
  openSocket,
  portOf,
  rawRequest,
  readUntilClosed,
  rssMib,
  socketOutcome,
  wholeResponse,
} from "../../support/raw_http.ts";
import {
  PROJECT_TOKEN,
  type RunningService,
  withProjectService,
} from "../../support/sourcegraph_service.ts";
import { withInProcessService } from "../../support/in_process_service.ts";
import { withInProcessFront } from "../../support/in_process_front.ts";

const TOKEN = PROJECT_TOKEN;
const READ_HEAD = (host: string) =>
  `POST /sourcegraph/v1/repo/read?repo=local/project HTTP/1.1\r\nHost: ${host}\r\n` +
  `Authorization: Bearer ${TOKEN}\r\nContent-Type: application/json`;

function tokenRead(url: string): Promise<Response> {
  return fetch(`${url}/sourcegraph/v1/repo/read?repo=local/project`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ Path: "a.txt" }),
  });
}

// A token read as an HTTP client makes it: a pooled keep-alive connection that the service
// closed while it idled (its next head late on a loaded machine) is tried once more on a new one.
async function tokenReadRetried(service: RunningService): Promise<Response> {
  try {
    return await tokenRead(service.url);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return await tokenRead(service.url);
  }
}

// These cases run as steps of one service, in this order, under an open-file limit of 256:
// every socket of the flood comes from one address, so the per-address cap must not be what stops
// them; six anonymous bodies stream at once; heads have 2 s, bodies 3 s, idle connections 2 s;
// the log has debug lines.
const LIMIT_CASES: [string, (service: RunningService) => Promise<void>][] = [];
function limitCase(name: string, fn: (service: RunningService) => Promise<void>): void {
  LIMIT_CASES.push([name, fn]);
}

Deno.test("one service under an open-file limit: the server behind the front, an idle-socket flood, bodies over their caps, slow clients", (t) =>
  withProjectService(
    {
      SOURCEGRAPH_HEADER_TIMEOUT: "2s",
      SOURCEGRAPH_IDLE_TIMEOUT: "2s",
      SOURCEGRAPH_BODY_TIMEOUT: "3s",
      SOURCEGRAPH_MAX_CONNECTIONS_PER_ADDRESS: "1000",
      SOURCEGRAPH_ANONYMOUS_CONCURRENCY: "8",
      SOURCEGRAPH_LOG_LEVEL: "debug",
    },
    async (service) => {
      for (const [name, fn] of LIMIT_CASES) await t.step(name, () => fn(service));
    },
    { ulimitFiles: 256 },
  ));

// First: descriptors running out (the flood) stop the replacing of the HTTP server behind the
// front for a minute. Debug lines name its port (replaced every 2 s here, the header timeout; a
// replaced one drains within the header and body timeouts, 5 s).
limitCase(
  "the HTTP server behind the front: a spoofed source port on another loopback address is refused, a direct partial head is closed",
  async (service) => {
    const port = portOf(service.url);
    const innerPort = () => {
      const lines = service.log.filter((line) => line.includes("HTTP server behind the front on"));
      return Number(lines[lines.length - 1].split(":").pop());
    };
    // A keep-alive connection through the front, and its upstream's source port.
    let spoofed: { status: string } | null = null;
    for (let attempt = 0; attempt < 5 && spoofed === null; attempt++) {
      const keep = await openSocket(
        port,
        `${READ_HEAD("127.0.0.1")}\r\nContent-Length: 16\r\n\r\n{"Path":"a.txt"}`,
      );
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
      socket.write(
        `${
          READ_HEAD("127.0.0.1")
        }\r\nContent-Length: 16\r\nConnection: close\r\n\r\n{"Path":"a.txt"}`,
      );
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
      (await rawRequest(
        port,
        `${READ_HEAD("127.0.0.1")}\r\nContent-Length: 16`,
        '{"Path":"a.txt"}',
      )).text,
      "alpha",
      "the front still serves",
    );
  },
);

limitCase(
  "connections: more idle sockets than the open-file limit neither stop the service nor a token holder's reads",
  async (service) => {
    const port = portOf(service.url);
    // The token holder's keep-alive connection is established before the flood.
    assertEquals((await tokenReadRetried(service)).status, 200);
    const idle: Deno.TcpConn[] = [];
    let refusedAtConnect = 0;
    for (let i = 0; i < 600; i++) {
      try {
        idle.push(await openSocket(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
      } catch {
        refusedAtConnect++;
      }
    }
    let reads = 0;
    // Three seconds of reads, and at least eleven however slowly a loaded machine answers.
    const until = performance.now() + 3_000;
    while (performance.now() < until || reads <= 10) {
      const response = await tokenReadRetried(service);
      assertEquals(response.status, 200, "a token read failed during the flood");
      assertIncludes((await response.json()).Content, "alpha");
      reads++;
    }
    assert(reads > 10, `only ${reads} reads answered`);
    assert(await alive(service.pid), "the service died");
    // The half-sent requests are closed by the header timeout (or were refused).
    let closed = 0;
    await Promise.all(idle.map(async (conn) => {
      if ((await readUntilClosed(conn, 20_000)).closed) closed++;
      try {
        conn.close();
      } catch {
        // closed
      }
    }));
    assertEquals(closed, idle.length, `${closed} of ${idle.length} idle sockets were closed`);
    assert(refusedAtConnect < 600, "no socket could connect at all");
    // New connections are served again.
    const again = await rawRequest(
      port,
      `${READ_HEAD("127.0.0.1")}\r\nContent-Length: 16`,
      '{"Path":"a.txt"}',
    );
    assertEquals(again.status, 200, again.text);
    assert(
      !service.log.some((line) => line.includes("failed unexpectedly")),
      service.log.join("\n"),
    );
  },
);

// The cap is the front's: the front and the server behind it composed in this process over the
// handler of an in-process world, as the service composes them (no launched service).
Deno.test("connections: at the cap a waiting head makes room, a new connection gets 503 only when all are serving, and those keep working", () =>
  withInProcessService(({ handle, metrics }) =>
    withInProcessFront(handle, async (port) => {
      const url = `http://127.0.0.1:${port}`;
      // Eleven requests in flight (each sent its head and part of its body) and one keep-alive
      // connection that asks for the metrics: the cap. Each request is let start before the next
      // connects, and the metrics go over that one connection, so no connection arrives while
      // another is still reading its head (it would be closed to make room).
      const asker = await openSocket(port);
      const gauge = async (name: string) => {
        await asker.write(
          new TextEncoder().encode("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        );
        let text = "";
        const buffer = new Uint8Array(64 * 1024);
        while (!/\r\n\r\n/.test(text) || !text.includes("sourcegraph_search_shared_total")) {
          const n = await asker.read(buffer);
          if (n === null) throw new Error("the metrics connection closed");
          text += new TextDecoder().decode(buffer.subarray(0, n));
        }
        return Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1]);
      };
      const inFlight = () => gauge("sourcegraph_requests_in_flight");
      const open: Deno.TcpConn[] = [];
      for (let i = 0; i < 11; i++) {
        open.push(
          await openSocket(port, `${READ_HEAD("127.0.0.1")}\r\nContent-Length: 16\r\n\r\n{"Pa`),
        );
        while (await inFlight() < i + 2) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const extra = await openSocket(port);
      const refused = await readUntilClosed(extra, 15_000);
      assert(refused.text.startsWith("HTTP/1.1 503"), refused.text);
      assertIncludes(refused.text, "TOO_MANY_CONNECTIONS");
      assert(refused.closed, "the refused connection stays open");
      extra.close();
      assertEquals(await inFlight(), 12, "the connections in flight were not touched");
      // An established connection still finishes its request.
      await open[0].write(new TextEncoder().encode('th":"a.txt"}'));
      // Read whole, not until closed: the connection is kept alive.
      const answered = await readUntilClosed(open[0], 15_000, { until: wholeResponse });
      assert(answered.text.startsWith("HTTP/1.1 200"), answered.text);
      // A connection still waiting for its head is closed to admit a new one (once the front has
      // seen the first one close: it runs in this process, and may not have yet).
      open[0].close();
      while (await gauge("sourcegraph_connections_open") > 11) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const waiting = await openSocket(port, "GET /hea");
      await new Promise((resolve) => setTimeout(resolve, 300));
      const admitted = await rawRequest(
        port,
        `${READ_HEAD("127.0.0.1")}\r\nContent-Length: 16`,
        '{"Path":"a.txt"}',
      );
      assertEquals(admitted.status, 200, admitted.text);
      assert((await readUntilClosed(waiting, 15_000)).closed, "the waiting head was not evicted");
      for (const conn of [...open.slice(1), waiting, asker]) {
        try {
          conn.close();
        } catch {
          // closed
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      assertEquals((await tokenRead(url)).status, 200);
      const text = await (await fetch(`${url}/metrics`)).text();
      assert(/sourcegraph_connections_total\{outcome="refused"\} [1-9]/.test(text), text);
      assert(/sourcegraph_connections_total\{outcome="evicted"\} [1-9]/.test(text), text);
    }, {
      settings: {
        maxConnections: 12,
        maxConnectionsPerAddress: 100,
        headerTimeoutMs: 30_000,
        bodyTimeoutMs: 60_000,
      },
      metrics,
    }), {
    repositories: [{ name: "local/project", publicRead: true, files: { "a.txt": "alpha\n" } }],
    settings: { serviceToken: TOKEN, bodyTimeoutMs: 60_000 },
  }));

limitCase(
  "bodies: every route refuses bodies over its cap before buffering them, and memory stays bounded",
  async (service) => {
    const port = portOf(service.url);
    const before = await rssMib(service.pid);
    const routes = [
      "/sourcegraph/v1/repo/read?repo=local/project",
      "/sourcegraph/api/search?repo=local/project",
      "/sourcegraph/api/admin/v1/repos",
      "/sourcegraph/mcp",
    ];
    // Declared too large: refused from the Content-Length alone.
    for (const route of routes) {
      const { status, text } = await rawRequest(
        port,
        `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n` +
          "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
          "Idempotency-Key: big-body-01\r\nContent-Length: 104857600",
      );
      assertEquals(status, 413, `${route}: ${text}`);
    }
    // Streamed without a length: refused once past the cap, six at a time, anonymous.
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    let answered = 0;
    await Promise.all(Array.from({ length: 6 }, async (_, i) => {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 100) controller.enqueue(chunk); // 100 MiB at most
          else controller.close();
        },
      });
      const response = await fetch(`${service.url}${routes[i % 2]}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      }).catch(() => null);
      if (response !== null) {
        assertEquals(response.status, 413);
        assertEquals((await response.json()).Meta.Code, "REQUEST_TOO_LARGE");
        answered++;
      }
    }));
    assert(answered > 0, "no streamed request was answered");
    const after = await rssMib(service.pid);
    assert(after - before < 80, `RSS grew from ${before} to ${after} MiB`);
    assertEquals((await tokenRead(service.url)).status, 200);
  },
);

limitCase(
  "connections: header, idle and body timeouts close slow clients; prompt clients are unaffected",
  async (service) => {
    const port = portOf(service.url);
    // Each slow client has its own connection: they wait out their timeouts side by side.
    await Promise.all([
      partialHeadIsCut(port),
      drippedHeadIsCut(port),
      idleConnectionIsClosed(port),
      stalledBodyIsTimedOut(port),
    ]);
    assertEquals((await tokenReadRetried(service)).status, 200);
  },
);

// A head that never completes: closed after about the header timeout.
async function partialHeadIsCut(port: number): Promise<void> {
  const partial = await openSocket(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  const cut = await readUntilClosed(partial, 15_000);
  // Without the timeout it would stay open: any close well before the wait ends shows it.
  assert(cut.closed, `partial head still open after ${cut.afterMs} ms`);
  partial.close();
}

// A head dripped byte by byte counts from its first byte, not from the last.
async function drippedHeadIsCut(port: number): Promise<void> {
  const drip = await openSocket(port);
  const head = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
  const dripping = (async () => {
    for (const ch of head + "a".repeat(100)) {
      try {
        await drip.write(new TextEncoder().encode(ch));
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const dripped = await readUntilClosed(drip, 14_000);
  // The drip would go on for 15 s (150 bytes at 100 ms); it is cut long before.
  assert(dripped.closed && dripped.afterMs < 14_000, `drip closed after ${dripped.afterMs} ms`);
  await dripping;
  drip.close();
}

// A complete request is answered; the idle keep-alive connection closes after ~2 s.
async function idleConnectionIsClosed(port: number): Promise<void> {
  const keep = await openSocket(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const kept = await readUntilClosed(keep, 20_000);
  assert(kept.text.startsWith("HTTP/1.1 200"), kept.text);
  assert(kept.closed && kept.afterMs > 1_500, `idle close after ${kept.afterMs} ms`);
  keep.close();
}

// A body that stops arriving: 408 REQUEST_TIMEOUT and the connection is closed.
async function stalledBodyIsTimedOut(port: number): Promise<void> {
  const slow = await openSocket(
    port,
    `${READ_HEAD("127.0.0.1")}\r\nContent-Length: 100\r\n\r\n{"Path":`,
  );
  const timed = await readUntilClosed(slow, 20_000);
  assert(timed.text.startsWith("HTTP/1.1 408"), timed.text);
  assertIncludes(timed.text, "REQUEST_TIMEOUT");
  assert(timed.closed, "the slow-body connection stays open");
  slow.close();
}
