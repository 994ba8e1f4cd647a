import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import {
  connectInProcess,
  inProcessFetch,
  withInProcessService,
  WORLD_TOKEN as TOKEN,
} from "../../support/in_process_service.ts";
import { callText } from "../../support/tool_calls.ts";

const HOME = [{ name: "local/home", publicRead: true, files: { "a.txt": "home\n" } }];

Deno.test("admin API: strict idempotent registration, private visibility, personal keys, update, delete, metrics", () =>
  withInProcessService(async ({ handle }) => {
    const parent = await tempDir("sg-admin-");
    const other = await createRepo({ "secret.txt": "private text\n" }, { parent, name: "other" });
    await other.git("branch", "-m", "main", "trunk");
    const fetchPath = inProcessFetch(handle);
    const admin = (
      method: string,
      path: string,
      options: { body?: string; key?: string; token?: string } = {},
    ) =>
      fetchPath(`/sourcegraph/api/admin/v1${path}`, {
        method,
        headers: {
          ...(options.token !== "" ? { authorization: `Bearer ${options.token ?? TOKEN}` } : {}),
          ...(options.key ? { "idempotency-key": options.key } : {}),
          "content-type": "application/json",
        },
        body: options.body,
      });
    const code = async (response: Response) => [response.status, (await response.json()).code];
    const body = JSON.stringify({
      name: "org/other",
      source: other.path,
      public_read: false,
      policy: { branches: ["trunk"], default_branch: "trunk", count: 5 },
    });
    try {
      assertEquals(
        await code(await admin("POST", "/repos", { body, key: "k-000001", token: "" })),
        [
          401,
          "AUTHENTICATION_REQUIRED",
        ],
      );
      assertEquals(await code(await admin("POST", "/repos", { body })), [
        400,
        "IDEMPOTENCY_KEY_REQUIRED",
      ]);
      for (
        const bad of [
          body.replace('"public_read":false', '"public_read":false,"public_read":true'),
          body.replace('"public_read":false', '"public_read":null'),
          body.replace('"public_read":false', '"public_read":false,"extra":1'),
          "{not json",
          "[]",
        ]
      ) {
        assertEquals(await code(await admin("POST", "/repos", { body: bad, key: "k-bad-0001" })), [
          400,
          "INVALID_REQUEST",
        ], bad);
      }
      // Nesting is measured before the body is parsed.
      assertEquals(
        await code(
          await admin("POST", "/repos", {
            body: body.replace('"count":5', `"count":5,"deep":${"[".repeat(40)}${"]".repeat(40)}`),
            key: "k-bad-0002",
          }),
        ),
        [400, "REQUEST_TOO_DEEP"],
      );
      const created = await admin("POST", "/repos", { body, key: "k-000001" });
      assertEquals(created.status, 202);
      const first = await created.json();
      assertEquals(first.repo.repo, "org/other");
      const replay = await admin("POST", "/repos", { body, key: "k-000001" });
      assertEquals([replay.status, await replay.json()], [202, first]);
      assertEquals(await code(await admin("POST", "/repos", { body, key: "k-000002" })), [
        409,
        "REPOSITORY_EXISTS",
      ]);
      const prepared = await admin("POST", "/repo/prepare?repo=org/other");
      assertEquals((await prepared.json()).state, "succeeded");

      // Private: anonymous callers cannot tell it from a missing repository.
      const anonymous = await connectInProcess(handle);
      const read = (client: typeof anonymous) =>
        callText(client, "read", { repo: "org/other", path: "secret.txt" });
      assertEquals(await read(anonymous), "ERROR REPOSITORY_NOT_FOUND");
      const tokenClient = await connectInProcess(handle, { token: TOKEN });
      assertIncludes(await read(tokenClient), "1: private text");

      // A personal key reads private repositories but cannot prepare.
      const keyResponse = await admin("POST", "/keys", {
        body: JSON.stringify({ name: "ci" }),
        key: "key-req-01",
      });
      assertEquals(keyResponse.status, 201);
      const { id, key } = await keyResponse.json();
      assert(/^sgk_[0-9a-f]{48}$/.test(key));
      const replayKey = await (await admin("POST", "/keys", {
        body: JSON.stringify({ name: "ci" }),
        key: "key-req-01",
      })).json();
      assertEquals([replayKey.id, replayKey.key], [id, undefined]);
      const keyClient = await connectInProcess(handle, { token: key });
      assertIncludes(await read(keyClient), "1: private text");
      const keyTools = (await keyClient.listTools()).tools.map((t: { name: string }) => t.name);
      assert(!keyTools.includes("prepare"));
      await keyClient.close();
      assertEquals((await admin("DELETE", `/keys?id=${id}`)).status, 204);
      const revoked = await fetchPath(`/sourcegraph/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      assertEquals(revoked.status, 401);
      await revoked.body?.cancel();

      // Update: public, then disabled; delete.
      const patched = await admin("PATCH", "/repo?repo=org/other", {
        body: JSON.stringify({ public_read: true }),
      });
      assertEquals(patched.status, 200);
      await patched.body?.cancel();
      assertIncludes(await read(anonymous), "1: private text");
      assertEquals(
        await code(
          await admin("PATCH", "/repo?repo=org/other", { body: JSON.stringify({ name: "x" }) }),
        ),
        [400, "INVALID_REQUEST"],
      );
      (await admin("PATCH", "/repo?repo=org/other", { body: JSON.stringify({ disabled: true }) }))
        .body?.cancel();
      assertEquals(await read(tokenClient), "ERROR REPOSITORY_DISABLED");
      assertEquals((await admin("DELETE", "/repo?repo=org/other")).status, 204);
      assertEquals(await read(tokenClient), "ERROR REPOSITORY_NOT_FOUND");
      assertEquals(await code(await admin("DELETE", "/repo?repo=org/other")), [
        404,
        "REPOSITORY_NOT_FOUND",
      ]);

      const metrics = await (await fetchPath(`/metrics`)).text();
      assertIncludes(
        metrics,
        'sourcegraph_requests_total{tool="read",code="REPOSITORY_NOT_FOUND"}',
      );
      assertIncludes(metrics, 'sourcegraph_request_seconds_count{tool="read"}');
      assertIncludes(metrics, 'sourcegraph_repository_sync_ok{repo="local/home"} 1');
      await anonymous.close();
      await tokenClient.close();
    } finally {
      await removeDir(parent);
    }
  }, { repositories: HOME }));
