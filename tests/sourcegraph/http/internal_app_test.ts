// The internal listener as a Request → Response function, attacked: no or a
// wrong secret, malformed and oversized bodies, unknown methods, a caller
// with extra fields, and repository ids in every shape but digits.
import { deserialize, serialize } from "node:v8";
import { CALL_CONTENT_TYPE } from "../../../sourcegraph/cluster/remote_calls.ts";
import { internalApp } from "../../../sourcegraph/http/internal_app.ts";
import type { RepositoryRecord } from "../../../sourcegraph/store/control_store.ts";
import { assert, assertEquals } from "../../support/assert.ts";

const SECRET = "s".repeat(64);

function app(served: unknown[] = []) {
  return internalApp({
    secret: SECRET,
    accepts: (call) => call.repo !== "org/elsewhere",
    methods: ["read", "search"],
    serve: (call) => {
      served.push(call);
      return Promise.resolve({ echoed: call.request, map: new Map([["k", 1]]) });
    },
    heldMirror: (id) =>
      id === 1 ? { repo: { id: 1 } as RepositoryRecord, path: "/nonexistent" } : null,
    sync: () => Promise.resolve(null),
    log: () => {},
  });
}

function post(path: string, body: Uint8Array | string, secret: string | null = SECRET) {
  return new Request(`http://internal${path}`, {
    method: "POST",
    headers: {
      "Content-Type": CALL_CONTENT_TYPE,
      ...(secret === null ? {} : { Authorization: `Bearer ${secret}` }),
    },
    body: body as BodyInit,
  });
}

const CALL = {
  method: "read",
  caller: { kind: "key", id: "key_1" },
  repo: "org/app",
  request: { repo: "org/app", path: "a.txt" },
  partial: false,
};

Deno.test("internal listener: only the cluster secret gets in; a call runs with the caller it names, and its value survives the wire", async () => {
  const served: unknown[] = [];
  const handler = app(served);
  for (const secret of [null, "", "s".repeat(63), "s".repeat(65), SECRET.toUpperCase()]) {
    const response = await handler.fetch(post("/internal/v1/call", serialize(CALL), secret));
    assertEquals(response.status, 401, `secret ${secret?.length}`);
    await response.body?.cancel();
  }
  assertEquals(served, [], "nothing ran without the secret");
  const response = await handler.fetch(post("/internal/v1/call", serialize(CALL)));
  assertEquals(response.status, 200);
  const answer = deserialize(new Uint8Array(await response.arrayBuffer()));
  assertEquals(answer.result.map, new Map([["k", 1]]), "maps come back as maps");
  assertEquals(served.length, 1);
  const elsewhere = await handler.fetch(
    post("/internal/v1/call", serialize({ ...CALL, repo: "org/elsewhere" })),
  );
  assertEquals(elsewhere.status, 409, "a repository held elsewhere is refused, not served");
  await elsewhere.body?.cancel();
});

Deno.test("internal listener: malformed, oversized and out-of-list calls are refused without running anything", async () => {
  const served: unknown[] = [];
  const handler = app(served);
  const bad: [string, Uint8Array | string][] = [
    ["not v8", "{}"],
    ["empty", new Uint8Array(0)],
    ["truncated", serialize(CALL).subarray(0, 20)],
    ["unknown method", serialize({ ...CALL, method: "removeRepository" })],
    ["a routed call this listener does not list", serialize({ ...CALL, method: "diff" })],
    ["a prototype name", serialize({ ...CALL, method: "__proto__" })],
    ["an object's method", serialize({ ...CALL, method: "toString" })],
    ["caller with a token", serialize({ ...CALL, caller: { kind: "service", token: "x" } })],
    ["bad caller kind", serialize({ ...CALL, caller: { kind: "admin" } })],
    ["request not an object", serialize({ ...CALL, request: "a.txt" })],
    ["extra field", serialize({ ...CALL, as: "root" })],
    ["a string longer than the body", lyingLength()],
  ];
  for (const [what, body] of bad) {
    const response = await handler.fetch(post("/internal/v1/call", body));
    assert(response.status === 400, `${what}: ${response.status}`);
    await response.body?.cancel();
  }
  const huge = await handler.fetch(post("/internal/v1/call", new Uint8Array(9 * 1024 * 1024)));
  assertEquals(huge.status, 413);
  await huge.body?.cancel();
  assertEquals(served, []);
});

Deno.test("internal listener: Git paths take a repository id of digits only, and only one this replica holds", async () => {
  const handler = app();
  for (const id of ["2", "..", "%2e%2e", "1%2f..", "-1", "1.0", "01x", "9".repeat(20), "1e3"]) {
    const response = await handler.fetch(
      new Request(`http://internal/internal/v1/git/${id}/info/refs?service=git-upload-pack`, {
        headers: { Authorization: `Bearer ${SECRET}` },
      }),
    );
    assertEquals(response.status, 404, id);
    await response.body?.cancel();
  }
  const wrongService = await handler.fetch(
    new Request("http://internal/internal/v1/git/1/info/refs?service=git-receive-pack", {
      headers: { Authorization: `Bearer ${SECRET}` },
    }),
  );
  assertEquals(wrongService.status, 404, "nothing but fetches");
  await wrongService.body?.cancel();
  const sync = await handler.fetch(post("/internal/v1/sync", serialize({ repositoryId: 3 })));
  assertEquals(sync.status, 409, "a replica that does not own it says so");
  await sync.body?.cancel();
});

// A V8 value whose header claims a string of 256 MiB in a body of a few bytes.
function lyingLength(): Uint8Array {
  const bytes = new Uint8Array(serialize("abc"));
  const at = bytes.indexOf(3); // the length of "abc"
  return new Uint8Array([...bytes.subarray(0, at), 0x80, 0x80, 0x80, 0x80, 0x01, 0x61]);
}
