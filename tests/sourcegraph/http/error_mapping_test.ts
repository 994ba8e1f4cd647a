import { GitError } from "../../../shared/git.ts";
import { SourcegraphError } from "../../../sourcegraph/errors.ts";
import { createApp } from "../../../sourcegraph/http/app.ts";
import { Metrics } from "../../../sourcegraph/http/metrics.ts";
import type { AdminService } from "../../../sourcegraph/service/admin_service.ts";
import type { RepositoryService } from "../../../sourcegraph/service/repository_service.ts";
import type { ControlStore } from "../../../sourcegraph/store/control_store.ts";
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";

/** A handler over a service whose `repositories` fails with `failure`. */
function handlerFailingWith(failure: Error) {
  const logged: string[] = [];
  const service = {
    repositories: () => {
      throw failure;
    },
    visible: () => true,
  } as unknown as RepositoryService;
  const handler = createApp({
    repositories: service,
    admin: {} as AdminService,
    store: { repositories: () => [], keyByHash: () => null } as unknown as ControlStore,
  }, {
    settings: {
      allowedHosts: [],
      anonymousPerMinute: 1000,
      anonymousConcurrency: 4,
      maxBodyBytes: 1024 * 1024,
      maxMcpBodyBytes: 4 * 1024 * 1024,
      maxAnonymousBodyBytes: 128 * 1024,
      bodyTimeoutMs: 5_000,
    },
    metrics: new Metrics(),
    log: (line) => logged.push(line),
  });
  return { handler, logged };
}

const mcpCall = (name: string) =>
  new Request("http://127.0.0.1/sourcegraph/mcp", {
    method: "POST",
    headers: {
      host: "127.0.0.1",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: {} },
    }),
  });

Deno.test("an unexpected failure is INTERNAL_ERROR with the request id, logged once with its stack, never sent", async () => {
  const { handler, logged } = handlerFailingWith(new TypeError("secret detail /srv/data"));
  const response = await handler(
    new Request("http://127.0.0.1/sourcegraph/v1/repos", { headers: { host: "127.0.0.1" } }),
  );
  assertEquals(response.status, 500);
  const id = response.headers.get("x-request-id")!;
  const body = await response.json();
  assertEquals(body.Meta.Code, "INTERNAL_ERROR");
  assertIncludes(body.Error, id);
  assert(!JSON.stringify(body).includes("secret detail"), JSON.stringify(body));
  assertEquals(logged.length, 1, logged.join("\n"));
  assertIncludes(logged[0], id);
  assertIncludes(logged[0], "TypeError: secret detail");
  assertIncludes(logged[0], "at ");

  const tool = await (await handler(mcpCall("repositories"))).json();
  assertEquals(tool.result.isError, true);
  const error = JSON.parse(tool.result.content[0].text);
  assertEquals(error.code, "INTERNAL_ERROR");
  assert(!tool.result.content[0].text.includes("secret detail"));
  assertEquals(logged.length, 2);
});

Deno.test("a Git failure stays DEPENDENCY_UNAVAILABLE and a known error keeps its code", async () => {
  const git = handlerFailingWith(new GitError("GIT_TIMEOUT", "git timed out", { stderr: "x" }));
  const response = await git.handler(
    new Request("http://127.0.0.1/sourcegraph/v1/repos", { headers: { host: "127.0.0.1" } }),
  );
  assertEquals([response.status, (await response.json()).Meta.Code], [
    503,
    "DEPENDENCY_UNAVAILABLE",
  ]);
  assertIncludes(git.logged.join("\n"), "GIT_TIMEOUT");
  const known = handlerFailingWith(new SourcegraphError("REPOSITORY_NOT_FOUND", "no such"));
  const tool = await (await known.handler(mcpCall("repositories"))).json();
  assertEquals(JSON.parse(tool.result.content[0].text).code, "REPOSITORY_NOT_FOUND");
  assertEquals(known.logged, []);
});
