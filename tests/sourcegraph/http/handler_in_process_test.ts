import { join } from "node:path";
import { keyHash } from "../../../sourcegraph/http/admin_api.ts";
import { createHandler, type Handler } from "../../../sourcegraph/http/handler.ts";
import { Metrics } from "../../../sourcegraph/http/metrics.ts";
import { SyncScheduler } from "../../../sourcegraph/git/sync_scheduler.ts";
import { RepositoryService } from "../../../sourcegraph/service/repository_service.ts";
import { ControlStore } from "../../../sourcegraph/store/control_store.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { mcpRequest, toolCall } from "../../support/mcp_messages.ts";

const TOKEN = "i".repeat(40);
const KEY = "sgk_in_process_key_0001";

/** The real handler over a real store, mirrors and service, called as Request → Response. */
async function withHandler(fn: (handle: Handler) => Promise<void>): Promise<void> {
  const parent = await tempDir("sg-inproc-");
  const data = join(parent, "data");
  await Deno.mkdir(join(data, "mirrors"), { recursive: true });
  const store = new ControlStore(join(data, "control.sqlite3"));
  const scheduler = new SyncScheduler(store, data, { log: () => {} });
  const service = new RepositoryService(store, data, { publicRead: true, searchCacheBytes: 0 });
  try {
    for (const [name, isPublic] of [["org/open", true], ["org/closed", false]] as const) {
      const source = await createRepo({ "a.txt": `${name}\n` }, { parent, name: name.slice(4) });
      const repo = store.register({
        name,
        source: source.path,
        publicRead: isPublic,
        policy: { branches: ["main"] },
        pathGroups: [],
        syncIntervalMinutes: 5,
      });
      await scheduler.sync(repo);
    }
    store.addKey("key_1", { keyHash: keyHash(KEY), name: "reader" });
    const handler = createHandler(service, {
      store,
      scheduler,
      settings: {
        serviceToken: TOKEN,
        allowedHosts: [],
        anonymousPerMinute: 10_000,
        anonymousConcurrency: 100,
        maxBodyBytes: 1024 * 1024,
        maxMcpBodyBytes: 4 * 1024 * 1024,
        bodyTimeoutMs: 5_000,
      },
      metrics: new Metrics(),
      log: () => {},
    });
    await fn(handler);
  } finally {
    await service.close();
    store.close();
    await removeDir(parent);
  }
}

/** Calls one tool through the handler; returns the error code or "OK" and the text. */
async function tool(
  handle: Handler,
  name: string,
  args: Record<string, unknown>,
  token?: string,
): Promise<[string, string]> {
  const response = await handle(
    mcpRequest("http://127.0.0.1", toolCall(1, name, args), { token, host: "127.0.0.1" }),
  );
  const body = await response.json();
  if (body.error) return [`RPC ${body.error.code}`, body.error.message];
  const text = body.result.content[0].text as string;
  if (!body.result.isError) return ["OK", text];
  // The SDK answers schema and unknown-tool failures itself: "MCP error <code>: …".
  const sdk = /^MCP error (-?\d+)/.exec(text);
  return [sdk ? `MCP ${sdk[1]}` : JSON.parse(text).code, text];
}

Deno.test("in process: the auth matrix over read, repositories and prepare", () =>
  withHandler(async (handle) => {
    const callers = { anonymous: undefined, key: KEY, service: TOKEN };
    const expected: Record<string, [string, string, string]> = {
      // read org/open, read org/closed, prepare org/open
      anonymous: ["OK", "REPOSITORY_NOT_FOUND", "MCP -32602"],
      key: ["OK", "OK", "MCP -32602"],
      service: ["OK", "OK", "OK"],
    };
    for (const [kind, token] of Object.entries(callers)) {
      const open = await tool(handle, "read", { repo: "org/open", path: "a.txt" }, token);
      const closed = await tool(handle, "read", { repo: "org/closed", path: "a.txt" }, token);
      const prepare = await tool(
        handle,
        "prepare",
        { repo: "org/open", idempotency_key: `prep-${kind}-01` },
        token,
      );
      assertEquals([open[0], closed[0], prepare[0]], expected[kind], kind);
      const listed = JSON.parse((await tool(handle, "repositories", {}, token))[1]);
      const names = listed.repositories.map((repo: { repo: string }) => repo.repo);
      assertEquals(names, kind === "anonymous" ? ["org/open"] : ["org/closed", "org/open"], kind);
    }
    const bad = await handle(
      new Request("http://127.0.0.1/sourcegraph/v1/repos", {
        headers: { host: "127.0.0.1", authorization: "Bearer sgk_not_a_key" },
      }),
    );
    assertEquals([bad.status, (await bad.json()).code], [401, "AUTHENTICATION_REQUIRED"]);
  }));

Deno.test("in process: arguments are validated before a tool runs", () =>
  withHandler(async (handle) => {
    for (
      const args of [
        { repo: "org/open", path: "a.txt", extra: 1 },
        { repo: "org/open", path: "a.txt", start_line: 0 },
        { repo: "", path: "a.txt" },
        { repo: "org/open", path: "x".repeat(4097) },
        { repo: "org/open" },
      ]
    ) {
      const [code] = await tool(handle, "read", args, TOKEN);
      assert(code !== "OK", JSON.stringify(args));
    }
    assertEquals(
      (await tool(handle, "read", { repo: "org/open", path: "../a" }, TOKEN))[0],
      "INVALID_PATH",
    );
    const [ok, text] = await tool(handle, "read", { repo: "org/open", path: "a.txt" }, TOKEN);
    assertEquals(ok, "OK");
    assert(text.includes("1: org/open"), text);
  }));
