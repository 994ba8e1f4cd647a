// Two service processes sharing one PostgreSQL store, started exactly as
// the README starts a replica (its narrow flags): one registration serves
// both, a sign-in and an Idempotency-Key work on the other process, answers
// are the same text, and a replica without a usable key does not start.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import pg from "pg";
import { assert, assertEquals, assertIncludes } from "../../../support/assert.ts";
import { createRepo, removeDir, tempDir } from "../../../support/git_repo.ts";
import { overHttp, pageRequest, signIn } from "../../../support/page_requests.ts";
import { postgresBin, sharedPostgres } from "../../../support/postgres_server.ts";
import { callTool } from "../../../support/tool_calls.ts";
import { readSettings } from "../../../../sourcegraph/settings.ts";
import {
  adminRequest,
  connectClient,
  freePort,
  type RunningService,
  startFailure,
  startService,
} from "../../../support/sourcegraph_service.ts";

const BIN = postgresBin();
const TOKEN = "r".repeat(40);

async function toolText(url: string, name: string, args: Record<string, unknown>) {
  const client = await connectClient(url, { token: TOKEN });
  try {
    return await clientText(client, name, args);
  } finally {
    await client.close();
  }
}

async function clientText(client: Client, name: string, args: Record<string, unknown>) {
  const outcome = await callTool(client, name, args);
  if (outcome.code !== "OK") throw new Error(`${name} failed: ${outcome.texts.join("\n")}`);
  return outcome.texts.join("\n");
}

// The admin API of one replica, with the service token.
function admin(
  url: string,
  path: string,
  init: { method: string; body?: unknown; key?: string },
): Promise<Response> {
  return adminRequest(url, path, { token: TOKEN, ...init });
}

Deno.test({
  name:
    "shared store: two processes over one PostgreSQL serve one registration with the same answers; sign-ins and idempotency keys work on either",
  ignore: BIN === null,
  fn: async () => {
    const server = await sharedPostgres(BIN!);
    const parent = await tempDir("sg-shared-");
    try {
      const keyFile = join(parent, "credential.key");
      const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
      await Deno.writeTextFile(keyFile, `${key}\n`, { mode: 0o600 });
      const url = await server.createDatabase("service");
      const env = {
        SOURCEGRAPH_API_TOKEN: TOKEN,
        SOURCEGRAPH_DATABASE_URL: url,
        SOURCEGRAPH_CREDENTIAL_KEY_FILE: keyFile,
        // What is shown is the shared store's, not the index's: searches go through git grep,
        // with no index build (a builder process each) on either replica to wait for.
        SOURCEGRAPH_SEARCH_INDEX: "false",
      };
      const repo = await createRepo({ ".gitignore": ".sourcegraph/\n", "a.txt": "alpha\nbeta\n" }, {
        parent,
        name: "project",
      });
      // The second replica starts in a checkout of its own, with no path: it must not replace
      // what the first one's command line registered.
      const elsewhere = (await createRepo({ ".gitignore": ".sourcegraph/\n", "b.txt": "b\n" }, {
        parent,
        name: "second",
      })).path;
      const shared = { keyFile };
      const replica = (name: string, port: number) => ({
        ...env,
        SOURCEGRAPH_REPLICA_NAME: name,
        SOURCEGRAPH_INTERNAL_URL: `http://127.0.0.1:${port}`,
      });
      const [onePort, twoPort] = [freePort(), freePort()];
      let one = await startService(repo.path, replica("one", onePort), { shared });
      let two: RunningService | null = null;
      try {
        two = await startService(elsewhere, replica("two", twoPort), { shared });
        assertIncludes(two.log.join("\n"), "control store: PostgreSQL (shared)");
        assertIncludes(two.log.join("\n"), "serving local/project");
        assert(!two.log.join("\n").includes("local/second"), two.log.join("\n"));
        for (const log of [one.log, two.log]) {
          const text = log.join("\n");
          assert(!text.includes(url) && !text.includes(new URL(url).password), "no URL in the log");
          assert(!text.includes(key), "no key in the log");
        }
        const calls: [string, Record<string, unknown>][] = [
          ["read", { repo: "local/project", path: "a.txt" }],
          ["search", { repo: "local/project", pattern: "beta" }],
          ["list", { repo: "local/project", first: 10 }],
        ];
        const [oneClient, twoClient] = [
          await connectClient(one.url, { token: TOKEN }),
          await connectClient(two.url, { token: TOKEN }),
        ];
        try {
          for (const [name, args] of calls) {
            const first = await clientText(oneClient, name, args);
            assertEquals(
              await clientText(twoClient, name, args),
              first,
              `${name} answers the same`,
            );
            assert(!first.includes('"code"'), first);
            if (name === "search") assertIncludes(first, "a.txt");
          }
        } finally {
          await oneClient.close();
          await twoClient.close();
        }

        // A sign-in on one process is a sign-in on the other.
        const signedIn = await signIn(overHttp(one.url), TOKEN);
        assertEquals(signedIn.status, 303);
        const cookie = signedIn.cookie!;
        assertIncludes(
          (await pageRequest(overHttp(two.url), "/sourcegraph/", { cookie })).body,
          "service token",
        );

        // An Idempotency-Key used on one process replays on the other.
        const created = await admin(one.url, "/keys", {
          method: "POST",
          body: { name: "agent" },
          key: "shared-key-0001",
        });
        assertEquals(created.status, 201);
        const first = await created.json();
        const replay = await admin(two.url, "/keys", {
          method: "POST",
          body: { name: "agent" },
          key: "shared-key-0001",
        });
        assertEquals(replay.status, 201);
        assertEquals(await replay.json(), { id: first.id, name: "agent", replayed: true });
        // The key it made reads on the other process.
        const keyed = await connectClient(two.url, { token: first.key });
        await keyed.close();

        // A restart registers nothing twice and keeps serving.
        await one.stop();
        one = await startService(repo.path, replica("one", onePort), { shared });
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        const count = (await client.query("SELECT count(*)::int AS n FROM repositories")).rows[0].n;
        await client.end();
        assertEquals(count, 1);
        assertEquals(
          await toolText(one.url, "read", { repo: "local/project", path: "a.txt" }),
          await toolText(two.url, "read", { repo: "local/project", path: "a.txt" }),
        );
      } finally {
        await one.stop();
        await two?.stop();
      }

      {
        // A key file readable by others stops the start with one line saying why, neither key
        // nor URL in it (the file is read as the start opens the shared store).
        await Deno.chmod(keyFile, 0o644);
        const open = await startFailure(elsewhere, replica("two", twoPort), { shared });
        assertIncludes(open, "is readable by group or others");
        assert(!open.includes(key) && !open.includes(url));
        await Deno.chmod(keyFile, 0o600);
        // An internal address in use stops the start with one line naming it.
        const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        const takenPort = (taken.addr as Deno.NetAddr).port;
        try {
          const busy = await startFailure(elsewhere, replica("two", takenPort), { shared });
          assertIncludes(busy, `cannot listen on the internal address 127.0.0.1:${takenPort}`);
        } finally {
          taken.close();
        }
      }
    } finally {
      await removeDir(parent);
    }
  },
});

// A replica's settings without a key file, or with a database URL that is not PostgreSQL's, are
// one problem each, the URL never echoed: the service logs each problem on a line of its own and
// stops before it starts anything (a start with bad settings is run by the settings test of the
// HTTP tests).
Deno.test("shared store: a replica's settings without a key file or with a URL that is not postgres:// are one problem each, the URL never shown", () => {
  const replica: Record<string, string | undefined> = {
    SOURCEGRAPH_API_TOKEN: TOKEN,
    SOURCEGRAPH_DATABASE_URL: "postgres://u:s3cret@127.0.0.1:5432/sg",
    SOURCEGRAPH_CREDENTIAL_KEY_FILE: "/etc/sourcegraph/credential.key",
    SOURCEGRAPH_REPLICA_NAME: "two",
    SOURCEGRAPH_INTERNAL_URL: "http://127.0.0.1:9001",
  };
  const problems = (env: Record<string, string | undefined>) => {
    const read = readSettings((name) => ({ ...replica, ...env })[name], "/");
    return read.ok ? [] : read.problems;
  };
  assertEquals(problems({}), [], "the replica's settings as they are");
  const missing = problems({ SOURCEGRAPH_CREDENTIAL_KEY_FILE: undefined });
  assertEquals(missing.length, 1, missing.join("\n"));
  assertIncludes(missing[0], "SOURCEGRAPH_CREDENTIAL_KEY_FILE must name the credential key file");
  assert(!missing[0].includes("s3cret"), missing[0]);
  const badUrl = problems({ SOURCEGRAPH_DATABASE_URL: "mysql://u:hunter2@h/db" });
  assertEquals(badUrl.length, 1, badUrl.join("\n"));
  assertIncludes(badUrl[0], "SOURCEGRAPH_DATABASE_URL must be a postgres://");
  assert(!badUrl[0].includes("hunter2"), "the value is never echoed");
});
