import type { Handler } from "../../../sourcegraph/http/edge_env.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import {
  withInProcessService,
  WORLD_KEY as KEY,
  WORLD_TOKEN as TOKEN,
} from "../../support/in_process_service.ts";
import { callHandler } from "../../support/tool_calls.ts";

function withHandler(fn: (handle: Handler) => Promise<void>): Promise<void> {
  return withInProcessService(({ handle }) => fn(handle));
}

Deno.test("in process: the auth matrix over read, repositories and prepare", () =>
  withHandler(async (handle) => {
    const callers = { anonymous: undefined, key: KEY, service: TOKEN };
    const expected: Record<string, [string, string, string]> = {
      // read org/open, read org/closed, prepare org/open (anonymous: asked to sign in)
      anonymous: ["OK", "REPOSITORY_NOT_FOUND", "HTTP 401 AUTHENTICATION_REQUIRED"],
      key: ["OK", "OK", "UNKNOWN_TOOL"],
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
