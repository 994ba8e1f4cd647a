import { createHash } from "node:crypto";
import { join } from "node:path";
import { assert, assertEquals, assertIncludes, assertThrows } from "../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { mcpRequest, toolCall } from "../../support/mcp_messages.ts";
import { rawRequest } from "../../support/raw_http.ts";
import { startFailure } from "../../support/sourcegraph_service.ts";
import { texts } from "../../support/tool_calls.ts";
import { SqliteControlStore } from "../../../sourcegraph/store/sqlite_control_store.ts";
import { ControlStoreDamaged } from "../../../sourcegraph/store/control_database.ts";
import {
  connectInProcess,
  inProcessFetch,
  withInProcessService,
} from "../../support/in_process_service.ts";
import { withInProcessFront } from "../../support/in_process_front.ts";
import type { Handler } from "../../../sourcegraph/http/edge_env.ts";

const TOKEN = "h".repeat(40);
const SECRET_NAME = "vault/hidden-ledger";

interface ComposedWorld {
  /** The handler; each request comes a minute after the last (the anonymous budget is full). */
  handle: Handler;
  /** The handler with the clock standing still. */
  timed: Handler;
  fetchPath: (path: string, init?: RequestInit) => Promise<Response>;
  connect: () => ReturnType<typeof connectInProcess>;
  parent: string;
  /** What the service logged. */
  log: string[];
}

// A private and a public repository, composed in process (searches go through git grep, the
// index off: an indexed search ends before the next request arrives); raw requests go through
// the service's front composed over it. An anonymous address may make 40 calls a minute and 4 at
// once; bodies have 20 s.
function withComposedWorld(fn: (world: ComposedWorld) => Promise<void>): Promise<void> {
  const log: string[] = [];
  let minutes = 0;
  return withInProcessService(
    ({ handle: timed, parent }) => {
      const handle: Handler = (request, info) => {
        minutes++;
        return timed(request, info);
      };
      return fn({
        handle,
        timed,
        fetchPath: inProcessFetch(handle),
        connect: () => connectInProcess(handle),
        parent,
        log,
      });
    },
    {
      log: (line) => log.push(line),
      repositories: [
        { name: SECRET_NAME, publicRead: false, files: { "ledger.txt": "balance 42\n" } },
        { name: "local/project", publicRead: true, files: { "a.txt": "alpha\nbeta\n" } },
      ],
      settings: {
        serviceToken: TOKEN,
        anonymousPerMinute: 40,
        anonymousConcurrency: 4,
        bodyTimeoutMs: 20_000,
      },
      rateLimitClock: () => Date.now() + minutes * 60_000,
    },
  );
}

const call = toolCall;

// Cases of the composed world run as steps of one, in this order (the headers case reads the log
// from the start; the privacy case counts the repositories; the admin cases register their own).
const COMPOSED: [string, (world: ComposedWorld) => Promise<void>][] = [];
function composedCase(name: string, fn: (world: ComposedWorld) => Promise<void>): void {
  COMPOSED.push([name, fn]);
}

Deno.test("one composed world: headers, identical cold searches, privacy, admin deletes, idempotency keys, rate limits", (t) =>
  withComposedWorld(async (world) => {
    for (const [name, fn] of COMPOSED) await t.step(name, () => fn(world));
  }));

composedCase(
  "headers: Host and Origin values the parser cannot understand are 4xx, never 500, and log nothing",
  ({ handle, log }) =>
    withInProcessFront(handle, async (port) => {
      const hosts = [
        "127.0.0.1:evil",
        "::1",
        "[::1]evil.com",
        "[::1",
        "",
        "127.0.0.1:99999",
        "a".repeat(300),
        "127.0.0.1:8080:80",
        "exa mple.com",
        "%31%32%37.0.0.1",
      ];
      for (const host of hosts) {
        const { status, text } = await rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: ${host}`);
        assert(status >= 400 && status < 500, `Host ${JSON.stringify(host)}: ${text}`);
      }
      for (
        const origin of ["null", "file://", "http://evil.example", "http://[::1", "javascript:x"]
      ) {
        const { status, text } = await rawRequest(
          port,
          `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${origin}`,
        );
        assertEquals(status, 403, `Origin ${origin}: ${text}`);
      }
      const ok = await rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: [::1]:${port}`);
      assertEquals(ok.status, 200);
      assert(!log.some((line) => /failed unexpectedly|stack|Error:/i.test(line)), log.join("\n"));
    }),
);

composedCase(
  "identical concurrent cold searches are computed once",
  async ({ handle, fetchPath }) => {
    const search = () =>
      handle(
        mcpRequest(
          "http://127.0.0.1",
          call(1, "search", { repo: "local/project", pattern: "alpha|beta" }),
          {
            token: TOKEN,
            host: "127.0.0.1",
          },
        ),
        { remoteAddr: { hostname: "127.0.0.1" } },
      ).then((r) => r.json());
    const answers = await Promise.all(Array.from({ length: 8 }, search));
    const text = JSON.stringify(answers[0].result);
    for (const answer of answers) assertEquals(JSON.stringify(answer.result), text);
    assertIncludes(text, "a.txt");
    const metrics = await (await fetchPath(`/metrics`)).text();
    assert(/sourcegraph_search_shared_total [1-9]/.test(metrics), metrics);
  },
);

composedCase(
  "privacy: no anonymous route, tool, error body or metric names a private repository",
  async ({ fetchPath, connect }) => {
    const seen: string[] = [];
    const keep = async (response: Response) => {
      seen.push(`${response.status} ${[...response.headers].join(" ")} ${await response.text()}`);
    };
    for (const path of ["/healthz", "/metrics", "/sourcegraph/v1/repos", "/nowhere"]) {
      await keep(await fetchPath(`${path}`));
    }
    for (const repo of [SECRET_NAME, "local/project"]) {
      const q = `?repo=${encodeURIComponent(repo)}`;
      await keep(await fetchPath(`/sourcegraph/v1/repo/availability${q}`));
      await keep(await fetchPath(`/sourcegraph/v1/repo/plugins${q}`));
      for (
        const [route, body] of [
          ["/sourcegraph/v1/repo/read", { Path: "ledger.txt" }],
          ["/sourcegraph/v1/repo/resolve", {}],
          ["/sourcegraph/v1/repo/list", { First: 10 }],
          ["/sourcegraph/v1/repo/diff", { Base: "main", Head: "main", First: 10 }],
          ["/sourcegraph/api/search", { Pattern: "balance" }],
        ] as const
      ) {
        await keep(
          await fetchPath(`${route}${q}`, { method: "POST", body: JSON.stringify(body) }),
        );
      }
    }
    const client = await connect();
    try {
      for (const repo of [SECRET_NAME, "vault", "hidden-ledger"]) {
        for (
          const [name, args] of [
            ["repositories", {}],
            ["availability", { repo, include_plugins: true }],
            ["resolve", { repo }],
            ["read", { repo, path: "ledger.txt" }],
            ["read_many", { repo, files: [{ path: "ledger.txt" }] }],
            ["search", { repo, pattern: "balance" }],
            ["list", { repo, first: 10 }],
            ["diff", { repo, base: "main", head: "main", first: 10 }],
            ["prepare", { repo, idempotency_key: "12345678" }],
          ] as const
        ) {
          const result = await client.callTool({ name, arguments: args }).catch((e: unknown) => ({
            content: [{ type: "text", text: String(e) }],
          }));
          seen.push(texts(result).join("\n"));
        }
      }
      seen.push(JSON.stringify(await client.listTools()));
    } finally {
      await client.close();
    }
    const everything = seen.join("\n");
    assert(!everything.includes("hidden-ledger"), everything);
    assert(!everything.includes("balance 42"), "private content leaked");
    assertIncludes(everything, "local/project");
    // The service token sees the name in metrics; the repository counts are there for all.
    const metrics = await (await fetchPath(`/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    })).text();
    assertIncludes(metrics, SECRET_NAME);
    assertIncludes(everything, 'sourcegraph_repositories{state="ready"} 2');
  },
);

composedCase(
  "admin: delete closes the repository's readers, ids are never reused, and a new registration reads at once",
  async ({ fetchPath, parent }) => {
    const admin = (method: string, path: string, body?: string, key?: string) =>
      fetchPath(`/sourcegraph/api/admin/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
          ...(key ? { "idempotency-key": key } : {}),
        },
        body,
      });
    const read = async (repo: string) => {
      const response = await fetchPath(
        `/sourcegraph/v1/repo/read?repo=${encodeURIComponent(repo)}`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify({ Path: "f.txt" }),
        },
      );
      return [response.status, await response.json()] as const;
    };
    for (const [i, word] of ["first", "second", "third"].entries()) {
      const source = await createRepo({ "f.txt": `${word}\n` }, { parent, name: `src-${i}` });
      const name = `org/repo-${i}`;
      const registered = await admin(
        "POST",
        "/repos",
        JSON.stringify({
          name,
          source: source.path,
          public_read: false,
          policy: { branches: ["main"] },
        }),
        `register-${i}-0001`,
      );
      assertEquals(registered.status, 202);
      await (await admin("POST", `/repo/prepare?repo=${name}`)).body?.cancel();
      const [status, file] = await read(name);
      assertEquals([status, file.Content], [200, `${word}\n`], JSON.stringify(file));
      assertEquals((await admin("DELETE", `/repo?repo=${name}`)).status, 204);
      assertEquals((await read(name))[1].Meta.Code, "REPOSITORY_NOT_FOUND");
    }
  },
);

composedCase(
  "admin: an Idempotency-Key replays only the same request; a different one is 422; a revoked key's replay says so",
  async ({ fetchPath, parent }) => {
    const source = await createRepo({ "f.txt": "x\n" }, { parent, name: "src" });
    const post = (path: string, body: string, key: string) =>
      fetchPath(`/sourcegraph/api/admin/v1${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "idempotency-key": key },
        body,
      });
    const body = JSON.stringify({
      name: "org/idem",
      source: source.path,
      public_read: false,
      policy: { branches: ["main"] },
    });
    const first = await post("/repos", body, "idem-key-001");
    assertEquals(first.status, 202);
    const stored = await first.json();
    const replay = await post("/repos", body, "idem-key-001");
    assertEquals([replay.status, await replay.json()], [202, stored]);
    for (const other of [body.replace("org/idem", "org/idem2"), "not json at all", ""]) {
      const reused = await post("/repos", other, "idem-key-001");
      assertEquals(
        [reused.status, (await reused.json()).code],
        [422, "IDEMPOTENCY_KEY_REUSED"],
        other,
      );
    }
    const created = await post("/keys", '{"name":"ci"}', "key-create-01");
    assertEquals(created.status, 201);
    const { id, key } = await created.json();
    assert(key.startsWith("sgk_"));
    const again = await post("/keys", '{"name":"ci"}', "key-create-01");
    assertEquals([again.status, (await again.json()).id], [201, id]);
    const revoked = await fetchPath(`/sourcegraph/api/admin/v1/keys?id=${id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assertEquals(revoked.status, 204);
    const afterRevocation = await post("/keys", '{"name":"ci"}', "key-create-01");
    assertEquals([afterRevocation.status, (await afterRevocation.json()).code], [
      410,
      "KEY_REVOKED",
    ]);
  },
);

// The limiter is the handler's own: as if every request came from 127.0.0.1, the clock standing
// still. Last: the held requests' slots are freed as their bodies fail.
composedCase(
  "rate limits: every call of an anonymous batch counts, and in-flight requests are capped per address",
  async ({ timed }) => {
    const mcp = (body: unknown, token?: string) =>
      timed(mcpRequest("http://127.0.0.1", body, { token, host: "127.0.0.1" }), {
        remoteAddr: { hostname: "127.0.0.1" },
      });
    const read = (i: number) => call(i, "read", { repo: "local/project", path: "a.txt" });
    const small = await mcp(Array.from({ length: 10 }, (_, i) => read(i)));
    assertEquals(small.status, 200);
    assertEquals((await small.json()).length, 10);
    const batch = await mcp(Array.from({ length: 100 }, (_, i) => read(i)));
    assertEquals([batch.status, (await batch.json()).code], [429, "RATE_LIMITED"]);
    // A token holder is not limited.
    const served = await mcp(Array.from({ length: 100 }, (_, i) => read(i)), TOKEN);
    assertEquals(served.status, 200);
    await served.body?.cancel();
    // Requests whose bodies never finish hold their slot; the fifth is refused.
    const fetchPath = inProcessFetch(timed);
    const bodies: ReadableStreamDefaultController<Uint8Array>[] = [];
    // A body is asked for more once its handler read the first byte, past the limiter's entry:
    // then its request holds its slot (a fixed wait before the fifth could end before that).
    const reading = new Set<number>();
    let allReading = () => {};
    const heldSlots = new Promise<void>((resolve) => allReading = resolve);
    const held = Array.from(
      { length: 4 },
      (_, i) =>
        fetchPath("/sourcegraph/v1/repo/read?repo=local/project", {
          method: "POST",
          headers: { "content-length": "50" },
          body: new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("{"));
              bodies.push(controller);
            },
            pull() {
              reading.add(i);
              if (reading.size === 4) allReading();
            },
          }),
        }),
    );
    await Promise.race([
      heldSlots,
      Promise.any(held).then((early) => {
        throw new Error(`a held request was answered before the fifth: ${early.status}`);
      }),
    ]);
    const refused = await fetchPath("/sourcegraph/v1/repos");
    assertEquals([refused.status, (await refused.json()).code], [429, "RATE_LIMITED"]);
    for (const body of bodies) body.error(new Error("the client went away"));
    for (const response of await Promise.all(held.map((r) => r.catch(() => null)))) {
      await response?.body?.cancel();
    }
  },
);

Deno.test("control store: an empty or damaged store stops the start with one line and is left untouched", async () => {
  const parent = await tempDir("sg-store-");
  try {
    const repo = await createRepo({ "a.txt": "a\n", ".gitignore": ".sourcegraph/\n" }, {
      parent,
      name: "project",
    });
    // A whole store as the service opens it (created and migrated), closed.
    const path = join(repo.path, ".sourcegraph", "control.sqlite3");
    await Deno.mkdir(join(repo.path, ".sourcegraph"));
    new SqliteControlStore(path).close();
    const whole = await Deno.readFile(path);
    // Each damage is refused by the store as the service opens it; the last one by a real start,
    // which prints that refusal as its one line.
    const damages = [new Uint8Array(0), whole.slice(0, 8192), whole.map(() => 0x41)];
    for (const [i, damaged] of damages.entries()) {
      await Deno.writeFile(path, damaged);
      for (const extra of ["-wal", "-shm"]) await Deno.remove(path + extra).catch(() => {});
      const digest = createHash("sha256").update(damaged).digest("hex");
      const refused = assertThrows(() => new SqliteControlStore(path), ControlStoreDamaged);
      assertIncludes(refused.message, path);
      assertIncludes(refused.message, "nothing was changed");
      assert(!refused.message.includes("\n"), refused.message);
      if (i === damages.length - 1) {
        const log = await startFailure(repo.path, {});
        // The failure's text starts with the log's first line.
        const lines = log.replace(/^service exited: /, "").split("\n")
          .filter((line) => line.includes("control store"));
        assertEquals(lines, [`context-sourcegraph: ${refused.message}`]);
        assert(!/\n\s+at /.test(log), `a stack trace was printed: ${log}`);
      }
      const after = await Deno.readFile(path);
      assertEquals(createHash("sha256").update(after).digest("hex"), digest);
    }
  } finally {
    await removeDir(parent);
  }
});

// SOURCEGRAPH_PORT is among them, given without --port (which would win over it), and a service
// token that is too short.
Deno.test("settings: every bad core value is named on its own line and the start stops", async () => {
  const parent = await tempDir("sg-settings-");
  try {
    const repo = await createRepo({ "a.txt": "a\n" }, { parent, name: "project" });
    const log = await startFailure(repo.path, {
      SOURCEGRAPH_PORT: "80a",
      SOURCEGRAPH_API_TOKEN: "short",
      SOURCEGRAPH_SYNC_MINUTES: "abc",
      SOURCEGRAPH_ANONYMOUS_CONCURRENCY: "-1",
      SOURCEGRAPH_ANONYMOUS_PER_MINUTE: "1e3",
      SOURCEGRAPH_HEADER_TIMEOUT: "soon",
      SOURCEGRAPH_MAX_CONNECTIONS: "0",
      SOURCEGRAPH_PUBLIC_READ: "maybe",
    }, { portFlag: false });
    assertIncludes(log, 'SOURCEGRAPH_PORT must be a whole number from 0 to 65535 (got "80a")');
    assertIncludes(log, "SOURCEGRAPH_API_TOKEN must be at least 32 characters");
    for (
      const name of [
        "SOURCEGRAPH_PORT",
        "SOURCEGRAPH_API_TOKEN",
        "SOURCEGRAPH_SYNC_MINUTES",
        "SOURCEGRAPH_ANONYMOUS_CONCURRENCY",
        "SOURCEGRAPH_ANONYMOUS_PER_MINUTE",
        "SOURCEGRAPH_HEADER_TIMEOUT",
        "SOURCEGRAPH_MAX_CONNECTIONS",
        "SOURCEGRAPH_PUBLIC_READ",
      ]
    ) {
      assertEquals(log.split("\n").filter((line) => line.includes(name)).length, 1, log);
    }
  } finally {
    await removeDir(parent);
  }
});
