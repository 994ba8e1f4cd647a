import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import type { TestRepo } from "../../support/git_repo.ts";
import { callText, callTool, texts } from "../../support/tool_calls.ts";
import type { Handler } from "../../../sourcegraph/http/edge_env.ts";
import {
  connectInProcess,
  inProcessFetch,
  withInProcessService,
} from "../../support/in_process_service.ts";

const TOKEN = "t".repeat(40);
const NAME = "local/project";

// The sync tests compose the service in process: the checkout is the
// registered source, syncs and prepares are real fetches into the mirror.
async function withSource(
  options: { retain?: number },
  fn: (repo: TestRepo, log: string[], admin: Client, handle: Handler) => Promise<void>,
): Promise<void> {
  const log: string[] = [];
  await withInProcessService(async ({ handle, sources }) => {
    const admin = await connectInProcess(handle, { token: TOKEN });
    try {
      await fn(sources.get(NAME)!, log, admin, handle);
    } finally {
      await admin.close();
    }
  }, {
    repositories: [{
      name: NAME,
      publicRead: true,
      files: { ".gitignore": ".sourcegraph/\n", "a.txt": "version 1\n" },
      retain: options.retain,
    }],
    settings: { serviceToken: TOKEN },
    log: (line) => log.push(line),
  });
}

async function prepare(client: Client, key: string) {
  const result = await callTool(client, "prepare", { repo: NAME, idempotency_key: key });
  assertEquals(result.code, "OK", JSON.stringify(result));
  return JSON.parse(result.texts[0]);
}

Deno.test("sync: a new commit appears after prepare; earlier retained versions stay readable; keys are idempotent", () =>
  withSource({}, async (repo, _log, admin) => {
    const first = await repo.git("rev-parse", "HEAD");
    await repo.write({ "a.txt": "version 2\n" });
    const second = await repo.commit("two");
    // No request fetches: the branch still names the synced head.
    assertIncludes(
      await callText(admin, "read", { repo: NAME, path: "a.txt" }),
      `Commit: "${first}"`,
    );
    assertEquals(
      (await callTool(admin, "resolve", { repo: NAME, revision: second })).code,
      "REVISION_NOT_ELIGIBLE",
    );
    const job = await prepare(admin, "key-00000001");
    assertEquals([job.state, job.heads.main], ["succeeded", second]);
    assertIncludes(
      await callText(admin, "read", { repo: NAME, path: "a.txt" }),
      "1: version 2",
    );
    assertIncludes(
      await callText(admin, "read", { repo: NAME, path: "a.txt", revision: first }),
      "1: version 1",
    );
    // The same key answers the first result again, without syncing.
    await repo.write({ "a.txt": "version 3\n" });
    await repo.commit("three");
    assertEquals(await prepare(admin, "key-00000001"), job);
    const short = await admin.callTool({
      name: "prepare",
      arguments: { repo: NAME, idempotency_key: "short" },
    });
    assert(short.isError, "a key under 8 bytes is refused");
  }));

Deno.test("sync: retention prunes versions past the count and unpins them", () =>
  withSource({ retain: 2 }, async (repo, log, admin) => {
    const commits = [await repo.git("rev-parse", "HEAD")];
    for (let i = 2; i <= 3; i++) {
      await repo.write({ "a.txt": `version ${i}\n` });
      commits.push(await repo.commit(`v${i}`));
      await prepare(admin, `retain-key-${i}`);
    }
    assertEquals(
      (await callTool(admin, "resolve", { repo: NAME, revision: commits[0] })).code,
      "REVISION_NOT_ELIGIBLE",
    );
    for (const commit of commits.slice(1)) {
      assertEquals(
        JSON.parse(await callText(admin, "resolve", { repo: NAME, revision: commit })).commit,
        commit,
      );
    }
    const availability = JSON.parse(await callText(admin, "availability", { repo: NAME }));
    assertEquals(
      availability.versions.map((v: { commit: string }) => v.commit).sort(),
      commits.slice(1).sort(),
    );
    assert(log.some((line) => line.includes(`synced ${NAME}`)), log.join("\n"));
  }));

Deno.test("sync: a failed fetch keeps every retained version readable", () =>
  withSource({}, async (repo, log, admin) => {
    const head = await repo.git("rev-parse", "HEAD");
    // The source stops being a repository (the data folder lives inside it).
    const gitDir = join(repo.path, ".git");
    const moved = join(repo.path, "..", "moved-git");
    await Deno.rename(gitDir, moved);
    try {
      const job = await prepare(admin, "fail-key-0001");
      assertEquals(job.state, "failed");
      assertIncludes(
        await callText(admin, "read", { repo: NAME, path: "a.txt" }),
        `Commit: "${head}"`,
      );
      assertIncludes(
        await callText(admin, "read", { repo: NAME, path: "a.txt", revision: head }),
        "1: version 1",
      );
      const listed = JSON.parse(await callText(admin, "repositories", {})).repositories[0];
      assertEquals([listed.state, listed.last_sync_error], ["failed", "GIT_ACCESS_DENIED"]);
      const availability = JSON.parse(await callText(admin, "availability", { repo: NAME }));
      assertEquals(availability.last_sync_error, "GIT_ACCESS_DENIED");
      const reason = log.find((line) => line.includes(`sync of ${NAME} failed (`));
      assert(reason !== undefined && reason.includes("GIT_ACCESS_DENIED"), log.join("\n"));
      // The line gives Git's reason, not the advice Git prints after it.
      assertIncludes(reason, "does not appear to be a git repository");
      assert(!reason.includes("and the repository exists"), reason);
    } finally {
      await Deno.rename(moved, gitDir);
    }
    assertEquals((await prepare(admin, "fail-key-0002")).state, "succeeded");
  }));

Deno.test("auth: token sees prepare, anonymous does not; a bad bearer is 401; public read can be turned off", () =>
  // The edge's answers need no socket: the handler is called in process.
  withInProcessService(async ({ handle }) => {
    const admin = await connectInProcess(handle, { token: TOKEN });
    try {
      const adminTools = (await admin.listTools()).tools.map((t: { name: string }) => t.name);
      assert(adminTools.includes("prepare"));
      assertIncludes(
        await callText(admin, "read", { repo: NAME, path: "a.txt" }),
        "1: version 1",
      );
    } finally {
      await admin.close();
    }
    const post = inProcessFetch(handle);
    const toolsList = (headers: Record<string, string>) =>
      post("/sourcegraph/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
    // With public reads off an anonymous caller is asked to sign in (the OAuth challenge naming
    // the protected resource's metadata) before anything is listed or read.
    const anonymous = await toolsList({});
    assertEquals(anonymous.status, 401);
    assertIncludes(
      anonymous.headers.get("www-authenticate") ?? "",
      `resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/sourcegraph/mcp"`,
    );
    assertEquals((await anonymous.json()).code, "AUTHENTICATION_REQUIRED");
    const response = await toolsList({ authorization: "Bearer wrong" });
    assertEquals(response.status, 401);
    assertEquals((await response.json()).code, "AUTHENTICATION_REQUIRED");
  }, {
    repositories: [{
      name: NAME,
      publicRead: true,
      files: { ".gitignore": ".sourcegraph/\n", "a.txt": "version 1\n" },
    }],
    publicRead: false,
    settings: { serviceToken: TOKEN, publicRead: false },
  }));

Deno.test("HTTP: Host and Origin are validated, the plugins parameter is checked, unknown paths are 404", () =>
  // The edge checks Host and Origin itself: its handler is called in process, with any Host
  // (and the URL a server makes of a request for a path with that Host).
  withSource({}, async (_repo, _log, _admin, handle) => {
    const post = (path: string, headers: Record<string, string> = {}) =>
      handle(
        new Request(`http://${headers.host ?? "127.0.0.1"}${path}`, {
          method: "POST",
          headers: {
            host: "127.0.0.1",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...headers,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
        }),
        { remoteAddr: { hostname: "127.0.0.1" } },
      );
    const status = async (path: string, headers: Record<string, string> = {}) => {
      const response = await post(path, headers);
      const body = await response.text();
      return [response.status, response.status === 200 ? "" : JSON.parse(body).code];
    };
    assertEquals((await post("/sourcegraph/mcp", { host: "evil.example:80" })).status, 421);
    assertEquals((await post("/sourcegraph/mcp", { host: "localhost:80" })).status, 200);
    assertEquals(await status("/sourcegraph/mcp", { origin: "https://evil.example" }), [
      403,
      "ORIGIN_NOT_ALLOWED",
    ]);
    assertEquals((await status("/sourcegraph/mcp", { origin: "http://127.0.0.1" }))[0], 200);
    for (
      const query of [
        "?plugins=",
        "?plugins=a&plugins=b",
        "?plugins=Bad",
        "?plugins=a,a",
        `?plugins=${Array.from({ length: 17 }, (_, i) => `p${i}`).join(",")}`,
      ]
    ) {
      assertEquals(await status(`/sourcegraph/mcp${query}`), [400, "INVALID_PLUGINS"], query);
    }
    for (const query of ["?plugins=auto", "?plugins=off", "?plugins=a,b-c"]) {
      assertEquals((await status(`/sourcegraph/mcp${query}`))[0], 200, query);
    }
    assertEquals(await status("/elsewhere"), [404, "NOT_FOUND"]);
    assertEquals(await (await inProcessFetch(handle)("/healthz")).text(), "ok\n");
  }));

Deno.test("plugins: an explicit plugin the commit lacks is diagnosed without changing the read; off silences it", () =>
  withSource({}, async (_repo, _log, admin, handle) => {
    const result = await admin.callTool({
      name: "read",
      arguments: { repo: NAME, path: "a.txt", plugins: [{ name: "related-content" }] },
    });
    const blocks = texts(result);
    assertEquals(blocks.length, 2);
    assertIncludes(blocks[0], "1: version 1");
    assertEquals(blocks[1].split("\n")[0], "Plugin diagnostics (original read retained):");
    assertIncludes(blocks[1], "PLUGIN_FILE_NOT_FOUND: related-content");
    const off = await connectInProcess(handle, { token: TOKEN, query: "?plugins=off" });
    try {
      const silent = await off.callTool({
        name: "read",
        arguments: { repo: NAME, path: "a.txt", plugins: [{ name: "related-content" }] },
      });
      assertEquals(texts(silent).length, 1);
    } finally {
      await off.close();
    }
  }));
