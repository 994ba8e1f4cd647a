import { join } from "node:path";
import { assert, assertEquals, assertIncludes } from "../../support/assert.ts";
import { createRepo, git, removeDir, tempDir } from "../../support/git_repo.ts";
import { serveGitHttp } from "../../support/git_http_server.ts";
import { freePort, type RunningService, startService } from "../../support/sourcegraph_service.ts";
import { connectClient } from "../../support/sourcegraph_service.ts";
import { callText } from "../../support/tool_calls.ts";
import { haveSshd, makeKey, startSshd } from "../../support/ssh_server.ts";

const SERVICE_TOKEN = "p".repeat(48);

function adminOf(service: RunningService) {
  return async (method: string, path: string, options: { body?: unknown; key?: string } = {}) => {
    const response = await fetch(`${service.url}/sourcegraph/api/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${SERVICE_TOKEN}`,
        "content-type": "application/json",
        ...(options.key ? { "idempotency-key": options.key } : {}),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, text, json: text ? JSON.parse(text) : null };
  };
}

/** Registers a private repository with a credential (one Idempotency-Key per name). */
function registerPrivate(
  admin: ReturnType<typeof adminOf>,
  repo: { name: string; source: string; credential: Record<string, unknown> },
) {
  return admin("POST", "/repos", {
    key: `create-${repo.name.replace("/", "-")}-1`,
    body: {
      name: repo.name,
      source: repo.source,
      public_read: false,
      policy: { branches: ["main"] },
      credential: repo.credential,
    },
  });
}

/**
 * Whether any process's argument list (as `ps` shows it) or environment
 * (`/proc/<pid>/environ`) holds `secret`. Read through `ps` and one `grep`
 * over every environment (a `tr` per process cost half a processor-second
 * a scan): Deno grants reading /proc only with every permission, and the
 * commands' own argument lists never name the secret (grep reads it from
 * its input).
 */
async function processesHolding(secret: string): Promise<string[]> {
  const found: string[] = [];
  const ps = new TextDecoder().decode(
    (await new Deno.Command("ps", {
      args: ["-eww", "-o", "pid=,args="],
      stdout: "piped",
      stderr: "null",
    }).output()).stdout,
  );
  for (const line of ps.split("\n")) {
    if (line.includes(secret)) found.push(`ps: ${line.slice(0, 80)}`);
  }
  // Each match is a line `/proc/<pid>/environ:<pattern>`; PATH= shows the scan read them.
  const grep = new Deno.Command("sh", {
    args: ["-c", "grep -aoF -f - /proc/[0-9]*/environ"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const patterns = grep.stdin.getWriter();
  await patterns.write(new TextEncoder().encode(`${secret}\nPATH=\n`));
  await patterns.close();
  const environ = new TextDecoder().decode((await grep.output()).stdout).split("\n");
  for (const line of environ) {
    if (line.endsWith(`:${secret}`)) found.push(`environ: ${line.split(":")[0]}`);
  }
  const seen = environ.filter((line) => line.endsWith(":PATH=")).length;
  assert(ps.includes("deno") && seen > 1, "the scan saw the processes");
  return found;
}

/** Files below `folder` (outside `except`) whose bytes hold `secret`. */
async function filesHolding(folder: string, secret: string, except: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (path === except) continue;
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile) {
        const bytes = await Deno.readFile(path).catch(() => null);
        if (
          bytes && bytes.length < 64 * 1024 * 1024 &&
          new TextDecoder().decode(bytes).includes(secret)
        ) {
          found.push(path);
        }
      }
    }
  };
  await walk(folder);
  return found;
}

/**
 * Kills the service (SIGKILL) while a credentialed sync is held upstream: no
 * file outside its credentials folder, and no new file in the system
 * temporary folder, holds the token.
 */
async function killedMidSync(
  service: RunningService,
  at: { http: ReturnType<typeof serveGitHttp>; parent: string; data: string },
): Promise<void> {
  const token = "glpat-" + "c3".repeat(16);
  // Only requests with this token are held: the one held is this registration's.
  at.http.setToken(token);
  const started = Date.now();
  at.http.setHoldMs(3000);
  const arrived = at.http.held();
  await registerPrivate(adminOf(service), {
    name: "org/killed",
    source: `${at.http.url}/app.git`,
    credential: { kind: "https", token },
  });
  await arrived;
  Deno.kill(service.pid, "SIGKILL");
  await service.stop();
  assertEquals(await filesHolding(at.parent, token, join(at.data, "credentials")), []);
  // Nothing new in the system temporary folder holds it either.
  const tmp = Deno.env.get("TMPDIR") ?? "/tmp";
  const fresh: string[] = [];
  for await (const entry of Deno.readDir(tmp)) {
    const path = join(tmp, entry.name);
    const info = await Deno.lstat(path).catch(() => null);
    if (!info?.isFile || (info.mtime?.getTime() ?? 0) < started || info.size > 1024 * 1024) {
      continue;
    }
    const bytes = await Deno.readFile(path).catch(() => new Uint8Array());
    if (new TextDecoder().decode(bytes).includes(token)) fresh.push(path);
  }
  assertEquals(fresh, []);
}

Deno.test("private https: a token through the service's own credential helper; refusals are distinct and safe; rotation without restart; SIGKILL mid-sync leaves no secret outside the data folder", async () => {
  const parent = await tempDir("sg-private-");
  const work = await createRepo({ "secret.txt": "private content one\n" }, {
    parent,
    name: "work",
  });
  const served = join(parent, "served");
  await Deno.mkdir(served);
  await git(parent, ["clone", "-q", "--bare", work.path, join(served, "app.git")]);
  const first = "ghp_" + "a1".repeat(18);
  const second = "ghp_" + "b2".repeat(18);
  const http = serveGitHttp(served, { token: first });
  const home = join(parent, "home");
  await Deno.mkdir(home);
  const service = await startService(home, { SOURCEGRAPH_API_TOKEN: SERVICE_TOKEN });
  const admin = adminOf(service);
  const client = await connectClient(service.url, { token: SERVICE_TOKEN });
  const data = join(home, ".sourcegraph");
  const prepare = async (name: string) =>
    (await admin("POST", `/repo/prepare?repo=${encodeURIComponent(name)}`)).json;
  const availability = async (name: string) =>
    JSON.parse(await callText(client, "availability", { repo: name }));
  try {
    const created = await registerPrivate(admin, {
      name: "org/private",
      source: `${http.url}/app.git`,
      credential: { kind: "https", token: first },
    });
    assertEquals(created.status, 202, created.text);
    assert(!created.text.includes(first), "the answer never holds the token");
    assertEquals((await prepare("org/private")).state, "succeeded");
    const read = await callText(client, "read", { repo: "org/private", path: "secret.txt" });
    assertIncludes(read, "private content one");
    const before = await availability("org/private");
    assertEquals([before.credential_set, before.credential_kind], [true, "https"]);
    const oldCommit = before.versions[0].commit;

    // A sync in flight: the token is in no process's arguments or environment.
    await work.write({ "secret.txt": "private content two\n" });
    await work.commit("two");
    await git(work.path, ["push", "-q", join(served, "app.git"), "main"]);
    http.setHoldMs(1500);
    const arrived = http.held();
    const syncing = prepare("org/private");
    await arrived;
    const holding = await processesHolding(first);
    const synced = await syncing;
    assertEquals(holding, [], "ps and /proc/<pid>/environ");
    assertEquals(synced.state, "succeeded");
    http.setHoldMs(0);

    // Stored only in the data folder, owner-only; not in the control store.
    const folder = join(data, "credentials", "1");
    assertEquals((await Deno.stat(folder)).mode! & 0o777, 0o700);
    assertEquals((await Deno.stat(join(folder, "https.credential"))).mode! & 0o777, 0o600);
    assertEquals(await filesHolding(parent, first, folder), [], "no other file holds the token");

    // Revoked upstream: GIT_AUTH_FAILED, and the retained versions stay readable.
    http.setToken(second);
    const refused = await prepare("org/private");
    assertEquals([refused.state, refused.code], ["failed", "GIT_AUTH_FAILED"]);
    assertEquals((await availability("org/private")).last_sync_error, "GIT_AUTH_FAILED");
    assertIncludes(
      await callText(client, "read", {
        repo: "org/private",
        path: "secret.txt",
        revision: oldCommit,
      }),
      "private content one",
    );
    // Rotated through the admin API: the next sync uses it, no restart.
    const rotate = await admin("PUT", "/repo/credential?repo=org/private", {
      key: "rotate-000001",
      body: { kind: "https", username: "bot", token: second },
    });
    assertEquals([rotate.status, rotate.json], [200, {
      repo: "org/private",
      credential: { kind: "https" },
    }]);
    const replay = await admin("PUT", "/repo/credential?repo=org/private", {
      key: "rotate-000001",
      body: { kind: "https", username: "bot", token: second },
    });
    assertEquals(replay.status, 200, "an Idempotency-Key replays");
    const reused = await admin("PUT", "/repo/credential?repo=org/private", {
      key: "rotate-000001",
      body: { kind: "https", token: first },
    });
    assertEquals(reused.json.code, "IDEMPOTENCY_KEY_REUSED");
    for (
      const bad of [
        { kind: "https" },
        { kind: "https", token: "has space" },
        { kind: "https", token: "x", extra: 1 },
        { kind: "https", token: "line\nbreak" },
        { kind: "ssh", private_key: "not a key", known_hosts: "x" },
      ]
    ) {
      const answer = await admin("PUT", "/repo/credential?repo=org/private", {
        key: `bad-${crypto.randomUUID()}`,
        body: bad,
      });
      assertEquals(
        [answer.status, answer.json.code],
        [400, "INVALID_REQUEST"],
        JSON.stringify(bad),
      );
    }
    assertEquals(
      (await admin("PUT", "/repo/credential?repo=org/private", {
        body: { kind: "https", token: second },
      })).json.code,
      "IDEMPOTENCY_KEY_REQUIRED",
    );
    assertEquals((await prepare("org/private")).state, "succeeded");
    assertIncludes(
      await callText(client, "read", { repo: "org/private", path: "secret.txt" }),
      "two",
    );

    // A repository that does not exist, and a host that does not answer.
    const missing = await registerPrivate(admin, {
      name: "org/missing",
      source: `${http.url}/nothing.git`,
      credential: { kind: "https", token: second },
    });
    assertEquals(missing.status, 202);
    assertEquals((await prepare("org/missing")).code, "GIT_ACCESS_DENIED");
    await registerPrivate(admin, {
      name: "org/gone",
      source: `http://127.0.0.1:${freePort()}/x.git`,
      credential: { kind: "https", token: second },
    });
    assertEquals((await prepare("org/gone")).code, "GIT_FETCH_FAILED");

    // Removed: never answered back, and the next sync has no credential.
    assertEquals((await admin("DELETE", "/repo/credential?repo=org/private")).status, 204);
    assertEquals((await availability("org/private")).credential_set, false);
    assertEquals((await prepare("org/private")).code, "GIT_AUTH_FAILED");
    assertEquals(
      (await admin("DELETE", "/repo/credential?repo=org/private")).json.code,
      "CREDENTIAL_NOT_FOUND",
    );
    const log = service.log.join("\n");
    for (const secret of [first, second]) {
      assert(!log.includes(secret), "the log never holds a token");
      assertEquals(await filesHolding(parent, secret, join(data, "credentials")), []);
    }
    assertIncludes(log, "GIT_AUTH_FAILED");
    // Deleting the repository deletes its credential.
    assertEquals((await admin("DELETE", "/repo?repo=org/missing")).status, 204);
    assert(!(await Deno.stat(join(data, "credentials", "2")).then(() => true, () => false)));

    // Last, on the same service (a start of its own cost a processor-second): killed mid-sync.
    await client.close();
    await killedMidSync(service, { http, parent, data });
  } catch (error) {
    console.error(service.log.join("\n"));
    throw error;
  } finally {
    await client.close().catch(() => {});
    await service.stop();
    await http.close();
    await removeDir(parent);
  }
});

Deno.test({
  name:
    "private ssh: a deploy key with its known_hosts; a wrong key and an unknown host key are refused",
  ignore: !haveSshd(),
  fn: async () => {
    const parent = await tempDir("sg-private-ssh-");
    const work = await createRepo({ "a.txt": "over ssh\n" }, { parent, name: "work" });
    const bare = join(parent, "app.git");
    await git(parent, ["clone", "-q", "--bare", work.path, bare]);
    const keys = join(parent, "keys");
    await Deno.mkdir(keys);
    const deploy = await makeKey(join(keys, "deploy"));
    await makeKey(join(keys, "stranger"));
    const sshd = await startSshd(keys, { authorizedKeys: [deploy] });
    // Another server's host key (no server of its own needed to present it).
    const otherHost = await makeKey(join(keys, "other_host"));
    const home = join(parent, "home");
    await Deno.mkdir(home);
    const service = await startService(home, { SOURCEGRAPH_API_TOKEN: SERVICE_TOKEN });
    const admin = adminOf(service);
    const client = await connectClient(service.url, { token: SERVICE_TOKEN });
    const privateKey = await Deno.readTextFile(join(keys, "deploy"));
    const source = `ssh://${sshd.user}@127.0.0.1:${sshd.port}${bare}`;
    const register = (name: string, credential: Record<string, unknown>) =>
      registerPrivate(admin, { name, source, credential });
    const prepare = async (name: string) =>
      (await admin("POST", `/repo/prepare?repo=${name}`)).json;
    try {
      await register("org/ssh", {
        kind: "ssh",
        private_key: privateKey,
        known_hosts: sshd.knownHosts,
      });
      assertEquals((await prepare("org/ssh")).state, "succeeded");
      assertIncludes(
        await callText(client, "read", { repo: "org/ssh", path: "a.txt" }),
        "over ssh",
      );
      const stored = join(home, ".sourcegraph", "credentials", "1");
      assertEquals((await Deno.stat(join(stored, "ssh_key"))).mode! & 0o777, 0o600);
      assertEquals(
        JSON.parse(await callText(client, "availability", { repo: "org/ssh" })).credential_kind,
        "ssh",
      );
      await register("org/stranger", {
        kind: "ssh",
        private_key: await Deno.readTextFile(join(keys, "stranger")),
        known_hosts: sshd.knownHosts,
      });
      assertEquals((await prepare("org/stranger")).code, "GIT_AUTH_FAILED");
      // The host key of another server: refused before any key is offered.
      await register("org/spoofed", {
        kind: "ssh",
        private_key: privateKey,
        known_hosts: `[127.0.0.1]:${sshd.port} ${otherHost.split(" ").slice(0, 2).join(" ")}`,
      });
      assertEquals((await prepare("org/spoofed")).code, "GIT_FETCH_FAILED");
      const line = privateKey.split("\n")[1];
      assert(!service.log.join("\n").includes(line), "the log never holds the key");
    } finally {
      await client.close();
      await service.stop();
      await sshd.stop();
      await removeDir(parent);
    }
  },
});
