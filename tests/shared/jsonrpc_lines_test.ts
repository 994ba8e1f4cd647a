import { assert, assertEquals, assertIncludes } from "../support/assert.ts";
import { LineReader, spawnHelper } from "../support/processes.ts";

interface Server {
  child: Deno.ChildProcess;
  send(text: string | Uint8Array): Promise<void>;
  next(): Promise<Record<string, unknown> | null>;
  close(): Promise<{ code: number; stderr: string }>;
}

function startServer(): Server {
  const child = spawnHelper("jsonrpc_echo.ts", [], {});
  const writer = child.stdin.getWriter();
  const lines = new LineReader(child.stdout);
  const stderr = new Response(child.stderr).text();
  return {
    child,
    async send(text) {
      await writer.write(typeof text === "string" ? new TextEncoder().encode(text) : text);
    },
    async next() {
      const line = await lines.next(20_000);
      return line === null ? null : JSON.parse(line);
    },
    async close() {
      await writer.close().catch(() => {});
      const status = await child.status;
      return { code: status.code, stderr: await stderr };
    },
  };
}

const request = (id: number, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }) +
  "\n";

Deno.test("each response is flushed before stdin closes (interactive use)", async () => {
  const server = startServer();
  try {
    for (let id = 1; id <= 5; id++) {
      await server.send(request(id, "echo", { id }));
      assertEquals(await server.next(), { jsonrpc: "2.0", id, result: { id } });
    }
  } finally {
    assertEquals((await server.close()).code, 0);
  }
});

Deno.test("requests are handled strictly in order, one at a time", async () => {
  const server = startServer();
  try {
    const started = performance.now();
    await server.send(request(1, "slow") + request(2, "count") + request(3, "count"));
    assertEquals(await server.next(), { jsonrpc: "2.0", id: 1, result: "slow done" });
    const second = await server.next();
    assert(performance.now() - started >= 290, "the second request was answered early");
    assertEquals(second, { jsonrpc: "2.0", id: 2, result: 2 });
    assertEquals(await server.next(), { jsonrpc: "2.0", id: 3, result: 3 });
  } finally {
    await server.close();
  }
});

Deno.test("every request queued before EOF is answered, then the server exits", async () => {
  const server = startServer();
  let batch = "";
  for (let id = 1; id <= 50; id++) batch += request(id, id % 10 === 0 ? "slow" : "echo", id);
  await server.send(batch);
  const closing = server.close();
  for (let id = 1; id <= 50; id++) {
    const response = await server.next();
    assertEquals(response?.id, id);
  }
  assertEquals(await server.next(), null);
  const { code, stderr } = await closing;
  assertEquals(code, 0);
  assertIncludes(stderr, "served until eof");
});

Deno.test("a final line without LF is still answered at EOF", async () => {
  const server = startServer();
  await server.send(request(1, "echo", "a") + request(2, "echo", "b").trimEnd());
  const closing = server.close();
  assertEquals((await server.next())?.result, "a");
  assertEquals((await server.next())?.result, "b");
  assertEquals((await closing).code, 0);
});

Deno.test("a trailing CR is stripped and blank lines are ignored", async () => {
  const server = startServer();
  try {
    await server.send("\n\r\n" + request(7, "echo", "crlf").replace("\n", "\r\n"));
    assertEquals(await server.next(), { jsonrpc: "2.0", id: 7, result: "crlf" });
  } finally {
    await server.close();
  }
});

Deno.test("a line of exactly 1 MiB is served; one byte more is refused and skipped", async () => {
  const server = startServer();
  try {
    const frame = (id: number, size: number) => {
      const empty = JSON.stringify({ jsonrpc: "2.0", id, method: "echo", params: "" });
      return empty.replace('""', JSON.stringify("p".repeat(size - empty.length)));
    };
    const atCap = frame(1, 1024 * 1024);
    assertEquals(new TextEncoder().encode(atCap).length, 1024 * 1024);
    await server.send(atCap + "\r\n");
    const first = await server.next();
    assertEquals(first?.result, JSON.parse(atCap).params);

    await server.send(frame(2, 1024 * 1024 + 1) + "\n" + request(3, "echo", "after"));
    assertEquals(await server.next(), {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "request too large" },
    });
    assertEquals(await server.next(), { jsonrpc: "2.0", id: 3, result: "after" });

    // A huge line arriving in many small writes never grows memory unbounded.
    const huge = "x".repeat(256 * 1024);
    for (let i = 0; i < 16; i++) await server.send(huge);
    await server.send("\n" + request(4, "echo", "still serving"));
    assertEquals((await server.next())?.error, { code: -32600, message: "request too large" });
    assertEquals((await server.next())?.result, "still serving");
  } finally {
    await server.close();
  }
});

Deno.test("malformed frames get JSON-RPC errors and serving continues", async () => {
  const server = startServer();
  try {
    const cases: [string | Uint8Array, unknown][] = [
      ["{not json\n", {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "parse error" },
      }],
      [new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "parse error" },
      }],
      ["[1,2]\n", {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "invalid request" },
      }],
      ['"text"\n', {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "invalid request" },
      }],
      ['{"id":5,"method":"echo"}\n', {
        jsonrpc: "2.0",
        id: 5,
        error: { code: -32600, message: "invalid request" },
      }],
      ['{"jsonrpc":"2.0","id":{"x":1},"method":"echo"}\n', {
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: "invalid request" },
      }],
      ['{"jsonrpc":"2.0","id":6,"method":7}\n', {
        jsonrpc: "2.0",
        id: 6,
        error: { code: -32600, message: "invalid request" },
      }],
      [request(8, "no/such/method"), {
        jsonrpc: "2.0",
        id: 8,
        error: { code: -32601, message: "method not found" },
      }],
      [request(9, "crash"), {
        jsonrpc: "2.0",
        id: 9,
        error: { code: -32603, message: "internal error" },
      }],
    ];
    for (const [frame, expected] of cases) {
      await server.send(frame);
      assertEquals(await server.next(), expected);
    }
    await server.send(request(10, "fail"));
    const failed = await server.next() as { error: { code: number; message: string } };
    assertEquals(failed.error.code, -32001);
    assertEquals(failed.error.message.length, 512);
    await server.send('{"jsonrpc":"2.0","id":"str-id","method":"echo","params":[1]}\n');
    assertEquals(await server.next(), { jsonrpc: "2.0", id: "str-id", result: [1] });
  } finally {
    const { stderr } = await server.close();
    assertIncludes(stderr, "handler failed: Error");
    assert(!stderr.includes("/secret/host/path"), "a handler's error text reached stderr");
  }
});

Deno.test("notifications get no response", async () => {
  const server = startServer();
  try {
    await server.send('{"jsonrpc":"2.0","method":"echo","params":1}\n' + request(2, "count"));
    assertEquals(await server.next(), { jsonrpc: "2.0", id: 2, result: 2 });
  } finally {
    await server.close();
  }
});

Deno.test("console output goes to stderr; stdout carries only protocol", async () => {
  const server = startServer();
  await server.send(request(1, "log") + request(2, "big", { size: 4 * 1024 * 1024 }));
  const closing = server.close();
  assertEquals(await server.next(), { jsonrpc: "2.0", id: 1, result: "logged" });
  const big = await server.next();
  assertEquals((big?.result as string).length, 4 * 1024 * 1024);
  assertEquals(await server.next(), null);
  const { stderr } = await closing;
  assertIncludes(stderr, "log line from a handler");
  assertIncludes(stderr, "info line from a handler");
});
