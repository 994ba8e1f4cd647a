import { join } from "node:path";
import { keyHash } from "../../../sourcegraph/access/credentials.ts";
import { createHandler, type Handler } from "../../../sourcegraph/http/handler.ts";
import { Metrics } from "../../../sourcegraph/http/metrics.ts";
import { SyncScheduler } from "../../../sourcegraph/git/sync_scheduler.ts";
import { RepositoryService } from "../../../sourcegraph/service/repository_service.ts";
import { ControlStore } from "../../../sourcegraph/store/control_store.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { callHandler } from "../../support/tool_calls.ts";

const TOKEN = "i".repeat(40);
const KEY = "sgk_in_process_key_0001";

/** The real handler over a real store, mirrors and service, called as Request → Response. */
async function withHandler(fn: (handle: Handler) => Promise<void>): Promise<void> {
  const parent = await tempDir("sg-inproc-");
  const data = join(parent, "data");
  await Deno.mkdir(join(data, "mirrors"), { recursive: true });
  const store = new ControlStore(join(data, "control.sqlite3"));
  const scheduler = new SyncScheduler(store, data, { log: () => {} });
  const service = new RepositoryService(store, data, { publicRead: true });
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
      const read = (repo: string) =>
        callHandler(handle, "read", { args: { repo, path: "a.txt" }, token });
      const open = await read("org/open");
      const closed = await read("org/closed");
      const prepare = await callHandler(handle, "prepare", {
        args: { repo: "org/open", idempotency_key: `prep-${kind}-01` },
        token,
      });
      assertEquals([open.code, closed.code, prepare.code], expected[kind], kind);
      const listed = JSON.parse((await callHandler(handle, "repositories", { token })).texts[0]);
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
      const { code } = await callHandler(handle, "read", { args, token: TOKEN });
      assert(code !== "OK", JSON.stringify(args));
    }
    assertEquals(
      (await callHandler(handle, "read", {
        args: { repo: "org/open", path: "../a" },
        token: TOKEN,
      }))
        .code,
      "INVALID_PATH",
    );
    const ok = await callHandler(handle, "read", {
      args: { repo: "org/open", path: "a.txt" },
      token: TOKEN,
    });
    assertEquals(ok.code, "OK");
    assert(ok.texts[0].includes("1: org/open"), ok.texts[0]);
  }));
