import type { Handler } from "../../../sourcegraph/http/edge_env.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { withInProcessService, WORLD_TOKEN as TOKEN } from "../../support/in_process_service.ts";
import { mcpRequest } from "../../support/mcp_messages.ts";
import { pageRequest } from "../../support/page_requests.ts";

const HOST = "127.0.0.1";
// The red team's body: a tool call whose arguments hold 1.9 million nested arrays (3.9 MB).
const DEEP_MCP = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read",' +
  `"arguments":{"repo":"org/open","path":"a.txt","x":${"[".repeat(1_900_000)}${
    "]".repeat(1_900_000)
  }}}}`;

function post(
  path: string,
  body: string,
  options: { token?: string; headers?: Record<string, string> } = {},
): Request {
  return new Request(`http://${HOST}${path}`, {
    method: "POST",
    headers: {
      host: HOST,
      "content-type": "application/json",
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body,
  });
}

async function answer(response: Response): Promise<[number, string]> {
  const text = await response.text();
  let code = "";
  try {
    const json = JSON.parse(text);
    code = json.code ?? json.Meta?.Code ?? `MCP ${json.error?.code}`;
  } catch {
    code = text.slice(0, 80);
  }
  return [response.status, code];
}

function nested(depth: number): string {
  return `${"[".repeat(depth)}${"]".repeat(depth)}`;
}

// The cases run as steps of one world whose anonymous callers get 10 units a minute. The
// anonymous limits are per client address, so each case asks from its own address
// (127.0.0.1, .2, ...) and starts with a full bucket of its own, as in a world of its own.
const ANONYMOUS_PER_MINUTE = 10;
const CASES: [string, (world: { handle: Handler }) => Promise<void>][] = [];
function bodiesCase(name: string, fn: (world: { handle: Handler }) => Promise<void>): void {
  CASES.push([name, fn]);
}

Deno.test("bodies and methods over one world, each case from its own address", (t) =>
  withInProcessService(async (world) => {
    for (const [i, [name, fn]] of CASES.entries()) {
      const remoteAddr = { hostname: `127.0.0.${i + 1}` };
      const handle: Handler = (request, info) => world.handle(request, info ?? { remoteAddr });
      await t.step(name, () => fn({ handle }));
    }
  }, { settings: { anonymousPerMinute: ANONYMOUS_PER_MINUTE } }));

bodiesCase(
  "bodies: JSON nested past the limit is REQUEST_TOO_DEEP on every JSON route, before it is parsed",
  async ({ handle }) => {
    const mcp = (x: string, token?: string) =>
      handle(
        mcpRequest(
          `http://${HOST}`,
          `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"repo":"org/open","path":"a.txt","x":${x}}}}`,
          { host: HOST, token },
        ),
      );
    // 64 levels in all are allowed on MCP (the message, params, arguments and x's 61).
    const [status] = await answer(await mcp(nested(61), TOKEN));
    assert(status !== 400, "64 levels are accepted");
    assertEquals(await answer(await mcp(nested(62), TOKEN)), [400, "REQUEST_TOO_DEEP"]);
    assertEquals(await answer(await mcp(nested(62))), [400, "REQUEST_TOO_DEEP"], "anonymous");
    // The red team's 3.9 MB body, authenticated (anonymous bodies that large are refused by size).
    assertEquals(
      await answer(
        await handle(mcpRequest(`http://${HOST}`, DEEP_MCP, { host: HOST, token: TOKEN })),
      ),
      [400, "REQUEST_TOO_DEEP"],
    );
    // Plain HTTP API and admin API: 32 levels.
    const read = (x: string) =>
      handle(
        post("/sourcegraph/v1/repo/read?repo=org/open", `{"Path":"a.txt","X":${x}}`, {
          token: TOKEN,
        }),
      );
    assertEquals(await answer(await read(nested(33))), [400, "REQUEST_TOO_DEEP"]);
    assertEquals(
      (await answer(await read(nested(31))))[1],
      "INVALID_REQUEST",
      "shallow: the field",
    );
    const admin = await handle(
      post("/sourcegraph/api/admin/v1/repos", `{"name":${nested(40)}}`, {
        token: TOKEN,
        headers: { "idempotency-key": "k-deep-0001" },
      }),
    );
    assertEquals(await answer(admin), [400, "REQUEST_TOO_DEEP"]);
    // Too many values: refused by count before parsing.
    const wide = `[${"0,".repeat(150_000)}0]`;
    assertEquals(await answer(await mcp(wide, TOKEN)), [413, "REQUEST_TOO_LARGE"]);
  },
);

bodiesCase(
  "bodies: anonymous bodies are capped lower and cost a unit per started 64 KiB",
  async ({ handle }) => {
    const padded = (bytes: number) => {
      const call = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "read", arguments: { repo: "org/open", path: "a.txt" } },
      });
      return call.slice(0, -1) + `,"pad":"${"p".repeat(bytes - call.length - 9)}"}`;
    };
    // Over the anonymous cap: 413 from the declared length (paid as a body of the cap's size,
    // 2 units), while with a token it is read.
    const big = padded(200 * 1024);
    assertEquals(
      await answer(await handle(mcpRequest(`http://${HOST}`, big, { host: HOST }))),
      [413, "REQUEST_TOO_LARGE"],
    );
    const [tokenStatus] = await answer(
      await handle(mcpRequest(`http://${HOST}`, big, { host: HOST, token: TOKEN })),
    );
    assert(tokenStatus !== 413, "the token's cap is the MCP one");
    // 100 KiB bodies cost 2 units each: the 8 units left of this address's 10 take 4 of them,
    // not 8.
    let admitted = 0;
    for (let i = 0; i < 10; i++) {
      const [status, code] = await answer(
        await handle(mcpRequest(`http://${HOST}`, padded(100 * 1024), { host: HOST })),
      );
      if (code === "RATE_LIMITED") {
        assertEquals(status, 429);
        break;
      }
      admitted++;
    }
    assertEquals(admitted, 4);
  },
);

bodiesCase(
  "bodies: a chunked anonymous body is charged as it arrives and cut at the cap",
  async ({ handle }) => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 1024 * 1024) return controller.close();
        sent += 16 * 1024;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
      },
    });
    const response = await handle(
      new Request(`http://${HOST}/sourcegraph/mcp`, {
        method: "POST",
        headers: {
          host: HOST,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body,
      }),
    );
    assertEquals(await answer(response), [413, "REQUEST_TOO_LARGE"]);
    assert(sent <= 200 * 1024, `${sent} bytes were pulled for a 128 KiB cap`);
  },
);

bodiesCase(
  "bodies: a page form with too many fields is refused",
  async ({ handle }: { handle: Handler }) => {
    const form: Record<string, string> = {};
    for (let i = 0; i < 40; i++) form[`f${i}`] = "x";
    const answered = await pageRequest(handle, "/sourcegraph/-/sign-in", { form });
    assertEquals(answered.status, 400);
    assert(answered.body.includes("INVALID_REQUEST"), answered.body.slice(0, 200));
  },
);

bodiesCase(
  "MCP: GET and DELETE are 405 (stateless: no event stream is held open)",
  async ({ handle }) => {
    for (const method of ["GET", "DELETE"]) {
      const response = await handle(
        new Request(`http://${HOST}/sourcegraph/mcp`, {
          method,
          headers: { host: HOST, accept: "text/event-stream" },
        }),
      );
      assertEquals(response.status, 405, method);
      assertEquals(response.headers.get("allow"), "POST");
      await response.body?.cancel();
    }
  },
);
